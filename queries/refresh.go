package queries

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/exit"
)

// catalogVersion hashes the size and time of every manifest and snapshot
// file. It also gives each topic a version of its own: the files under
// its topic= folders, with the files every topic's answers may read (the
// cuts of a folder written before cuts were kept by topic, and
// __consumer_offsets', which the group log views read). A topic's
// version changes when what its checks read does, and not when another
// topic is dumped: the server's overview keeps a topic's tiles by it.
func (e *Engine) catalogVersion(ctx context.Context) (string, map[string]string, error) {
	h := sha256.New()
	var files []string
	if len(e.opts.Topics) > 0 {
		// A limited engine reads only these topics' manifests and cuts
		// (and __consumer_offsets', for the group log views).
		files = e.dir.StateFilesOf(append(slices.Clone(e.opts.Topics), offsetsTopic))
	} else {
		var err error
		if files, err = e.dir.StateFiles(ctx); err != nil {
			return "", nil, err
		}
	}
	shared := sha256.New()
	byTopic := map[string]hash.Hash{}
	for _, path := range files {
		st, err := os.Stat(path)
		if err != nil {
			continue
		}
		line := fmt.Sprintf("%s %d %d\n", path, st.Size(), st.ModTime().UnixNano())
		io.WriteString(h, line)
		t, ok := stateFileTopic(e.dir.Path, path)
		if !ok || t == offsetsTopic {
			io.WriteString(shared, line)
		}
		if ok {
			th := byTopic[t]
			if th == nil {
				th = sha256.New()
				byTopic[t] = th
			}
			io.WriteString(th, line)
		}
	}
	sharedSum := shared.Sum(nil)
	topics := make(map[string]string, len(byTopic))
	for t, th := range byTopic {
		th.Write(sharedSum)
		topics[t] = hex.EncodeToString(th.Sum(nil))[:16]
	}
	return hex.EncodeToString(h.Sum(nil))[:16], topics, nil
}

// stateFileTopic is the topic whose folder holds a state file
// (topic=NAME/partition=P/manifest.json, snapshots/topic=NAME/ID.json),
// or false for a file of no one topic (a cut of a folder written before
// cuts were kept by topic).
func stateFileTopic(root, path string) (string, bool) {
	rel, err := filepath.Rel(root, path)
	if err != nil {
		return "", false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) >= 3 && parts[0] == "snapshots" {
		parts = parts[1:]
	}
	if len(parts) >= 2 && strings.HasPrefix(parts[0], "topic=") {
		return strings.TrimPrefix(parts[0], "topic="), true
	}
	return "", false
}

