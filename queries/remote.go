package queries

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/template"

	"github.com/topicsnap/topicsnap/catalog"

	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/internal/jsonbound"
	"github.com/topicsnap/topicsnap/internal/jsonfit"
	"github.com/topicsnap/topicsnap/internal/sqllex"
)

// A Remote is another SQL engine the checks' statements run on, the
// engine's DuckDB keeping the catalog and judging user expressions (Expr)
// as always: Apache Spark through Spark Connect (package queries/spark).
// The remote sees the same records: its views are built here from the
// same manifests as DuckDB's (committed files only, each named, markers
// and aborted records apart), and its catalog tables from the same rows.
type Remote interface {
	// Dialect names the engine ("spark"): the SQL files NAME.DIALECT.sql
	// are its variants of NAME.sql.
	Dialect() string
	// Exec runs a statement that returns no rows.
	Exec(ctx context.Context, stmt string) error
	// Query runs a SELECT; values come as DuckDB's driver gives them.
	Query(ctx context.Context, stmt string) (cols []string, rows [][]any, err error)
	// Literal renders a value as the dialect's literal, needing no escaping.
	Literal(v any) (string, error)
	Close() error
}

// ErrNotOnEngine marks a check that has no statement for the engine it was
// asked to run on: it says so rather than give an answer it cannot stand by.
var ErrNotOnEngine = exit.New(exit.Error, "not available on this engine", "run the check on DuckDB (without --engine spark)")

// NotOnEngineError is a check (or an option of one) that cannot run on
// the remote engine, or a topic it cannot read (Topic, no Check), and why.
type NotOnEngineError struct {
	Check, Topic, Engine, Why string
}

func (e *NotOnEngineError) Error() string {
	if e.Check == "" {
		return fmt.Sprintf("topic %s cannot be read on %s: %s (query it without --engine %s, on DuckDB)", e.Topic, e.Engine, e.Why, e.Engine)
	}
	return fmt.Sprintf("check %s is not available on %s: %s (run it without --engine %s, on DuckDB)", e.Check, e.Engine, e.Why, e.Engine)
}

// remoteText is a Spark expression of DuckDB's text of expr (Expr's
// rendering over topic's view; expr::VARCHAR), by DuckDB's type of it:
// Spark's CAST AS STRING writes a BLOB, a TIMESTAMPTZ and a DOUBLE
// otherwise (two U+FFFD for \xFF\xFE, no +00, 1.2345678E7 for
// 12345678.0), so a check that matches or hashes the text (missing's
// --match, skew's what-if key) matched or hashed other texts. A DOUBLE or
// FLOAT and a nested value (STRUCT, LIST, MAP), whose text Spark does not
// write as DuckDB does, are refused.
func (e *Engine) remoteText(ctx context.Context, check, option, expr, topic string) (string, error) {
	typ, err := e.exprType(ctx, expr, topic)
	if err != nil {
		return "", err
	}
	x := "(" + expr + ")"
	switch {
	case nestedType(typ):
		return "", &NotOnEngineError{Check: check, Engine: e.EngineName(), Why: fmt.Sprintf(
			"--%s of type %s is read as DuckDB's text of it, which Spark does not write; give a field of it (e.g. value.id)", strings.ReplaceAll(option, "_", "-"), typ)}
	case typ == "BLOB":
		return "tsnap_blob_text" + x, nil
	case typ == "TIMESTAMPTZ":
		return "concat(CAST(" + x + " AS STRING), '+00')", nil
	case typ == "DOUBLE" || typ == "FLOAT":
		// Java's digits written again in SQL (1.2345678E7 as 12345678.0)
		// made a what-if plan that took a 1 GiB server down: refused.
		return "", &NotOnEngineError{Check: check, Engine: e.EngineName(), Why: fmt.Sprintf(
			"--%s of type %s is read as DuckDB's text of it (12345678.0, 1e+16), which Spark writes otherwise (1.2345678E7, 1.0E16)", strings.ReplaceAll(option, "_", "-"), typ)}
	}
	return "CAST(" + x + " AS STRING)", nil
}

// encodedNotOnRemote is why a remote cannot read a topic of
// schema-encoded values or keys ("" when it can): its views read a JSON
// topic's value bytes and nothing the dump decoded, so an Avro topic's
// values were "not JSON" there (check values: 6 of 6 values do not
// decode, where DuckDB said every value decodes).
func encodedNotOnRemote(t Topic) string {
	what := ""
	switch {
	case t.Encoded && t.KeyEncoded:
		what = "values and keys"
	case t.Encoded:
		what = "values"
	case t.KeyEncoded:
		what = "keys"
	default:
		return ""
	}
	formats := ""
	if len(t.Formats) > 0 {
		formats = " (" + strings.Join(t.Formats, ", ") + ")"
	}
	return fmt.Sprintf("its %s are schema-encoded%s, which only DuckDB's views decode", what, formats)
}

// Is makes errors.Is(err, ErrNotOnEngine) true.
func (e *NotOnEngineError) Is(target error) bool { return target == ErrNotOnEngine }

// ExitCode is ErrNotOnEngine's.
func (e *NotOnEngineError) ExitCode() exit.Code { return ErrNotOnEngine.ExitCode() }

// Hint is ErrNotOnEngine's.
func (e *NotOnEngineError) Hint() string { return ErrNotOnEngine.Hint() }

