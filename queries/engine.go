package queries

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/topicsnap/topicsnap/catalog"
)

// Options of an engine.
type Options struct {
	// Locked makes the engine safe for untrusted SQL (see package doc).
	Locked bool
	// MemoryLimit is DuckDB's memory_limit, e.g. "1GB"; empty keeps DuckDB's default.
	MemoryLimit string
	// Threads is DuckDB's thread count; 0 keeps DuckDB's default.
	Threads int
	// Timeout bounds each query of a locked engine.
	Timeout time.Duration
	// TempDir is where the engine makes its private spill folder (0700,
	// removed at Close); default the system temp folder.
	TempDir string
	// Lazy builds a topic's views, and a catalog table, when a query first
	// names them, instead of all at Open: for one-shot commands, whose
	// start-up is most of a short query's time. A query the engine cannot
	// read the table names of (not a SELECT, a table function, the
	// information schema, SHOW) builds everything first, and so does one
	// that fails with a catalog error. Topics() lists every topic, but
	// JSON and Structure are only known for built ones.
	Lazy bool
}

// Topic describes one topic's views.
type Topic struct {
	Name       string
	Partitions int
	Files      int
	Records    int64
	JSON       bool   // value is a STRUCT inferred from JSON
	Structure  string // the inferred JSON structure
	// Damaged are the partitions whose manifest could not be read: not in
	// the views, named in Problems.
	Damaged []int32
}

// Engine is an in-memory DuckDB over one snapshot folder.
type Engine struct {
	db   *sql.DB
	dir  *catalog.Dir
	opts Options

	mu       sync.RWMutex
	version  string
	topics   []Topic
	problems []string
	files    []topicFiles               // the catalog as of the last refresh, by topic name
	snaps    []*catalog.ClusterSnapshot // cluster snapshots as of the last refresh
	built    map[string]bool            // lower-case names of the views and tables built
	allBuilt bool
	system   map[string]bool // lower-case names of DuckDB's own tables and views (guard.go)
	tempDir  string          // this engine's private spill folder, removed at Close
}

// ErrRefused marks SQL a locked engine will not run.
var ErrRefused = errors.New("refused")

// Open builds the views over dir. A folder with no snapshots opens to empty
// typed metadata tables.
func Open(ctx context.Context, dir string, opts Options) (*Engine, error) {
	d, err := catalog.Open(dir)
	if err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", dir, err)
	}
	d.Path = abs
	// DuckDB's start (~12 ms) and reading the catalog (manifests, cluster
	// snapshots) need each other only once both are done: overlap them.
	type started struct {
		c   *duckdb.Connector
		err error
	}
	ch := make(chan started, 1)
	go func() {
		c, err := duckdb.NewConnector("", nil)
		ch <- started{c, err}
	}()
	e := &Engine{dir: d, opts: opts, built: map[string]bool{}}
	v, verr := e.catalogVersion()
	var cat *catalogState
	if verr == nil {
		cat, verr = e.readCatalog()
	}
	st := <-ch
	if st.err != nil {
		return nil, fmt.Errorf("open duckdb: %w", st.err)
	}
	db := sql.OpenDB(st.c)
	e.db = db
	if verr != nil {
		e.Close()
		return nil, verr
	}
	if err := e.setup(ctx); err != nil {
		e.Close()
		return nil, err
	}
	e.mu.Lock()
	err = e.apply(ctx, v, cat)
	e.mu.Unlock()
	if err != nil {
		e.Close()
		return nil, err
	}
	if opts.Locked {
		if err := e.lock(ctx); err != nil {
			e.Close()
			return nil, err
		}
	}
	return e, nil
}