// Refresh rebuilds the views if the catalog changed since the last build,
// and reports whether it did.
func (e *Engine) Refresh(ctx context.Context) (bool, error) {
	v, tv, err := e.catalogVersion(ctx)
	if err != nil {
		return false, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if v == e.version && e.version != "" {
		return false, nil
	}
	cat, err := e.readCatalog(ctx)
	if err != nil {
		return false, err
	}
	if err := e.apply(ctx, v, tv, cat); err != nil {
		return false, err
	}
	return true, nil
}

type topicFiles struct {
	name      string
	apart     string // why the topic has no views (apartNames); "" when it has
	manifests []*catalog.Manifest
	paths     []string
	plain     []bool            // per path: no control markers, no open transactions
	openTxn   bool              // some file holds records of a transaction left open in it
	rawKeys   bool              // some file stores a header key that is not UTF-8 as bytes
	encoded   bool              // the dump decoded (or tried to) wire-format values
	mixed     bool              // of an encoded topic, some file may predate value_decoded
	schemas   []*catalog.Schema // the stored schemas of the ids its files list
	// keyEncoded: the dump decoded (or tried to) wire-format keys;
	// keyMixed: some file may predate key_decoded; keySchemas: the stored
	// schemas of the key schema ids its files list.
	keyEncoded, keyMixed bool
	keySchemas           []*catalog.Schema
	// openFiles, markerFiles: the paths of the files that hold records of
	// transactions left open in them, and of those that hold markers
	openFiles, markerFiles []string
	keyPaths               []string // the files holding decoded keys, sampled for their structure
	damaged                []int32  // partitions whose manifest could not be read (left out)
	// superseded are the files of histories the dump found rewritten
	// (catalog.Rewrite), read by the view "T$superseded" only.
	superseded []string
}

// want names what a query needs built: everything, or the lower-case names
// of topic views ("t" or "t$all") and catalog tables.
type want struct {
	all   bool
	names map[string]bool
}

// catalogState is what readCatalog found on disk.
type catalogState struct {
	files    []topicFiles
	snaps    []*catalog.ClusterSnapshot
	problems []string
	badCuts  map[string]int // cluster snapshots that could not be read, by their folder's topic ("" unknown)
	allNames []string       // every topic's name, when Options.Topics limits what was read
}

// readCatalog reads the manifests and cluster snapshots. A damaged one is
// skipped and named in problems.
func (e *Engine) readCatalog(ctx context.Context) (*catalogState, error) {
	names, unread, err := e.dir.TopicFolders(ctx)
	if err != nil {
		return nil, err
	}
	var all []string
	if len(e.opts.Topics) > 0 {
		all, names = names, slices.DeleteFunc(slices.Clone(names), func(n string) bool {
			return n != offsetsTopic && !slices.Contains(e.opts.Topics, n)
		})
	}
	var tfs []topicFiles
	var problems []string
	// A topic's folder that is a link (or a file) is not read: named, so
	// that the topic is not silently missing.
	for _, u := range unread {
		if len(e.opts.Topics) == 0 || slices.Contains(e.opts.Topics, u.Topic) {
			problems = append(problems, u.Error())
		}
	}
	var fc *footerCache // the files whose footer decoded at an earlier open
	if !catalog.IsURL(e.dir.Path) {
		fc = openFooterCache(e.dir.Path)
		defer fc.save()
	}
	for _, n := range names {
		tm, err := e.readTopic(ctx, n, fc)
		if errors.Is(err, catalog.ErrTooManyFiles) {
			// The process's limit, not the topic's: skipped, it read as
			// a table that does not exist (exit 4) or a folder without it.
			return nil, err
		}
		if err != nil {
			// One unreadable topic must not hide the others: skip it, say why.
			problems = append(problems, fmt.Sprintf("topic %s skipped: %v", n, err))
			continue
		}
		// A damaged partition hides only itself: named in problems, and
		// every check on the topic says it could not judge it.
		var damaged []int32
		for _, me := range tm.Damaged {
			problems = append(problems, fmt.Sprintf("%v; %s", me, e.verifyHint()))
			damaged = append(damaged, me.TP.Partition)
		}
		if len(tm.Manifests) == 0 && len(damaged) > 0 {
			continue
		}
		if len(tm.Manifests) == 0 {
			// A folder a dump made and wrote nothing in (the topic
			// refused it, or it stopped before its first file) holds no
			// topic: it was a view of no partition and no record, an
			// empty topic to SQL, the checks and the server's list.
			problems = append(problems, UnwrittenTopic(n))
			continue
		}
		ms := tm.Manifests
		tf := topicFiles{name: n, manifests: ms, damaged: damaged}
		ids, keyIDs := map[int]bool{}, map[int]bool{}
		for _, m := range ms {
			for _, f := range m.Superseded {
				tf.superseded = append(tf.superseded, e.dir.FilePath(m.TP(), f.Name))
			}
			for _, f := range m.Files {
				tf.paths = append(tf.paths, e.dir.FilePath(m.TP(), f.Name))
				tf.plain = append(tf.plain, f.ControlRecords == 0 && f.OpenTxnRecords == 0)
				tf.openTxn = tf.openTxn || f.OpenTxnRecords > 0
				if f.OpenTxnRecords > 0 {
					tf.openFiles = append(tf.openFiles, tf.paths[len(tf.paths)-1])
				}
				if f.ControlRecords > 0 {
					tf.markerFiles = append(tf.markerFiles, tf.paths[len(tf.paths)-1])
				}
				tf.rawKeys = tf.rawKeys || f.RawHeaderKeys > 0
				tf.encoded = tf.encoded || f.Decoded > 0 || f.DecodeErrors > 0
				tf.mixed = tf.mixed || f.Decoded == 0 && f.DecodeErrors == 0
				tf.keyEncoded = tf.keyEncoded || f.KeysDecoded > 0 || f.KeyDecodeErrors > 0
				tf.keyMixed = tf.keyMixed || f.KeysDecoded == 0 && f.KeyDecodeErrors == 0
				if f.KeysDecoded > 0 {
					tf.keyPaths = append(tf.keyPaths, tf.paths[len(tf.paths)-1])
				}
				for _, id := range f.SchemaIDs {
					ids[int(id)] = true
				}
				for _, id := range f.KeySchemaIDs {
					keyIDs[int(id)] = true
				}
			}
		}
		stored := func(ids map[int]bool) []*catalog.Schema {
			var out []*catalog.Schema
			var missing []int
			unreadable := 0
			for _, id := range slices.Sorted(maps.Keys(ids)) {
				s, err := e.dir.ReadSchema(ctx, int(id))
				if err != nil {
					// The values stay decoded (the dump did it); only the
					// schema's subject and version are not known. Ids a
					// producer made up can be thousands: said in one line.
					if errors.Is(err, os.ErrNotExist) {
						missing = append(missing, id)
					} else if unreadable++; unreadable <= maxSchemaProblems {
						problems = append(problems, fmt.Sprintf("topic %s: schema %d is not readable in the folder (%v); %s", n, id, err, e.verifyHint()))
					}
					continue
				}
				out = append(out, s)
			}
			if unreadable > maxSchemaProblems {
				problems = append(problems, fmt.Sprintf("topic %s: %d more schemas are not readable in the folder; %s", n, unreadable-maxSchemaProblems, e.verifyHint()))
			}
			if len(missing) > 0 {
				problems = append(problems, fmt.Sprintf("topic %s: %s not in the folder (its values were not decoded, or the folder lost it); %s", n, schemaIDList(missing), e.verifyHint()))
			}
			return out
		}
		tf.schemas, tf.keySchemas = stored(ids), stored(keyIDs)
		tfs = append(tfs, tf)
	}
	var snaps []*catalog.ClusterSnapshot
	if len(e.opts.Topics) > 0 {
		// The cuts of these topics only (kept by topic in the folder):
		// a group's rows, a topic's configs and offsets are in its own.
		snaps, err = e.dir.ClusterSnapshotsOf(ctx, append(slices.Clone(e.opts.Topics), offsetsTopic))
	} else {
		snaps, err = e.dir.ClusterSnapshots(ctx)
	}
	badCuts := map[string]int{}
	switch {
	case errors.Is(err, catalog.ErrTooManyFiles):
		return nil, fmt.Errorf("read the cluster snapshots: %w", err) // the process's limit, not damage
	case errors.Is(err, catalog.ErrBadManifest), errors.Is(err, catalog.ErrNewerFormat):
		// A damaged snapshot hides only itself: the others are kept, and
		// each damaged one is named by its path in the folder.
		for _, one := range unjoin(err) {
			problems = append(problems, fmt.Sprintf("%v; %s", one, e.verifyHint()))
			topic := ""
			if se := (*catalog.SnapshotError)(nil); errors.As(one, &se) {
				topic = se.FolderTopic()
			}
			badCuts[topic]++
		}
	case err != nil:
		problems = append(problems, fmt.Sprintf("cluster snapshots skipped: %v", err))
		snaps = nil
		badCuts[""]++
	}
	tfs, problems = apartNames(tfs, problems)
	return &catalogState{files: tfs, snaps: snaps, problems: problems, badCuts: badCuts, allNames: all}, nil
}

// ErrNameTaken marks a topic whose name SQL cannot tell apart from another
// name of the engine's: another topic's that differs only in case (Kafka
// allows "Orders" beside "orders"; SQL names ignore case), or a table the
// engine makes (a topic named "files" or "partitions").
var ErrNameTaken = exit.New(exit.Error, "topic name taken in SQL",
	"check NAME --topic NAME reads a topic alone (one whose name differs from another's only in case); a topic named as a table topicsnap makes is read in SQL with read_parquet of its files (the files table lists them)")

// takenName says why topic's views cannot be made under its name: a table
// or view the engine makes has it (lower case); "" when none does.
func takenName(topic string) string {
	l := strings.ToLower(topic)
	if slices.Contains(metadataTables, l) || slices.Contains(logViews, l) {
		return fmt.Sprintf("topic %s has the name of the table %s that topicsnap makes, so it has no view under that name", topic, l)
	}
	return ""
}

// apartNames marks (topicFiles.apart), and names in problems, the topics
// whose views SQL could not tell apart: two topics whose names differ only
// in case (one view answered for both, silently), and a topic named as a
// table the engine makes (the table answered for it). They keep their rows
// in the catalog tables (files, partition_dumps, ...) and get no view.
func apartNames(tfs []topicFiles, problems []string) ([]topicFiles, []string) {
	byLower := map[string][]string{}
	for _, tf := range tfs {
		l := strings.ToLower(tf.name)
		byLower[l] = append(byLower[l], tf.name)
	}
	for i := range tfs {
		tf := &tfs[i]
		if same := byLower[strings.ToLower(tf.name)]; len(same) > 1 {
			tf.apart = fmt.Sprintf("topics %s differ only in case, which SQL names do not tell apart, so none has a view", strings.Join(same, ", "))
			if same[0] == tf.name { // said once for the group
				problems = append(problems, tf.apart+": check NAME --topic NAME reads one alone; in SQL, read_parquet its files (the files table lists them, by topic)")
			}
			continue
		}
		if why := takenName(tf.name); why != "" {
			tf.apart = why
			problems = append(problems, why+": check NAME --topic NAME refuses it; in SQL, read_parquet its files (the files table lists them, by topic)")
		}
	}
	return tfs, problems
}

// apply makes cat, read at catalog version v, the engine's catalog: it
// drops what the last build made and, unless the engine is lazy, builds
// every view and table. e.mu is held.
func (e *Engine) apply(ctx context.Context, v string, tv map[string]string, cat *catalogState) error {
	tfs := cat.files
	topics := make([]Topic, len(tfs))
	for i, tf := range tfs {
		old := OldTopicPartitions(tf.name, tf.manifests, cat.snaps)
		topics[i] = Topic{Name: tf.name, Apart: tf.apart, Partitions: len(tf.manifests) - len(old), OldPartitions: old, Files: len(tf.paths), Damaged: tf.damaged, Encoded: tf.encoded, KeyEncoded: tf.keyEncoded, openTxn: tf.openTxn,
			openFiles: tf.openFiles, markerFiles: tf.markerFiles}
		for _, s := range slices.Concat(tf.schemas, tf.keySchemas) {
			if !slices.Contains(topics[i].Formats, s.Type) {
				topics[i].Formats = append(topics[i].Formats, s.Type)
			}
		}
		sort.Strings(topics[i].Formats)
		for _, m := range tf.manifests {
			topics[i].Records += m.Records()
		}
	}
	sort.Slice(topics, func(i, j int) bool { return topics[i].Name < topics[j].Name })
	if e.version == "" && e.opts.Lazy {
		// The first catalog of a lazy engine: nothing to drop, nothing to build.
		e.problems, e.files, e.snaps, e.topics, e.version, e.topicVersions = cat.problems, tfs, cat.snaps, topics, v, tv
		e.allNames = cat.allNames
		e.badCuts = cat.badCuts
		return nil
	}
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect duckdb: %w", err)
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	// Drop the views and tables of the last build.
	rows, err := tx.QueryContext(ctx, "SELECT view_name FROM duckdb_views() WHERE NOT internal AND database_name = 'memory' AND schema_name = 'main'")
	if err != nil {
		return fmt.Errorf("list views: %w", err)
	}
	var old []string
	for rows.Next() {
		var v string
		rows.Scan(&v)
		old = append(old, v)
	}
	rows.Close()
	for _, v := range old {
		if _, err := tx.ExecContext(ctx, "DROP VIEW IF EXISTS memory.main."+quoteIdent(v)); err != nil {
			return fmt.Errorf("drop view %s: %w", v, err)
		}
	}
	for _, t := range metadataTables {
		if e.built[t] {
			kind := "TABLE"
			if t == "group_history" {
				kind = "VIEW" // over group_history_cuts (and the log)
			}
			if _, err := tx.ExecContext(ctx, "DROP "+kind+" IF EXISTS memory.main."+quoteIdent(t)); err != nil {
				return fmt.Errorf("drop table %s: %w", t, err)
			}
		}
	}
	restore := e.checkpoint()
	e.problems, e.files, e.snaps, e.topics = cat.problems, tfs, cat.snaps, topics
	e.badCuts, e.allNames = cat.badCuts, cat.allNames
	e.built, e.allBuilt = map[string]bool{}, false
	if !e.opts.Lazy {
		if err := e.buildTx(ctx, tx, want{all: true}); err != nil {
			restore()
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		restore()
		return fmt.Errorf("commit views: %w", err)
	}
	e.version, e.topicVersions = v, tv
	return nil
}

// buildFault, when set, fails every build of views: the tests' way to
// fail a refresh after it read the catalog (a data file DuckDB cannot
// read, which once did, now costs its partition before DuckDB sees it).
var buildFault error

// ensure builds what w names and is not built yet, on conn (the query's
// own connection: a pool of one must not wait for a second).
func (e *Engine) ensure(ctx context.Context, conn *sql.Conn, w want) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.missing(w) {
		return nil
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	restore := e.checkpoint()
	if err := e.buildTx(ctx, tx, w); err != nil {
		restore()
		return err
	}
	if err := tx.Commit(); err != nil {
		restore()
		return fmt.Errorf("commit views: %w", err)
	}
	return nil
}

// verifyHint is the command a problem of the folder asks for: catalog
// verify of the folder as the user named it (Options.FolderName: a
// bucket's s3://..., not the local cache the engine reads); without a
// name, the command alone (a problem never shows the folder's path: the
// server shows them to whoever reads its pages).
func (e *Engine) verifyHint() string {
	if e.opts.FolderName == "" {
		return "run topicsnap catalog verify"
	}
	return "run topicsnap catalog verify --dir " + ShellQuote(e.opts.FolderName)
}

// metadataSnaps are the cuts the catalog tables hold: those of the
// engine's topics (Options.Topics), or all. A limited engine read its
// topics' cuts only, but a folder written before cuts were kept by topic
// gives it every one. e.mu is held.
func (e *Engine) metadataSnaps() []*catalog.ClusterSnapshot {
	if len(e.opts.Topics) == 0 {
		return e.snaps
	}
	var out []*catalog.ClusterSnapshot
	for _, s := range e.snaps {
		if s.Topic == offsetsTopic || slices.Contains(e.opts.Topics, s.Topic) {
			out = append(out, s)
		}
	}
	return out
}

// ensureTopics builds the views of the named topics ("" is none), the
// catalog tables and the group log views on a lazy engine; a no-op on an
// eager one.
func (e *Engine) ensureTopics(ctx context.Context, topics ...string) error {
	if !e.opts.Lazy {
		return nil
	}
	// The catalog tables and the group log views too: a check's Go code
	// queries some of them directly (not through the lazy path), and an
	// engine limited to the check's topics (Options.Topics) fills them
	// with those topics' rows only.
	w := want{names: map[string]bool{}}
	for _, t := range metadataTables {
		w.names[t] = true
	}
	for _, v := range logViews {
		w.names[v] = true
	}
	for _, t := range topics {
		if t != "" {
			n := strings.ToLower(t)
			w.names[n], w.names[n+"$all"] = true, true
		}
	}
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect duckdb: %w", err)
	}
	defer conn.Close()
	return e.ensure(ctx, conn, w)
}

// checkpoint records the engine's account of its catalog and returns the
// function that puts it back: a build that fails is rolled back in DuckDB,
// and so must be what the engine says was built. e.mu is held.
func (e *Engine) checkpoint() func() {
	problems, files, snaps, badCuts := e.problems, e.files, e.snaps, e.badCuts
	topics := append([]Topic(nil), e.topics...)
	built, allBuilt := maps.Clone(e.built), e.allBuilt
	return func() {
		e.problems, e.files, e.snaps, e.topics = problems, files, snaps, topics
		e.badCuts = badCuts
		e.built, e.allBuilt = built, allBuilt
	}
}

// missing reports whether something w names is not built. e.mu is held.
func (e *Engine) missing(w want) bool {
	if e.allBuilt {
		return false
	}
	if w.all || e.opts.Lazy && w.names[stateMacros] && !e.built[stateMacros] {
		return true
	}
	for _, t := range metadataTables {
		if w.names[t] && !e.built[t] {
			return true
		}
	}
	for _, tf := range e.files {
		n := strings.ToLower(tf.name)
		if tf.apart != "" {
			continue
		}
		if w.names[n] && !e.built[n] || w.names[n+"$all"] && !e.built[n+"$all"] ||
			len(tf.superseded) > 0 && w.names[n+"$superseded"] && !e.built[n+"$superseded"] {
			return true
		}
	}
	return e.wantsLog(w)
}

// hasOffsetsLogLocked reports whether the folder holds a dump of
// __consumer_offsets, over which the log views are built. e.mu is held.
func (e *Engine) hasOffsetsLogLocked() bool {
	for _, tf := range e.files {
		if tf.name == offsetsTopic {
			return true
		}
	}
	return false
}

// wantsLog reports whether w needs the log views built (grouplog.go).
// e.mu is held.
func (e *Engine) wantsLog(w want) bool {
	if e.built[logViews[0]] || !e.hasOffsetsLogLocked() {
		return false
	}
	if w.all || w.names["group_history"] { // it answers from the log
		return true
	}
	for _, v := range logViews {
		if w.names[v] {
			return true
		}
	}
	return false
}

// buildTx creates, in tx, the catalog tables and topic views w names that
// are not built yet. e.mu is held.
func (e *Engine) buildTx(ctx context.Context, tx *sql.Tx, w want) error {
	if buildFault != nil {
		return buildFault
	}
	if e.opts.Lazy && (w.all || w.names[stateMacros]) && !e.built[stateMacros] {
		// An eager engine made them at Open (setup).
		if err := createStateMacros(ctx, tx); err != nil {
			return err
		}
		e.built[stateMacros] = true
	}
	wantLog := e.wantsLog(w)
	if wantLog && !w.all {
		// The log views read the topic's view.
		w.names = maps.Clone(w.names)
		w.names[offsetsTopic] = true
		w.names[offsetsTopic+"$all"] = true
		w.names["snapshots"] = true
	}
	tables := map[string]bool{}
	for _, t := range metadataTables {
		if (w.all || w.names[t]) && !e.built[t] {
			tables[t] = true
		}
	}
	if tables["group_history"] {
		tables["group_history_cuts"] = true // the view reads it
	}
	if len(tables) > 0 {
		if err := loadMetadata(ctx, tx, e.files, e.metadataSnaps(), tables); err != nil {
			return err
		}
		for t := range tables {
			e.built[t] = true
		}
	}
	for _, tf := range e.files {
		if tf.apart != "" {
			continue // no view under a name SQL cannot tell apart
		}
		n := strings.ToLower(tf.name)
		needData := (w.all || w.names[n]) && !e.built[n]
		needAll := (w.all || w.names[n+"$all"]) && !e.built[n+"$all"]
		needSup := (w.all || w.names[n+"$superseded"]) && !e.built[n+"$superseded"] && len(tf.superseded) > 0
		if !needData && !needAll && !needSup {
			continue
		}
		t := e.topicLocked(tf.name)
		// The value type is inferred when the first of the two views is built.
		if !e.built[n] && !e.built[n+"$all"] && len(tf.paths) > 0 {
			var err error
			// Outside tx, on a connection of its own: a folder whose files
			// DuckDB cannot read together (a data file made by hand, with
			// a column of another type) costs its topic the value's
			// structure and says so, not the whole build.
			t.Structure, t.JSON, err = inferJSONCached(ctx, e.sideDB, tf.paths, tf.encoded)
			if err != nil {
				if limit := duckTooManyFiles(err); ctx.Err() != nil || limit != err {
					// Not the topic's: the same build with a higher limit
					// reads its values, so they are not served as bytes.
					return fmt.Errorf("infer the value type of %s: %w", tf.name, limit)
				}
				e.problems = append(e.problems, fmt.Sprintf("topic %s: its values could not be sampled (%s); read as bytes; %s",
					tf.name, strings.ReplaceAll(CleanError(err).Error(), e.dir.Path+string(filepath.Separator), ""), e.verifyHint()))
				t.Structure, t.JSON = "", false
				if de := (*DamagedError)(nil); errors.As(damagedErr(err, "", e.dir.Path), &de) {
					t.unsampled = de
				}
			}
			t.sampledValue = t.JSON
			if tf.encoded && t.JSON {
				// The writer schemas type the values better than a sample.
				if typed, conflicts := e.typedStructure(ctx, tf.schemas, t.Structure, false); typed != "" {
					t.Structure, t.sampledValue = typed, false
					for _, c := range conflicts {
						e.problems = append(e.problems, fmt.Sprintf("topic %s: field %s differ between its schemas; read as VARCHAR (its JSON text)", tf.name, c))
					}
				}
			}
			if t.JSON {
				t.Structure = e.keepApart(tf.name, t.Structure, "value")
			}
			if tf.keyEncoded {
				// Keys: the structure of a sample of the decoded keys (a
				// record, or a scalar: an Avro "string" key), then the
				// key schemas' types where they say.
				if t.KeyStructure, err = inferKey(ctx, e.sideDB, tf.keyPaths); err != nil {
					if ctx.Err() != nil {
						return fmt.Errorf("infer the key type of %s: %w", tf.name, err)
					}
					e.problems = append(e.problems, fmt.Sprintf("topic %s: its keys could not be sampled (%s); read as text; %s",
						tf.name, strings.ReplaceAll(CleanError(err).Error(), e.dir.Path+string(filepath.Separator), ""), e.verifyHint()))
					t.KeyStructure = ""
				}
				t.sampledKey = t.KeyStructure != ""
				if t.KeyStructure != "" {
					if typed, conflicts := e.typedStructure(ctx, tf.keySchemas, t.KeyStructure, true); typed != "" {
						t.KeyStructure, t.sampledKey = typed, false
						for _, c := range conflicts {
							e.problems = append(e.problems, fmt.Sprintf("topic %s: key field %s differ between its schemas; read as VARCHAR (its JSON text)", tf.name, c))
						}
					}
					t.KeyStructure = e.keepApart(tf.name, t.KeyStructure, "key")
				}
			}
		}
		all, data := topicSelects(tf.paths, tf.plain, e.viewCols(tf, *t, ""), tf.openTxn)
		var ddl []string
		if needAll {
			ddl = append(ddl, fmt.Sprintf("CREATE OR REPLACE VIEW %s AS %s", quoteIdent(tf.name+"$all"), all))
			e.built[n+"$all"] = true
		}
		if needData {
			ddl = append(ddl, fmt.Sprintf("CREATE OR REPLACE VIEW %s AS %s", quoteIdent(tf.name), data))
			e.built[n] = true
		}
		if needSup {
			// Every stored row of the superseded histories, typed as "T$all".
			sup, _ := topicSelects(tf.superseded, make([]bool, len(tf.superseded)), e.viewCols(tf, *t, ""), true)
			ddl = append(ddl, fmt.Sprintf("CREATE OR REPLACE VIEW %s AS %s", quoteIdent(tf.name+"$superseded"), sup))
			e.built[n+"$superseded"] = true
		}
		for _, q := range ddl {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				if isDamagedData(err) {
					return damagedErr(err, "create views of "+tf.name, e.dir.Path)
				}
				return fmt.Errorf("create views of %s: %w", tf.name, duckTooManyFiles(err))
			}
		}
	}
	if wantLog {
		ddl, err := logViewDDL()
		if err != nil {
			return err
		}
		for _, q := range ddl {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("create the views of %s: %w", offsetsTopic, duckTooManyFiles(err))
			}
		}
		for _, v := range logViews {
			e.built[v] = true
		}
	}
	// group_history answers from the log where the folder holds it: made
	// (again) once the log views are, else over the cuts alone.
	if tables["group_history"] || wantLog && e.built["group_history"] {
		q, err := render("group_history", sqlData{Log: e.built[logViews[0]]})
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("create view group_history: %w", err)
		}
	}
	if w.all {
		// lag_at reads every topic's stored offsets: it is made once
		// every view is.
		q, err := e.lagAtMacroLocked()
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("create macro lag_at: %w", err)
		}
		e.allBuilt = true
	}
	return nil
}