//go:embed sql/engine/*.sql
var engineSQL embed.FS

// Engine names the engine the checks' statements run on: "duckdb", or the
// remote's dialect.
func (e *Engine) EngineName() string {
	if e.opts.Remote != nil {
		return e.opts.Remote.Dialect()
	}
	return "duckdb"
}

// dialectTemplates are each dialect's checks' SQL: NAME.DIALECT.sql where
// the check keeps a variant beside NAME.sql, NAME.sql otherwise, with the
// positional parameters $N rendered as literals ({{index .Args N-1}}).
var dialectTemplates = map[string]*templateCache{"spark": newTemplateCache(func(name string) (string, error) { return dialectText("spark", name) })}

var paramRE = regexp.MustCompile(`\$([0-9]+)`)

// typeRE finds the DuckDB type names of a shared file that a dialect
// spells otherwise (dialectTypes).
var typeRE = regexp.MustCompile(`\b(VARCHAR|TIMESTAMPTZ)\b`)

var dialectTypes = map[string]map[string]string{"spark": {"VARCHAR": "STRING", "TIMESTAMPTZ": "TIMESTAMP"}}

// dialectText is the text of statement name (NAME.sql) in dialect: its
// NAME.DIALECT.sql variant, or NAME.sql with DuckDB's type names the
// dialect's; its parameters as {{index .Args N-1}}.
func dialectText(dialect, name string) (string, error) {
	if strings.Count(name, ".") > 1 {
		return "", fs.ErrNotExist // a variant is read through its NAME.sql
	}
	src := "sql/" + name
	if v := "sql/" + strings.TrimSuffix(name, ".sql") + "." + dialect + ".sql"; fileExists(v) {
		src = v
	}
	b, err := sqlFS.ReadFile(src)
	if err != nil {
		return "", err
	}
	text := stripComments(string(b))
	if src == "sql/"+name {
		// A file both engines read: DuckDB's type names are Spark's.
		text = typeRE.ReplaceAllStringFunc(text, func(m string) string { return dialectTypes[dialect][m] })
	}
	// Only the file's own text is rewritten, before any value is in it.
	return paramRE.ReplaceAllStringFunc(text, func(m string) string {
		var n int
		fmt.Sscan(m[1:], &n)
		return fmt.Sprintf("{{index .Args %d}}", n-1)
	}), nil
}

func fileExists(name string) bool {
	_, err := sqlFS.Open(name)
	return err == nil
}

// runRemote renders a check's statement in the remote's dialect, with its
// arguments as literals, and runs it there. d.Committed is rendered from
// the cuts the remote's tables hold, and the statement runs only on the
// views of that catalog version: when a dump commits in between (the views
// are built again), it is rendered again; after three tries it runs
// without that predicate (TRUE: every record), slower, never different.
func (e *Engine) runRemote(ctx context.Context, name string, d sqlData, args []any) ([]Row, error) {
	r := e.opts.Remote
	c := dialectTemplates[r.Dialect()]
	var t *template.Template
	if c != nil {
		t = c.lookup(name + ".sql")
	}
	if t == nil {
		return nil, fmt.Errorf("render %s: no %s statement", name, r.Dialect())
	}
	if schema := viewSchemas[r.Dialect()]; schema != "" {
		d = d.in(schema)
	}
	for _, a := range args {
		lit, err := r.Literal(a)
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", name, err)
		}
		d.Args = append(d.Args, lit)
	}
	for try := 0; ; try++ {
		// What the statement reads depends on the cuts (the committed
		// records' files), so it is rendered from the remote's version,
		// then what it names is built at that version.
		if err := e.ensureRemote(ctx, want{names: map[string]bool{}}); err != nil {
			return nil, err
		}
		e.remoteMu.Lock()
		version, snaps, files := e.remoteVersion, e.remoteSnaps, e.remoteFiles
		e.remoteMu.Unlock()
		pin := version
		bounded := try < 3
		if !bounded {
			pin = ""
		}
		rel, err := e.remoteCommittedRecords(files, snaps, d.Topic, d.All, bounded)
		if err != nil {
			return nil, fmt.Errorf("render %s: %w", name, err)
		}
		d.CommittedRecords = rel
		var b strings.Builder
		if err := t.Execute(&b, d); err != nil {
			return nil, fmt.Errorf("render %s: %w", name, err)
		}
		rows, err := e.queryRemoteAt(ctx, b.String(), pin)
		if errors.Is(err, errRemoteMoved) {
			continue
		}
		return rows, err
	}
}

// errRemoteMoved: the remote's views were built again (from a newer
// catalog version) after a statement was rendered from the older one.
var errRemoteMoved = errors.New("the remote's views moved to a newer catalog version")

// maxCommittedOffsets bounds the offsets remoteCommittedRecords lists;
// past it the relation is the topic's whole view (an IN list of thousands
// of values costs Spark more to plan than it saves).
const maxCommittedOffsets = 5000