func (e *Engine) setup(ctx context.Context) error {
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect duckdb: %w", err)
	}
	defer conn.Close()
	var stmts []string
	if e.opts.MemoryLimit != "" {
		stmts = append(stmts, fmt.Sprintf("SET memory_limit = %s", quoteString(e.opts.MemoryLimit)))
	}
	if e.opts.Threads > 0 {
		stmts = append(stmts, fmt.Sprintf("SET threads = %d", e.opts.Threads))
	}
	// Spill files go to a folder of this engine's own (0700, removed at
	// Close), never one shared by every process on the host.
	tmp, err := os.MkdirTemp(e.opts.TempDir, "topicsnap-duckdb-")
	if err != nil {
		return fmt.Errorf("make a temp folder for duckdb: %w", err)
	}
	e.tempDir = tmp
	stmts = append(stmts, fmt.Sprintf("SET temp_directory = %s", quoteString(tmp)))
	if !e.opts.Lazy {
		// Snapshot files are never rewritten (a new range is a new name), and
		// DuckDB checks a file's modification time before reusing its
		// footer: an engine that runs many queries reads each footer once.
		// A one-shot (lazy) engine reads them at most twice and would pay
		// more to free the cache at close (~5 ms at 206 files) than it saves.
		stmts = append(stmts, "SET parquet_metadata_cache = true")
	}
	for _, s := range stmts {
		if _, err := conn.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("configure duckdb (%s): %w", s, err)
		}
	}
	if e.system, err = systemRelations(ctx, conn); err != nil {
		return err
	}
	return registerFunctions(conn)
}

// DB is the engine's database handle. Pin a *sql.Conn for a session.
func (e *Engine) DB() *sql.DB { return e.db }

// Dir is the snapshot folder.
func (e *Engine) Dir() string { return e.dir.Path }

// Close releases DuckDB.
func (e *Engine) Close() error {
	err := e.db.Close()
	if e.tempDir != "" {
		if rerr := os.RemoveAll(e.tempDir); err == nil && rerr != nil {
			err = fmt.Errorf("remove %s: %w", e.tempDir, rerr)
		}
	}
	return err
}

// Topics lists the topics with views, as of the last refresh.
func (e *Engine) Topics() []Topic {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return append([]Topic(nil), e.topics...)
}

// Topic returns one topic's description.
func (e *Engine) Topic(name string) (Topic, bool) {
	for _, t := range e.Topics() {
		if t.Name == name {
			return t, true
		}
	}
	return Topic{}, false
}

// Problems lists what the last refresh had to skip (a damaged manifest,
// an unreadable snapshot file), each naming the file; empty when all is well.
func (e *Engine) Problems() []string {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return append([]string(nil), e.problems...)
}

// Version identifies the catalog state the views were built from.
func (e *Engine) Version() string {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.version
}