// lagAtMacroLocked renders sql/lag_at.sql over the folder's topics. e.mu
// is held.
func (e *Engine) lagAtMacroLocked() (string, error) {
	var parts []string
	for _, tf := range e.files {
		if tf.apart != "" {
			continue // it has no view (its name is said among the problems)
		}
		// A record's -1 is Kafka's "no timestamp": no time, not 1969.
		parts = append(parts, fmt.Sprintf(`SELECT %s AS topic, "partition", "offset", CASE WHEN epoch_ms("timestamp") = -1 THEN NULL ELSE "timestamp" END AS "timestamp" FROM %s`, quoteString(tf.name), quoteIdent(tf.name+"$all")))
	}
	if len(parts) == 0 {
		parts = []string{`SELECT NULL::VARCHAR AS topic, NULL::INTEGER AS "partition", NULL::BIGINT AS "offset", NULL::TIMESTAMPTZ AS "timestamp" WHERE false`}
	}
	return render("lag_at", sqlData{Records: strings.Join(parts, "\n  UNION ALL "), Log: e.hasOffsetsLogLocked()})
}

// valueFit is the fitCheck of t's values when their structure was
// inferred from a sample, "" otherwise.
func valueFit(tf topicFiles, t Topic) string {
	if !t.JSON || !t.sampledValue {
		return ""
	}
	if tf.encoded {
		return fitCheck(encodedSource, t.Structure)
	}
	return fitCheck(jsonFitSource, t.Structure)
}