// committedOffsets are the offsets a group committed on topic in any of
// snaps, by partition, and how many there are in all; nil past
// maxCommittedOffsets.
func committedOffsets(snaps []*catalog.ClusterSnapshot, topic string) (map[int32]map[int64]bool, bool) {
	byPart, n := map[int32]map[int64]bool{}, 0
	for _, s := range snaps {
		if s.Topic != topic {
			continue
		}
		for _, g := range s.Groups {
			for _, o := range g.Offsets {
				if o.NoOffset() {
					continue
				}
				offs := byPart[o.Partition]
				if offs == nil {
					offs = map[int64]bool{}
					byPart[o.Partition] = offs
				}
				if !offs[o.Offset] {
					offs[o.Offset] = true
					n++
				}
				if n > maxCommittedOffsets {
					return nil, false
				}
			}
		}
	}
	return byPart, true
}

// remoteCommittedRecords is a relation (Spark SQL) with the columns
// "partition", "offset" and "timestamp" of topic's records, holding at
// least every record at an offset a group committed on topic in any of
// snaps: lag.spark.sql joins the committed offsets to it for their times.
// It reads only the data files (of files, the remote's catalog version)
// whose offsets hold a committed one, each filtered to those offsets, so
// a lag on Spark reads a file a partition, not the topic (its whole view
// read 5M records in 2.6 s, its view filtered by the offsets 30 files in
// ~1.4 s, these 6 files in well under a second). The join decides what
// matches; the relation only leaves out records no committed offset could
// match, so the answer is the same. Past maxCommittedOffsets, or when not
// bounded (a statement rendered again after the views moved three times),
// it is the topic's view all.
func (e *Engine) remoteCommittedRecords(files []topicFiles, snaps []*catalog.ClusterSnapshot, topic, all string, bounded bool) (string, error) {
	whole := `(SELECT "partition", "offset", "timestamp" FROM ` + all + `)`
	if topic == "" || !bounded {
		return whole, nil
	}
	byPart, ok := committedOffsets(snaps, topic)
	if !ok {
		return whole, nil
	}
	var tf *topicFiles
	for i := range files {
		if files[i].name == topic && files[i].apart == "" {
			tf = &files[i]
		}
	}
	var paths []string
	if tf != nil {
		for _, m := range tf.manifests {
			offs := byPart[m.Partition]
			for _, f := range m.Files {
				for o := range offs {
					if o >= f.FirstOffset && o <= f.LastOffset {
						paths = append(paths, e.dir.FilePath(m.TP(), f.Name))
						break
					}
				}
			}
		}
	}
	if len(paths) == 0 {
		return `(SELECT CAST(NULL AS INT) AS "partition", CAST(NULL AS BIGINT) AS "offset", CAST(NULL AS TIMESTAMP) AS "timestamp" WHERE FALSE)`, nil
	}
	root := e.remoteRoot()
	if strings.ContainsAny(root, sparkGlobChars) {
		return "", fmt.Errorf("the snapshot's location %s has one of %s in its path, which Spark would read as a pattern: move or link it to a plain path", root, sparkGlobChars)
	}
	if root != e.dir.Path {
		var err error
		if paths, err = rebase(e.dir.Path, root, paths); err != nil {
			return "", err
		}
	}
	var parts []string
	for _, p := range paths {
		if strings.ContainsAny(p[strings.LastIndex(p, "/")+1:], sparkGlobChars+",") {
			return "", fmt.Errorf("the file %s has a name Spark would read as a pattern", p)
		}
		parts = append(parts, `SELECT "partition", "offset", CAST("timestamp" AS TIMESTAMP) AS "timestamp" FROM parquet.`+"`"+p+"`")
	}
	return "(SELECT * FROM (" + strings.Join(parts, "\nUNION ALL\n") + ") WHERE " + committedPredicate(byPart) + ")", nil
}

// committedPredicate is a predicate over records (Spark SQL) that holds
// at the offsets of byPart: ("partition" = P AND "offset" IN (...)) OR
// ..., pushed by Spark to each Parquet file's row groups (their min and
// max statistics); FALSE when byPart is empty.
func committedPredicate(byPart map[int32]map[int64]bool) string {
	if len(byPart) == 0 {
		return "FALSE"
	}
	var b strings.Builder
	for i, p := range slices.Sorted(maps.Keys(byPart)) {
		if i > 0 {
			b.WriteString(" OR ")
		}
		b.WriteString(`("partition" = `)
		b.WriteString(strconv.FormatInt(int64(p), 10))
		b.WriteString(` AND "offset" IN (`)
		for j, o := range slices.Sorted(maps.Keys(byPart[p])) {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.FormatInt(o, 10))
		}
		b.WriteString("))")
	}
	return b.String()
}

// queryRemote runs a statement on the remote, what it names built first.
func (e *Engine) queryRemote(ctx context.Context, q string) ([]Row, error) {
	return e.queryRemoteAt(ctx, q, "")
}

// queryRemoteAt is queryRemote, refused with errRemoteMoved when version is
// set and the views are built from another.
func (e *Engine) queryRemoteAt(ctx context.Context, q, version string) ([]Row, error) {
	if err := e.ensureRemote(ctx, remoteWant(q)); err != nil {
		return nil, err
	}
	if version != "" {
		e.remoteMu.Lock()
		moved := e.remoteVersion != version
		e.remoteMu.Unlock()
		if moved {
			return nil, errRemoteMoved
		}
	}
	cols, vals, err := e.opts.Remote.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]Row, 0, len(vals))
	for _, v := range vals {
		r := NewRow()
		for i, c := range cols {
			r.Set(c, v[i])
		}
		out = append(out, *r)
	}
	return out, nil
}