// catalogVersion hashes the size and time of every manifest and snapshot file.
func (e *Engine) catalogVersion() (string, error) {
	h := sha256.New()
	topics, err := e.dir.Topics()
	if err != nil {
		return "", err
	}
	add := func(path string) {
		if st, err := os.Stat(path); err == nil {
			fmt.Fprintf(h, "%s %d %d\n", path, st.Size(), st.ModTime().UnixNano())
		}
	}
	for _, t := range topics {
		parts, _ := filepath.Glob(filepath.Join(e.dir.Path, "topic="+t, "partition=*", "manifest.json"))
		for _, p := range parts {
			add(p)
		}
	}
	snaps, _ := filepath.Glob(filepath.Join(e.dir.Path, "snapshots", "*.json"))
	for _, s := range snaps {
		add(s)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// Refresh rebuilds the views if the catalog changed since the last build,
// and reports whether it did.
func (e *Engine) Refresh(ctx context.Context) (bool, error) {
	v, err := e.catalogVersion()
	if err != nil {
		return false, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if v == e.version && e.version != "" {
		return false, nil
	}
	cat, err := e.readCatalog()
	if err != nil {
		return false, err
	}
	if err := e.apply(ctx, v, cat); err != nil {
		return false, err
	}
	return true, nil
}

type topicFiles struct {
	name      string
	manifests []*catalog.Manifest
	paths     []string
	plain     []bool  // per path: no control markers, no open transactions
	openTxn   bool    // some file holds records of a transaction left open in it
	damaged   []int32 // partitions whose manifest could not be read (left out)
}

// metadataTables are the catalog tables, in the order they are built.
var metadataTables = []string{"files", "lost_ranges", "snapshots", "partitions", "topic_configs", "group_offsets", "group_members"}

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
}

// readCatalog reads the manifests and cluster snapshots. A damaged one is
// skipped and named in problems.
func (e *Engine) readCatalog() (*catalogState, error) {
	names, err := e.dir.Topics()
	if err != nil {
		return nil, err
	}
	var tfs []topicFiles
	var problems []string
	for _, n := range names {
		tm, err := e.dir.ReadTopic(n)
		if err != nil {
			// One unreadable topic must not hide the others: skip it, say why.
			problems = append(problems, fmt.Sprintf("topic %s skipped: %v", n, err))
			continue
		}
		// A damaged partition hides only itself: named in problems, and
		// every check on the topic says it could not judge it.
		var damaged []int32
		for _, me := range tm.Damaged {
			problems = append(problems, fmt.Sprintf("%v; run topicsnap catalog verify", me))
			damaged = append(damaged, me.TP.Partition)
		}
		if len(tm.Manifests) == 0 && len(damaged) > 0 {
			continue
		}
		ms := tm.Manifests
		tf := topicFiles{name: n, manifests: ms, damaged: damaged}
		for _, m := range ms {
			for _, f := range m.Files {
				tf.paths = append(tf.paths, e.dir.FilePath(m.TP(), f.Name))
				tf.plain = append(tf.plain, f.ControlRecords == 0 && f.OpenTxnRecords == 0)
				tf.openTxn = tf.openTxn || f.OpenTxnRecords > 0
			}
		}
		tfs = append(tfs, tf)
	}
	snaps, err := e.dir.ClusterSnapshots()
	if err != nil {
		problems = append(problems, fmt.Sprintf("cluster snapshots skipped: %v", err))
		snaps = nil
	}
	return &catalogState{files: tfs, snaps: snaps, problems: problems}, nil
}

// apply makes cat, read at catalog version v, the engine's catalog: it
// drops what the last build made and, unless the engine is lazy, builds
// every view and table. e.mu is held.
func (e *Engine) apply(ctx context.Context, v string, cat *catalogState) error {
	tfs := cat.files
	topics := make([]Topic, len(tfs))
	for i, tf := range tfs {
		topics[i] = Topic{Name: tf.name, Partitions: len(tf.manifests), Files: len(tf.paths), Damaged: tf.damaged}
		for _, m := range tf.manifests {
			topics[i].Records += m.Records()
		}
	}
	sort.Slice(topics, func(i, j int) bool { return topics[i].Name < topics[j].Name })
	if e.version == "" && e.opts.Lazy {
		// The first catalog of a lazy engine: nothing to drop, nothing to build.
		e.problems, e.files, e.snaps, e.topics, e.version = cat.problems, tfs, cat.snaps, topics, v
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
			if _, err := tx.ExecContext(ctx, "DROP TABLE IF EXISTS memory.main."+quoteIdent(t)); err != nil {
				return fmt.Errorf("drop table %s: %w", t, err)
			}
		}
	}
	restore := e.checkpoint()
	e.problems, e.files, e.snaps, e.topics = cat.problems, tfs, cat.snaps, topics
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
	e.version = v
	return nil
}

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

// checkpoint records the engine's account of its catalog and returns the
// function that puts it back: a build that fails is rolled back in DuckDB,
// and so must be what the engine says was built. e.mu is held.
func (e *Engine) checkpoint() func() {
	problems, files, snaps := e.problems, e.files, e.snaps
	topics := append([]Topic(nil), e.topics...)
	built, allBuilt := maps.Clone(e.built), e.allBuilt
	return func() {
		e.problems, e.files, e.snaps, e.topics = problems, files, snaps, topics
		e.built, e.allBuilt = built, allBuilt
	}
}

// missing reports whether something w names is not built. e.mu is held.
func (e *Engine) missing(w want) bool {
	if e.allBuilt {
		return false
	}
	if w.all {
		return true
	}
	for _, t := range metadataTables {
		if w.names[t] && !e.built[t] {
			return true
		}
	}
	for _, tf := range e.files {
		n := strings.ToLower(tf.name)
		if w.names[n] && !e.built[n] || w.names[n+"$all"] && !e.built[n+"$all"] {
			return true
		}
	}
	return false
}

// buildTx creates, in tx, the catalog tables and topic views w names that
// are not built yet. e.mu is held.
func (e *Engine) buildTx(ctx context.Context, tx *sql.Tx, w want) error {
	tables := map[string]bool{}
	for _, t := range metadataTables {
		if (w.all || w.names[t]) && !e.built[t] {
			tables[t] = true
		}
	}
	if len(tables) > 0 {
		if err := loadMetadata(ctx, tx, e.files, e.snaps, tables); err != nil {
			return err
		}
		for t := range tables {
			e.built[t] = true
		}
	}
	for _, tf := range e.files {
		n := strings.ToLower(tf.name)
		needData := (w.all || w.names[n]) && !e.built[n]
		needAll := (w.all || w.names[n+"$all"]) && !e.built[n+"$all"]
		if !needData && !needAll {
			continue
		}
		t := e.topicLocked(tf.name)
		// The value type is inferred when the first of the two views is built.
		if !e.built[n] && !e.built[n+"$all"] && len(tf.paths) > 0 {
			var err error
			t.Structure, t.JSON, err = inferJSONCached(ctx, tx, tf.paths)
			if err != nil {
				return fmt.Errorf("infer the value type of %s: %w", tf.name, err)
			}
		}
		value := `"value"`
		if t.JSON {
			value = jsonValue(tf.name, t.Structure)
		}
		all, data := topicSelects(tf.paths, tf.plain, value, tf.openTxn)
		var ddl []string
		if needAll {
			ddl = append(ddl, fmt.Sprintf("CREATE OR REPLACE VIEW %s AS %s", quoteIdent(tf.name+"$all"), all))
			e.built[n+"$all"] = true
		}
		if needData {
			ddl = append(ddl, fmt.Sprintf("CREATE OR REPLACE VIEW %s AS %s", quoteIdent(tf.name), data))
			e.built[n] = true
		}
		for _, q := range ddl {
			if _, err := tx.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("create views of %s: %w", tf.name, err)
			}
		}
	}
	if w.all {
		e.allBuilt = true
	}
	return nil
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

// rawColumns is the typed projection of the stored columns, shared by the
// populated and the empty view.
const rawColumns = `"partition", "offset", "timestamp"::TIMESTAMPTZ AS "timestamp", timestamp_type,
  try(decode("key")) AS "key", "key" AS key_raw, %s AS "value", "value" AS value_raw,
  headers, leader_epoch, producer_id, producer_epoch, is_transactional, is_control,
  control_type, %s AS txn_state, coalesce(%s = 'aborted', false) AS aborted, schema_id`

const emptyRaw = `SELECT NULL::INTEGER AS "partition", NULL::BIGINT AS "offset", NULL::TIMESTAMP AS "timestamp",
  NULL::VARCHAR AS timestamp_type, NULL::BLOB AS "key", NULL::BLOB AS "value",
  NULL::STRUCT("key" VARCHAR, "value" BLOB)[] AS headers, NULL::INTEGER AS leader_epoch, NULL::BIGINT AS producer_id,
  NULL::INTEGER AS producer_epoch, NULL::BOOLEAN AS is_transactional, NULL::BOOLEAN AS is_control,
  NULL::VARCHAR AS control_type, NULL::VARCHAR AS txn_state, NULL::INTEGER AS schema_id WHERE false`

// openResolved is the txn_state of a row whose transaction's marker was not
// in its file: the next marker of the same producer on the same partition
// decides it (found with an ASOF join); with none yet it stays "open".
const openResolved = `CASE WHEN s.txn_state = 'open' AND m.control_type IS NOT NULL
  THEN CASE m.control_type WHEN 'commit' THEN 'committed' ELSE 'aborted' END ELSE s.txn_state END`

// jsonValue is the value expression of a JSON topic's views: its values
// parsed into the inferred structure, unless a query narrowed it to the
// fields it reads (see narrow.go).
func jsonValue(name, structure string) string {
	return fmt.Sprintf(`try(from_json(decode("value"), coalesce(getvariable(%s), %s)))`,
		quoteString(valueVariable(name)), quoteString(structure))
}

// topicSelects returns the SELECTs of the views "T$all" (every stored row)
// and "T" (committed data records), with value as the value column. A file
// without control markers and without open transactions (the manifest
// counts both) can hold neither markers nor aborted records, so "T" reads
// such files without the filter (and without reading is_control and
// txn_state); only the other files are filtered.
func topicSelects(paths []string, plain []bool, value string, openTxn bool) (all, data string) {
	all = allSelect(paths, value, openTxn)
	var clean, other []string
	for i, p := range paths {
		if plain[i] {
			clean = append(clean, p)
		} else {
			other = append(other, p)
		}
	}
	const sel = `SELECT * EXCLUDE (is_control, control_type, aborted) FROM (%s)`
	var parts []string
	if len(clean) > 0 {
		parts = append(parts, fmt.Sprintf(sel, allSelect(clean, value, false)))
	}
	if len(other) > 0 || len(clean) == 0 {
		parts = append(parts, fmt.Sprintf(sel+` WHERE NOT is_control AND NOT aborted`, allSelect(other, value, openTxn)))
	}
	return all, strings.Join(parts, "\nUNION ALL\n")
}

// allSelect is the SELECT of every stored row of the files, typed, with
// transactions left open in their file resolved from later markers.
func allSelect(paths []string, value string, openTxn bool) string {
	src := "(" + emptyRaw + ")"
	if len(paths) > 0 {
		q := make([]string, len(paths))
		for i, p := range paths {
			q[i] = quoteString(p)
		}
		src = "read_parquet([" + strings.Join(q, ", ") + "])"
	}
	if openTxn {
		cols := strings.NewReplacer(`"partition", "offset"`, `s."partition", s."offset"`).Replace(rawColumns)
		return fmt.Sprintf(`WITH s AS (SELECT * FROM %s),
  m AS (SELECT "partition", producer_id, "offset", control_type FROM s WHERE is_control)
SELECT `+qualify(cols)+` FROM s ASOF LEFT JOIN m ON s."partition" = m."partition" AND s.producer_id = m.producer_id AND s."offset" < m."offset"`,
			src, value, openResolved, openResolved)
	}
	return fmt.Sprintf("SELECT "+rawColumns+" FROM %s", value, "txn_state", "txn_state", src)
}

// qualify prefixes the columns the stored rows share with the markers
// (producer_id, control_type) with the rows' alias s; the others are
// unambiguous.
func qualify(cols string) string {
	for _, c := range []string{"producer_id,", "control_type,"} {
		cols = strings.Replace(cols, c, "s."+c, 1)
	}
	return cols
}

// inferJSON samples values from the first and last files and decides
// whether the topic's values are JSON objects; if so it returns DuckDB's
// merged structure of the sample.
func inferJSON(ctx context.Context, tx *sql.Tx, paths []string) (string, bool, error) {
	var sample []string
	for _, p := range sampleFiles(paths) {
		sample = append(sample, quoteString(p))
	}
	q := fmt.Sprintf(`WITH s AS (SELECT try(decode("value")) AS v FROM read_parquet([%s]) WHERE NOT is_control AND "value" IS NOT NULL LIMIT 5000)
SELECT count(*) AS n,
       count(*) FILTER (WHERE json_valid(v) AND starts_with(ltrim(v), '{')) AS objects,
       json_group_structure(CASE WHEN json_valid(v) AND starts_with(ltrim(v), '{') THEN v::JSON END)::VARCHAR AS structure
FROM s`, strings.Join(sample, ", "))
	var n, objects int64
	var structure sql.NullString
	if err := tx.QueryRowContext(ctx, q).Scan(&n, &objects, &structure); err != nil {
		return "", false, err
	}
	if n == 0 || objects*10 < n*9 || !structure.Valid {
		return "", false, nil
	}
	return structure.String, true, nil
}

type jsonRows struct {
	table   string
	columns []string // "name TYPE", in order
	rows    any
}

// loadMetadata creates and fills the catalog tables named in only. Each
// table is loaded with one statement from a bound JSON document.
func loadMetadata(ctx context.Context, tx *sql.Tx, tfs []topicFiles, snaps []*catalog.ClusterSnapshot, only map[string]bool) error {
	type fileRow struct {
		Topic          string `json:"topic"`
		Partition      int32  `json:"partition"`
		File           string `json:"file"`
		Path           string `json:"path"`
		FirstOffset    int64  `json:"first_offset"`
		LastOffset     int64  `json:"last_offset"`
		Records        int64  `json:"records"`
		ControlRecords int64  `json:"control_records"`
		Bytes          int64  `json:"bytes"`
		MinTimestamp   int64  `json:"min_timestamp_ms"`
		MaxTimestamp   int64  `json:"max_timestamp_ms"`
		Snapshot       string `json:"snapshot_id"`
		WrittenAt      string `json:"written_at"`
	}
	type lostRow struct {
		Topic      string `json:"topic"`
		Partition  int32  `json:"partition"`
		Kind       string `json:"kind"`
		From       int64  `json:"from_offset"`
		To         int64  `json:"to_offset"`
		Offsets    int64  `json:"offsets"`
		DetectedAt string `json:"detected_at"`
		Snapshot   string `json:"snapshot_id"`
	}
	type snapRow struct {
		Snapshot          string  `json:"snapshot_id"`
		Topic             string  `json:"topic"`
		AsOf              string  `json:"as_of"`
		PartitionCount    int     `json:"partition_count"`
		ReplicationFactor int     `json:"replication_factor"`
		Dumped            []int32 `json:"dumped_partitions"`
		GroupsError       string  `json:"groups_error"`
		ConfigsError      string  `json:"configs_error"`
	}
	type partRow struct {
		Snapshot      string  `json:"snapshot_id"`
		Topic         string  `json:"topic"`
		AsOf          string  `json:"as_of"`
		Partition     int32   `json:"partition"`
		LogStart      int64   `json:"log_start_offset"`
		HighWatermark int64   `json:"high_watermark"`
		LastStable    int64   `json:"last_stable_offset"`
		Leader        int32   `json:"leader"`
		LeaderEpoch   int32   `json:"leader_epoch"`
		Replicas      []int32 `json:"replicas"`
		ISR           []int32 `json:"isr"`
	}
	type cfgRow struct {
		Snapshot string `json:"snapshot_id"`
		Topic    string `json:"topic"`
		AsOf     string `json:"as_of"`
		Name     string `json:"name"`
		Value    string `json:"value"`
	}
	type offRow struct {
		Snapshot    string `json:"snapshot_id"`
		Topic       string `json:"topic"`
		AsOf        string `json:"as_of"`
		Group       string `json:"group_id"`
		State       string `json:"state"`
		Partition   int32  `json:"partition"`
		Offset      int64  `json:"committed_offset"`
		LeaderEpoch int32  `json:"leader_epoch"`
		Metadata    string `json:"metadata"`
	}
	type memRow struct {
		Snapshot   string  `json:"snapshot_id"`
		Topic      string  `json:"topic"`
		AsOf       string  `json:"as_of"`
		Group      string  `json:"group_id"`
		State      string  `json:"state"`
		MemberID   string  `json:"member_id"`
		InstanceID string  `json:"instance_id"`
		ClientID   string  `json:"client_id"`
		Host       string  `json:"host"`
		Assigned   []int32 `json:"assigned_partitions"`
	}
	ts := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
	files, lost := []fileRow{}, []lostRow{}
	for _, tf := range tfs {
		for _, m := range tf.manifests {
			for _, f := range m.Files {
				files = append(files, fileRow{m.Topic, m.Partition, f.Name, filepath.Join("topic="+m.Topic, fmt.Sprintf("partition=%d", m.Partition), f.Name),
					f.FirstOffset, f.LastOffset, f.Records, f.ControlRecords, f.Bytes, f.MinTimestamp, f.MaxTimestamp, f.Snapshot, ts(f.WrittenAt)})
			}
			for _, l := range m.Lost {
				lost = append(lost, lostRow{m.Topic, m.Partition, l.Kind, l.From, l.To, l.To - l.From + 1, ts(l.DetectedAt), l.Snapshot})
			}
		}
	}
	sn, parts, cfgs, offs, mems := []snapRow{}, []partRow{}, []cfgRow{}, []offRow{}, []memRow{}
	for _, s := range snaps {
		asOf := ts(s.AsOf)
		sn = append(sn, snapRow{s.ID, s.Topic, asOf, s.PartitionCount, s.ReplicationFactor, s.Dumped, s.GroupsError, s.ConfigsError})
		for _, p := range s.Partitions {
			parts = append(parts, partRow{s.ID, s.Topic, asOf, p.Partition, p.LogStart, p.HighWatermark, p.LastStable, p.Leader, p.LeaderEpoch, p.Replicas, p.ISR})
		}
		keys := make([]string, 0, len(s.Configs))
		for k := range s.Configs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			cfgs = append(cfgs, cfgRow{s.ID, s.Topic, asOf, k, s.Configs[k]})
		}
		cfgs = append(cfgs, cfgRow{s.ID, s.Topic, asOf, "partition.count", fmt.Sprint(s.PartitionCount)},
			cfgRow{s.ID, s.Topic, asOf, "replication.factor", fmt.Sprint(s.ReplicationFactor)})
		for _, g := range s.Groups {
			for _, o := range g.Offsets {
				offs = append(offs, offRow{s.ID, s.Topic, asOf, g.Group, g.State, o.Partition, o.Offset, o.LeaderEpoch, o.Metadata})
			}
			for _, m := range g.Members {
				mems = append(mems, memRow{s.ID, s.Topic, asOf, g.Group, g.State, m.MemberID, m.InstanceID, m.ClientID, m.Host, m.Assigned})
			}
		}
	}
	tables := []jsonRows{
		{"files", []string{"topic VARCHAR", "partition INTEGER", "file VARCHAR", "path VARCHAR", "first_offset BIGINT", "last_offset BIGINT", "records BIGINT", "control_records BIGINT", "bytes BIGINT", "min_timestamp_ms BIGINT", "max_timestamp_ms BIGINT", "snapshot_id VARCHAR", "written_at TIMESTAMPTZ"}, files},
		{"lost_ranges", []string{"topic VARCHAR", "partition INTEGER", "kind VARCHAR", "from_offset BIGINT", "to_offset BIGINT", "offsets BIGINT", "detected_at TIMESTAMPTZ", "snapshot_id VARCHAR"}, lost},
		{"snapshots", []string{"snapshot_id VARCHAR", "topic VARCHAR", "as_of TIMESTAMPTZ", "partition_count INTEGER", "replication_factor INTEGER", "dumped_partitions INTEGER[]",
			"groups_error VARCHAR", "configs_error VARCHAR"}, sn},
		{"partitions", []string{"snapshot_id VARCHAR", "topic VARCHAR", "as_of TIMESTAMPTZ", "partition INTEGER", "log_start_offset BIGINT", "high_watermark BIGINT", "last_stable_offset BIGINT", "leader INTEGER", "leader_epoch INTEGER", "replicas INTEGER[]", "isr INTEGER[]"}, parts},
		{"topic_configs", []string{"snapshot_id VARCHAR", "topic VARCHAR", "as_of TIMESTAMPTZ", "name VARCHAR", "value VARCHAR"}, cfgs},
		{"group_offsets", []string{"snapshot_id VARCHAR", "topic VARCHAR", "as_of TIMESTAMPTZ", "group_id VARCHAR", "state VARCHAR", "partition INTEGER", "committed_offset BIGINT", "leader_epoch INTEGER", "metadata VARCHAR"}, offs},
		{"group_members", []string{"snapshot_id VARCHAR", "topic VARCHAR", "as_of TIMESTAMPTZ", "group_id VARCHAR", "state VARCHAR", "member_id VARCHAR", "instance_id VARCHAR", "client_id VARCHAR", "host VARCHAR", "assigned_partitions INTEGER[]"}, mems},
	}
	for _, t := range tables {
		if !only[t.table] {
			continue
		}
		b, err := json.Marshal(t.rows)
		if err != nil {
			return fmt.Errorf("encode %s: %w", t.table, err)
		}
		var defs, names, structure []string
		for _, c := range t.columns {
			name, typ, _ := strings.Cut(c, " ")
			defs = append(defs, quoteIdent(name)+" "+typ)
			names = append(names, quoteIdent(name))
			structure = append(structure, fmt.Sprintf("%q:%q", name, typ))
		}
		ddl := fmt.Sprintf("CREATE OR REPLACE TABLE %s (%s)", quoteIdent(t.table), strings.Join(defs, ", "))
		if _, err := tx.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("create table %s: %w", t.table, err)
		}
		ins := fmt.Sprintf("INSERT INTO %s SELECT %s FROM (SELECT unnest(from_json(?::JSON, %s), recursive := true))",
			quoteIdent(t.table), strings.Join(names, ", "), quoteString("[{"+strings.Join(structure, ",")+"}]"))
		if _, err := tx.ExecContext(ctx, ins, string(b)); err != nil {
			return fmt.Errorf("load table %s: %w", t.table, err)
		}
	}
	return nil
}

// quoteIdent quotes a SQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// quoteString quotes a SQL string literal.
func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// QuoteIdent is exported for packages that build SQL over topic names.
func QuoteIdent(s string) string { return quoteIdent(s) }

// QuoteString quotes s as a SQL string literal: 's', with ' doubled.
func QuoteString(s string) string { return quoteString(s) }