// viewCols are the value columns of tf's views; value, when set, is the
// value expression (a narrowed one) instead of the topic's own.
func (e *Engine) viewCols(tf topicFiles, t Topic, value string) viewCols {
	c := viewCols{key: textKey, value: `"value"`, valueErr: noValueError, rawHeaderKeys: tf.rawKeys, byName: tf.rawKeys}
	src, raw := jsonSource, `"value"`
	fit := valueFit(tf, t)
	if tf.encoded {
		src, raw = encodedSource, encodedSource
		c.valueErr, c.byName = encodedValueError(fit), c.byName || tf.mixed
		c.extra = schemaColumns(tf.name, tf.schemas, "schema_id", "")
	}
	if tf.keyEncoded {
		keyFit := ""
		if t.KeyStructure != "" {
			if t.sampledKey {
				keyFit = fitCheck("key_decoded", t.KeyStructure)
			}
			c.key = boundedValue(fitted(fmt.Sprintf(`try(from_json(key_decoded, %s))`, quoteString(t.KeyStructure)), keyFit), "key_decoded")
		}
		c.byName = c.byName || tf.keyMixed
		c.extra += `, key_schema_id, ` + encodedKeyError(keyFit) + ` AS key_error` + schemaColumns(tf.name, tf.keySchemas, "key_schema_id", "key_")
	}
	if t.JSON {
		c.value = boundedValue(fitted(jsonValue(tf.name, t.Structure, src), fit), raw)
		if !tf.encoded {
			c.valueErr = jsonValueError(fit)
		}
	}
	if value != "" {
		c.value = value
	}
	return c
}