// remoteWord is a word of SQL code that may name a table or a function;
// remoteBackticked an identifier in Spark's backticks, or a data file's
// path after parquet. (which names no table).
var (
	remoteWord       = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_$]*`)
	remoteBackticked = regexp.MustCompile("(?i)(parquet\\.)?`((?:[^`]|``)*)`")
)

// remoteWant is what a statement of topicsnap's own for the remote (a
// check's, rendered) needs built there: every word of its code and every
// quoted identifier (sqllex; Spark's backticks too, but not a data file's
// path), lower-case, taken as a name it may read. A
// name that is neither a topic's view, a catalog table nor a function (a
// column, a CTE, a keyword) builds nothing, and a word taken for a table
// it is not builds one more table, never fewer. Text the lexer cannot read
// builds everything. A user's statement is judged by DuckDB's parser
// instead (QueryRemote, wantOf).
func remoteWant(q string) want {
	toks, err := sqllex.Tokens(q)
	if err != nil {
		return want{all: true}
	}
	w := want{names: map[string]bool{}}
	for _, t := range toks {
		switch t.Kind {
		case sqllex.Code:
			code := remoteBackticked.ReplaceAllStringFunc(t.Text, func(q string) string {
				if m := remoteBackticked.FindStringSubmatch(q); m[1] == "" {
					w.names[strings.ToLower(strings.ReplaceAll(m[2], "``", "`"))] = true
				}
				return " "
			})
			for _, m := range remoteWord.FindAllString(code, -1) {
				w.names[strings.ToLower(m)] = true
			}
		case sqllex.QuotedIdent:
			w.names[strings.ToLower(strings.ReplaceAll(t.Text[1:len(t.Text)-1], `""`, `"`))] = true
		}
	}
	return w
}

// remoteDepends are the remote's views that read another by name: building
// the first builds the second.
var remoteDepends = map[string]string{"group_history": "group_history_cuts"}

// remoteFunctionRE names the function a statement of the remote's script
// makes.
var remoteFunctionRE = regexp.MustCompile(`(?i)^\s*CREATE OR REPLACE TEMPORARY FUNCTION ([A-Za-z_][A-Za-z0-9_]*)`)

// ensureRemoteFunctions makes in the remote's session the functions of its
// script (sql/engine/DIALECT_functions.sql) that names holds (every one
// when names is nil) and those they call, in the script's order, each once
// a session: lag needs epoch alone, and a function costs a round trip
// (10-120 ms).
func (e *Engine) ensureRemoteFunctions(ctx context.Context, names map[string]bool) error {
	r := e.opts.Remote
	script := "sql/engine/" + r.Dialect() + "_functions.sql"
	fns, err := remoteFunctions(script)
	if err != nil {
		return fmt.Errorf("run %s on %s: %w", script, r.Dialect(), err)
	}
	want := map[string]bool{}
	for i := len(fns) - 1; i >= 0; i-- {
		// A function calls only those made before it: walking back, each
		// wanted one's words add the ones it calls.
		f := fns[i]
		if names != nil && !names[f.name] && !want[f.name] {
			continue
		}
		want[f.name] = true
		for _, w := range remoteWord.FindAllString(f.stmt, -1) {
			want[strings.ToLower(w)] = true
		}
	}
	if e.remoteFuncs == nil {
		e.remoteFuncs = map[string]bool{}
	}
	for _, f := range fns {
		if !want[f.name] || e.remoteFuncs[f.name] {
			continue
		}
		if err := r.Exec(ctx, f.stmt); err != nil {
			return fmt.Errorf("run %s (%s) on %s: %w", script, f.name, r.Dialect(), err)
		}
		e.remoteFuncs[f.name] = true
	}
	return nil
}

// ensureRemote builds on the remote what w names, from the catalog version
// the engine holds: its functions (ensureRemoteFunctions, once a session),
// catalog tables and topic views, each once per version. A
// check on Spark pays for the tables and views it reads, not for every
// one of the folder's (a Spark session's views cost 20-450 ms each).
// Views of an older version may stay in the session; no statement reads
// one, since what a statement names is built before it runs.
func (e *Engine) ensureRemote(ctx context.Context, w want) error {
	e.remoteMu.Lock()
	defer e.remoteMu.Unlock()
	// The DuckDB views give each topic its value type (inferred once).
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("connect duckdb: %w", err)
	}
	err = e.ensure(ctx, conn, w)
	conn.Close()
	if err != nil {
		return err
	}
	e.mu.RLock()
	version, files, snaps, topics := e.version, e.files, e.snaps, append([]Topic(nil), e.topics...)
	e.mu.RUnlock()
	if e.remoteVersion != version || version == "" {
		e.remoteBuilt = map[string]bool{}
	}
	e.remoteVersion, e.remoteSnaps, e.remoteFiles = version, snaps, files
	names := w.names
	if w.all {
		names = nil
	}
	wanted := func(name string) bool {
		n := strings.ToLower(name)
		if e.remoteBuilt[n] {
			return false
		}
		if names == nil || names[n] {
			return true
		}
		for from, to := range remoteDepends {
			if to == n && names[from] && !e.remoteBuilt[from] {
				return true
			}
		}
		return false
	}
	r := e.opts.Remote
	if err := e.ensureRemoteFunctions(ctx, names); err != nil {
		return err
	}
	var tables []jsonRows
	for _, t := range metadataRows(files, snaps) {
		if wanted(t.table) {
			tables = append(tables, t)
		}
	}
	for _, t := range tables {
		q, err := sparkTable(r, t)
		if err != nil {
			return err
		}
		if err := r.Exec(ctx, q); err != nil {
			return fmt.Errorf("create %s on %s: %w", t.table, r.Dialect(), err)
		}
		e.remoteBuilt[strings.ToLower(t.table)] = true
	}
	// group_history over the cuts: the Spark twin of sql/group_history.sql
	// without the log (the log views are DuckDB's only).
	if wanted("group_history") {
		if err := r.Exec(ctx, `CREATE OR REPLACE TEMPORARY VIEW group_history AS SELECT *, 'cut' AS source, CAST(NULL AS BIGINT) AS generations,
  CAST(NULL AS BOOLEAN) AS from_complete, CAST(NULL AS STRING) AS coverage FROM group_history_cuts`); err != nil {
			return fmt.Errorf("create the view group_history on %s: %w", r.Dialect(), err)
		}
		e.remoteBuilt["group_history"] = true
	}
	byName := map[string]Topic{}
	for _, t := range topics {
		byName[t.Name] = t
	}
	root := e.remoteRoot()
	for _, tf := range files {
		if tf.apart != "" {
			continue // no view under a name SQL cannot tell apart (apartNames)
		}
		if !wanted(tf.name) && !wanted(tf.name+"$all") {
			continue
		}
		if why := encodedNotOnRemote(byName[tf.name]); why != "" {
			if names == nil {
				continue // not named: every view was asked for
			}
			return &NotOnEngineError{Topic: tf.name, Engine: r.Dialect(), Why: why}
		}
		if root != e.dir.Path {
			paths, err := rebase(e.dir.Path, root, tf.paths)
			if err != nil {
				return err
			}
			tf.paths = paths // tf is this loop's copy; e.files keep the folder's paths
		}
		all, data, err := sparkTopicSelects(root, tf, byName[tf.name])
		if err != nil {
			return err
		}
		for _, v := range [][2]string{{tf.name + "$all", all}, {tf.name, data}} {
			if !wanted(v[0]) {
				continue
			}
			if err := r.Exec(ctx, "CREATE OR REPLACE TEMPORARY VIEW "+quoteIdent(v[0])+" AS "+v[1]); err != nil {
				return fmt.Errorf("create the view %s on %s: %w", v[0], r.Dialect(), err)
			}
			e.remoteBuilt[strings.ToLower(v[0])] = true
		}
	}
	return nil
}

// remoteRoot is where the remote reads the snapshot: Options.RemoteDir
// (s3a://bucket/prefix), else the folder's own path.
func (e *Engine) remoteRoot() string {
	if r := strings.TrimRight(e.opts.RemoteDir, "/"); r != "" {
		return r
	}
	return e.dir.Path
}

// rebase names each file of the folder dir by its place under root: the
// same layout (catalog's), another location.
func rebase(dir, root string, paths []string) ([]string, error) {
	out := make([]string, len(paths))
	for i, p := range paths {
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return nil, fmt.Errorf("name %s under %s: not in the folder %s", p, root, dir)
		}
		out[i] = root + "/" + filepath.ToSlash(rel)
	}
	return out, nil
}

// execScript runs an embedded file of statements, each ended by ";" at a
// line's end.
func execScript(ctx context.Context, r Remote, name string) error {
	stmts, err := scriptStatements(name)
	if err != nil {
		return err
	}
	for _, st := range stmts {
		if err := r.Exec(ctx, st); err != nil {
			return fmt.Errorf("run %s on %s: %w", name, r.Dialect(), err)
		}
	}
	return nil
}

// scriptStatements are the statements of an embedded file, each ended by
// ";" at a line's end, its comments left out.
func scriptStatements(name string) ([]string, error) {
	b, err := engineSQL.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	var out []string
	for _, st := range strings.Split(stripComments(string(b)), ";\n") {
		if strings.TrimSpace(st) != "" {
			out = append(out, st)
		}
	}
	return out, nil
}

// remoteFunction is a function a remote's script makes: its lower-case
// name and the statement.
type remoteFunction struct{ name, stmt string }

// remoteFunctionScripts are the scripts' functions, read once a script
// (embedded: they never change).
var remoteFunctionScripts sync.Map // script name -> []remoteFunction

// remoteFunctions are the functions script makes, in its order; a
// statement that makes none is an error.
func remoteFunctions(script string) ([]remoteFunction, error) {
	if v, ok := remoteFunctionScripts.Load(script); ok {
		return v.([]remoteFunction), nil
	}
	stmts, err := scriptStatements(script)
	if err != nil {
		return nil, err
	}
	fns := make([]remoteFunction, 0, len(stmts))
	for _, st := range stmts {
		m := remoteFunctionRE.FindStringSubmatch(st)
		if m == nil {
			return nil, fmt.Errorf("a statement that makes no function: %.80q", st)
		}
		fns = append(fns, remoteFunction{strings.ToLower(m[1]), st})
	}
	remoteFunctionScripts.Store(script, fns)
	return fns, nil
}