// schemaColumns are a schema-encoded topic's schema_subject and
// schema_version: where the registry listed each schema id when the dump
// fetched it, NULL where it did not (a deleted subject, a --schema file).
// A registry may list one id under several subjects (the same schema
// registered twice): the topic's own (TOPIC-value, TOPIC-key, as the
// default naming strategy names them) wins, then the first listed.
func schemaColumns(topic string, ss []*catalog.Schema, idCol, prefix string) string {
	var subj, ver strings.Builder
	own, other := topic+"-value", topic+"-key"
	if prefix != "" {
		own, other = other, own
	}
	for _, s := range ss {
		if len(s.Versions) == 0 {
			continue
		}
		v := s.Versions[0]
		for _, c := range s.Versions {
			if c.Subject == own || c.Subject == other && v.Subject != own {
				v = c
			}
		}
		fmt.Fprintf(&subj, " WHEN %d THEN %s", s.ID, quoteString(v.Subject))
		fmt.Fprintf(&ver, " WHEN %d THEN %d", s.ID, v.Version)
	}
	if subj.Len() == 0 {
		return fmt.Sprintf(`, NULL::VARCHAR AS %sschema_subject, NULL::INTEGER AS %sschema_version`, prefix, prefix)
	}
	return fmt.Sprintf(`, CASE %s%s END AS %sschema_subject, CASE %s%s END AS %sschema_version`, idCol, subj.String(), prefix, idCol, ver.String(), prefix)
}