// sparkTypes are the catalog tables' column types in Spark, by DuckDB's.
var sparkTypes = map[string]string{"VARCHAR": "STRING", "INTEGER": "INT", "BIGINT": "BIGINT", "BOOLEAN": "BOOLEAN", "TIMESTAMPTZ": "TIMESTAMP", "INTEGER[]": "ARRAY<INT>"}

// sparkTable is the view of a catalog table on Spark: its rows as one JSON
// literal, read with the table's columns and types.
func sparkTable(r Remote, t jsonRows) (string, error) {
	b, err := json.Marshal(t.rows)
	if err != nil {
		return "", fmt.Errorf("encode %s: %w", t.table, err)
	}
	lit, err := r.Literal(string(b))
	if err != nil {
		return "", err
	}
	var fields, cols []string
	for _, c := range t.columns {
		name, typ, _ := strings.Cut(c, " ")
		st := sparkTypes[typ]
		if st == "" {
			return "", fmt.Errorf("table %s: column %s has type %s, which has no Spark type here", t.table, name, typ)
		}
		if st == "TIMESTAMP" {
			// JSON carries the time as RFC 3339 text; the cast reads it as
			// an instant (the session's zone is UTC).
			fields = append(fields, quoteIdent(name)+": STRING")
			cols = append(cols, "CAST("+quoteIdent(name)+" AS TIMESTAMP) AS "+quoteIdent(name))
			continue
		}
		fields = append(fields, quoteIdent(name)+": "+st)
		cols = append(cols, quoteIdent(name))
	}
	schema := "ARRAY<STRUCT<" + strings.Join(fields, ", ") + ">>"
	return fmt.Sprintf("CREATE OR REPLACE TEMPORARY VIEW %s AS SELECT %s FROM (SELECT inline(from_json(%s, %s)))",
		quoteIdent(t.table), strings.Join(cols, ", "), lit, quoteString(strings.ReplaceAll(schema, `"`, "`"))), nil
}

// sparkGlobChars are the characters Hadoop's path globbing reads: a folder
// whose path holds one cannot be named exactly to Spark.
const sparkGlobChars = "*?[]{}\\`"

// sparkTopicSelects are the Spark SELECTs of a topic's views "T$all" and
// "T", as topicSelects are DuckDB's: every committed file named exactly
// (one relation per partition and kind, its files listed in a {a,b} set,
// never a bare glob), markers and aborted records apart, a transaction left
// open in its file resolved by the producer's next marker.
func sparkTopicSelects(dir string, tf topicFiles, t Topic) (all, data string, err error) {
	if strings.ContainsAny(dir, sparkGlobChars) {
		return "", "", fmt.Errorf("the snapshot's location %s has one of %s in its path, which Spark would read as a pattern: move or link it to a plain path", dir, sparkGlobChars)
	}
	if tf.rawKeys {
		return "", "", fmt.Errorf("%s has record header keys that are not UTF-8, stored as bytes (key_raw) in files Spark would read by another file's layout: query it with the DuckDB engine (without --engine spark)", tf.name)
	}
	value, valueErr := `"value"`, `CAST(NULL AS STRING)`
	var parsed string
	if t.JSON {
		schema, err := sparkSchema(t.Structure)
		if err != nil {
			return "", "", fmt.Errorf("the value type of %s: %w", tf.name, err)
		}
		// value_error is a column of the relation below (withValueError):
		// the value's text is parsed for it once, not again in value's
		// own test, and Spark keeps a column read twice computed once.
		valueErr = "value_error"
		if schema == "STRING" {
			// The whole value is its JSON text (caseApart: names that
			// differ only in case at its top). Spark's from_json takes no
			// STRING schema; as the member v of {"v":<value>} the value
			// is the text Spark's parser writes again, compact as
			// DuckDB's (any JSON fits a STRING: no field is unfit).
			checked := "STRUCT<v: STRING, `" + sparkUnfit + "`: STRING>"
			parsed = `from_json(concat('{"v":', CAST("value" AS STRING), '}'), ` + quoteString(checked) + `, map('columnNameOfCorruptRecord', ` + quoteString(sparkUnfit) + `))`
			value = `CASE WHEN value_error IS NULL AND p IS NOT NULL THEN p.v END`
		} else {
			names, err := topKeys(t.Structure)
			if err != nil || len(names) == 0 || !strings.HasPrefix(schema, "STRUCT<") {
				return "", "", fmt.Errorf("the value type of %s: not a structure of fields", tf.name)
			}
			// A value whose fields do not fit the sampled structure: Spark's
			// parser (PERMISSIVE) would read such a field as NULL without a
			// word; with a corrupt-record column it says so, and the value
			// reads NULL with value_error saying why, as on DuckDB (whose
			// value_error also names the field: json_fit).
			checked := strings.TrimSuffix(schema, ">") + ", `" + sparkUnfit + "`: STRING>"
			parsed = `from_json(CAST("value" AS STRING), ` + quoteString(checked) + `, map('columnNameOfCorruptRecord', ` + quoteString(sparkUnfit) + `))`
			fields := make([]string, len(names))
			for i, n := range names {
				fields[i] = quoteString(n) + ", p.`" + strings.ReplaceAll(n, "`", "``") + "`"
			}
			value = `CASE WHEN value_error IS NULL AND p IS NOT NULL THEN named_struct(` + strings.Join(fields, ", ") + `) END`
		}
	}
	withValueError := func(src string) string {
		if !t.JSON {
			return src
		}
		l1 := "(SELECT s.*, " + sparkJSONValueError + " AS value_error0 FROM " + src + ") s"
		l2 := `(SELECT s.*, CASE WHEN value_error0 IS NULL AND "value" IS NOT NULL THEN ` + parsed + ` END AS p FROM ` + l1 + `) s`
		return "(SELECT s.*, coalesce(value_error0, CASE WHEN p.`" + sparkUnfit + "` IS NOT NULL THEN " + quoteString(sparkUnfitError) + " END) AS value_error FROM " + l2 + ") s"
	}
	type group struct {
		dir   string
		files []string
	}
	groups := map[[2]string]*group{} // by partition folder and plain
	var keys [][2]string
	for i, p := range tf.paths {
		d, f := p[:strings.LastIndex(p, "/")], p[strings.LastIndex(p, "/")+1:]
		if strings.ContainsAny(f, sparkGlobChars+",") {
			return "", "", fmt.Errorf("the file %s has a name Spark would read as a pattern", p)
		}
		k := [2]string{d, fmt.Sprint(tf.plain[i])}
		if groups[k] == nil {
			groups[k] = &group{dir: d}
			keys = append(keys, k)
		}
		groups[k].files = append(groups[k].files, f)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+keys[i][1] < keys[j][0]+keys[j][1] })
	source := func(ks [][2]string) string {
		if len(ks) == 0 {
			return "(" + sparkEmptyRaw + ")"
		}
		var parts []string
		for _, k := range ks {
			g := groups[k]
			names := strings.Join(g.files, ",")
			if len(g.files) > 1 {
				names = "{" + names + "}"
			}
			parts = append(parts, "SELECT "+sparkStoredColumns+" FROM parquet.`"+g.dir+"/"+names+"`")
		}
		return "(" + strings.Join(parts, "\nUNION ALL\n") + ")"
	}
	typed := func(ks [][2]string, open bool) string {
		txn := "txn_state"
		src := source(ks) + " s"
		if open {
			// The next marker of the same producer on the same partition
			// decides a transaction left open in its file.
			txn = `CASE WHEN txn_state = 'open' AND next_marker IS NOT NULL
  THEN CASE next_marker WHEN 'commit' THEN 'committed' ELSE 'aborted' END ELSE txn_state END`
			src = `(SELECT s.*, first_value(CASE WHEN is_control THEN control_type END, true) OVER (PARTITION BY "partition", producer_id ORDER BY "offset" ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS next_marker FROM ` + src + `) s`
		}
		return fmt.Sprintf(sparkRawColumns, value, valueErr, txn, txn) + " FROM " + withValueError(src)
	}
	var plain, other [][2]string
	for _, k := range keys {
		if k[1] == "true" {
			plain = append(plain, k)
		} else {
			other = append(other, k)
		}
	}
	all = typed(keys, tf.openTxn)
	const sel = `SELECT * EXCEPT (is_control, control_type, aborted) FROM (%s)`
	var parts []string
	if len(plain) > 0 {
		parts = append(parts, fmt.Sprintf(sel, typed(plain, false)))
	}
	if len(other) > 0 || len(plain) == 0 {
		parts = append(parts, fmt.Sprintf(sel+` WHERE NOT is_control AND NOT aborted`, typed(other, tf.openTxn)))
	}
	return all, strings.Join(parts, "\nUNION ALL\n"), nil
}

// sparkStoredColumns are the stored columns, in the order of DuckDB's
// views (a file's own partition column: never the folder's, which Spark
// does not read here as every file is named).
const sparkStoredColumns = `"partition", "offset", "timestamp", timestamp_type, "key", "value", headers, leader_epoch, producer_id,
  producer_epoch, is_transactional, is_control, control_type, txn_state, schema_id`

// sparkRawColumns is rawColumns in Spark's dialect.
const sparkRawColumns = `SELECT "partition", "offset", CAST("timestamp" AS TIMESTAMP) AS "timestamp", timestamp_type,
  try_validate_utf8(CAST("key" AS STRING)) AS "key", "key" AS key_raw, %s AS "value", "value" AS value_raw, %s AS value_error,
  ` + sparkHeaders + ` AS headers, leader_epoch, producer_id, producer_epoch, is_transactional, is_control,
  control_type, %s AS txn_state, coalesce(%s = 'aborted', false) AS aborted, schema_id`

// sparkHeaders is textHeaders in Spark's dialect. Spark reads a key that
// is not UTF-8 in a file written before key_raw existed (DuckDB refuses
// it): its text is then NULL, as DuckDB's of a key stored as bytes.
const sparkHeaders = `transform(headers, h -> named_struct('key', try_validate_utf8(h.key), 'key_raw', CAST(h.key AS BINARY), 'value', h.value))`

const sparkEmptyRaw = `SELECT CAST(NULL AS INT) AS "partition", CAST(NULL AS BIGINT) AS "offset", CAST(NULL AS TIMESTAMP) AS "timestamp",
  CAST(NULL AS STRING) AS timestamp_type, CAST(NULL AS BINARY) AS "key", CAST(NULL AS BINARY) AS "value",
  CAST(NULL AS ARRAY<STRUCT<key: STRING, value: BINARY>>) AS headers, CAST(NULL AS INT) AS leader_epoch, CAST(NULL AS BIGINT) AS producer_id,
  CAST(NULL AS INT) AS producer_epoch, CAST(NULL AS BOOLEAN) AS is_transactional, CAST(NULL AS BOOLEAN) AS is_control,
  CAST(NULL AS STRING) AS control_type, CAST(NULL AS STRING) AS txn_state, CAST(NULL AS INT) AS schema_id WHERE false`