// topicLocked returns the entry of e.topics named name. e.mu is held.
func (e *Engine) topicLocked(name string) *Topic {
	for i := range e.topics {
		if e.topics[i].Name == name {
			return &e.topics[i]
		}
	}
	return &Topic{}
}

// topicFilesOf returns the catalog's files of a topic (case-insensitively,
// as DuckDB resolves names).
func (e *Engine) topicFilesOf(name string) (topicFiles, bool) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	for _, tf := range e.files {
		if strings.EqualFold(tf.name, name) {
			return tf, true
		}
	}
	return topicFiles{}, false
}

// unjoin is the errors an errors.Join holds, or err alone.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// afterReadTopic runs between readTopic's read of a topic's manifests and
// its check of their files; a test compacts the topic there.
var afterReadTopic = func(topic string) {}

// readTopic reads topic n's manifests (catalog.ReadTopic) and, in a
// folder, checks the contents of the files they list (checkAllContents):
// a data file of the right size that is not Parquet (garbage, zeroes, a
// footer that does not decode) costs its partition, as one cut short does
// (the catalog checks sizes): DuckDB would fail every query of the topic
// on its footer. A file missing because a compact (--grace 0) removed it
// after committing a manifest that no longer lists it is not damage: the
// topic is read again while the files found missing change.
func (e *Engine) readTopic(ctx context.Context, n string, fc *footerCache) (*catalog.TopicManifests, error) {
	var missing string
	for attempt := 0; ; attempt++ {
		tm, err := e.dir.ReadTopic(ctx, n)
		if err != nil || catalog.IsURL(e.dir.Path) {
			return tm, err
		}
		afterReadTopic(n)
		bad := checkAllContents(e.dir.Path, tm.Manifests, fc)
		for _, me := range bad {
			if me != nil && errors.Is(me, catalog.ErrTooManyFiles) {
				// The process's limit: not a partition to leave out.
				return nil, fmt.Errorf("read topic %s: %w", n, me)
			}
		}
		kept := tm.Manifests[:0]
		for i, m := range tm.Manifests {
			if bad[i] != nil {
				tm.Damaged = append(tm.Damaged, bad[i])
				continue
			}
			kept = append(kept, m)
		}
		tm.Manifests = kept
		sort.Slice(tm.Damaged, func(i, j int) bool { return tm.Damaged[i].TP.Partition < tm.Damaged[j].TP.Partition })
		var now []string
		for _, me := range tm.Damaged {
			if errors.Is(me, os.ErrNotExist) {
				now = append(now, me.Error())
			}
		}
		if len(now) == 0 || strings.Join(now, "\n") == missing || attempt == catalog.MaxRereads {
			return tm, nil
		}
		missing = strings.Join(now, "\n")
	}
}

// keepApart is structure with each object level that holds names differing
// only in case typed as its JSON text (see caseApart), each such level
// named in one warning of the topic.
func (e *Engine) keepApart(topic, structure, names string) string {
	apart, clashes, err := caseApart(structure, names)
	if err != nil {
		return structure // not a structure caseApart reads: none of ours
	}
	if len(clashes) > 0 {
		e.problems = append(e.problems, fmt.Sprintf("topic %s: names that differ only in case, which SQL does not tell apart (%s); each such level is read as VARCHAR, its JSON text: read its fields with ->> (%s->>'NAME')",
			topic, strings.Join(clashes, "; "), strings.SplitN(clashes[0], ":", 2)[0]))
	}
	return apart
}

// maxSchemaProblems bounds the schema ids a topic's warnings name one by one.
const maxSchemaProblems = 5

// schemaIDList names ids ("schema 7", "schemas 7, 9 and 12", "3,000
// schemas: 1, 2, 3, 4, 5 and 2,995 more").
func schemaIDList(ids []int) string {
	names := make([]string, 0, maxSchemaProblems)
	for _, id := range ids[:min(len(ids), maxSchemaProblems)] {
		names = append(names, strconv.Itoa(id))
	}
	switch {
	case len(ids) == 1:
		return "schema " + names[0] + " is"
	case len(ids) <= maxSchemaProblems:
		return "schemas " + strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " are"
	}
	return fmt.Sprintf("%d schemas (%s and %d more) are", len(ids), strings.Join(names, ", "), len(ids)-maxSchemaProblems)
}