// sparkUnfit is the corrupt-record column of Spark's parse of a JSON
// topic's values: set when a field does not fit the sampled structure.
const sparkUnfit = "_topicsnap_unfit"

// sparkUnfitError is value_error on Spark of a value whose fields do not
// fit the sampled structure (DuckDB's json_fit names the field; Spark's
// parser does not say which).
const sparkUnfitError = jsonfit.Prefix + "a field does not fit the type inferred from a sample of the topic's values (Spark's parser does not say which: the DuckDB engine's value_error does); its fields are not read (the bytes are in value_raw)"

// sparkJSONValueError is jsonValueError in Spark's dialect: try_parse_json
// (with duplicate keys allowed, as DuckDB's json_valid allows them) says
// whether the text is JSON; of a text that is, the first character past
// the whitespace JSON allows before a value (the only whitespace Spark's
// parser, Jackson, takes there) says whether it is an object. The text is
// parsed once: that parse is most of what a record's value costs on Spark
// (schema_of_variant of a second parse, as this was, cost as much again).
// Of jsonbound's bounds Spark applies the size here; its parser refuses a
// value nested past 1,000 levels itself, which reads as 'not JSON' there
// where DuckDB names the bound; the member bound is DuckDB's alone.
var sparkJSONValueError = `CASE WHEN "value" IS NULL THEN NULL
  WHEN octet_length("value") > ` + fmt.Sprint(jsonbound.MaxBytes) + ` THEN ` + quoteString(jsonbound.TooLarge()) + `
  WHEN try_validate_utf8(CAST("value" AS STRING)) IS NULL THEN 'not UTF-8'
  WHEN try_parse_json(CAST("value" AS STRING)) IS NULL THEN 'not JSON'
  WHEN NOT startswith(ltrim(' \t\n\r', CAST("value" AS STRING)), '{') THEN 'not a JSON object' END`

// sparkSchema turns DuckDB's inferred JSON structure ({"a":"VARCHAR",
// "b":["BIGINT"], "c":{...}}) into a Spark type (STRUCT<...>).
func sparkSchema(structure string) (string, error) {
	dec := json.NewDecoder(strings.NewReader(structure))
	dec.UseNumber()
	var walk func() (string, error)
	walk = func() (string, error) {
		tok, err := dec.Token()
		if err != nil {
			return "", err
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				var fields []string
				for dec.More() {
					k, err := dec.Token()
					if err != nil {
						return "", err
					}
					name, _ := k.(string)
					typ, err := walk()
					if err != nil {
						return "", err
					}
					fields = append(fields, "`"+strings.ReplaceAll(name, "`", "``")+"`: "+typ)
				}
				if _, err := dec.Token(); err != nil {
					return "", err
				}
				return "STRUCT<" + strings.Join(fields, ", ") + ">", nil
			case '[':
				elem, err := walk()
				if err != nil {
					return "", err
				}
				if _, err := dec.Token(); err != nil {
					return "", err
				}
				return "ARRAY<" + elem + ">", nil
			}
		case string:
			switch t {
			case "VARCHAR", "JSON", "NULL":
				return "STRING", nil
			case "BIGINT", "UBIGINT", "INTEGER", "UINTEGER", "SMALLINT", "TINYINT", "UTINYINT", "USMALLINT", "HUGEINT":
				return "BIGINT", nil
			case "DOUBLE", "FLOAT":
				return "DOUBLE", nil
			case "BOOLEAN":
				return "BOOLEAN", nil
			}
			return "", fmt.Errorf("a field of type %s has no Spark type here", t)
		}
		return "", fmt.Errorf("unexpected %v in the structure", tok)
	}
	return walk()
}

// QueryRemote runs one read-only SELECT of a user on the remote, over the
// same views and catalog tables as DuckDB's. The statement is judged by
// the guard (guard.go) with DuckDB's parser first: what DuckDB cannot
// parse as one SELECT is refused, whatever Spark would make of it.
func (e *Engine) QueryRemote(ctx context.Context, q string) ([]string, [][]any, error) {
	r := e.opts.Remote
	if r == nil {
		return nil, nil, fmt.Errorf("%w: no remote engine", ErrRefused)
	}
	conn, err := e.db.Conn(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("connect duckdb: %w", err)
	}
	doc, err := parseSQL(ctx, conn, q)
	if err == nil {
		err = e.guardFor(ctx, conn, doc, true)
	}
	conn.Close()
	if err != nil {
		return nil, nil, err
	}
	// The tables DuckDB's tree names, and the words of the text: the
	// remote's functions (murmur2, kafka_partition, epoch) are not in it.
	w := wantOf(doc)
	if !w.all {
		words := remoteWant(q)
		if words.all {
			w = words
		}
		for n := range words.names {
			w.names[n] = true
		}
	}
	if err := e.ensureRemote(ctx, w); err != nil {
		return nil, nil, err
	}
	return r.Query(ctx, q)
}
