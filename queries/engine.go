package queries

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/topicsnap/topicsnap/internal/jsonbound"
	"github.com/topicsnap/topicsnap/internal/jsonfit"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/topicsnap/topicsnap/catalog"
)

// Options of an engine.
type Options struct {
	// FolderName is the folder as the user named it, for the command
	// Problems asks for (a bucket's s3://... where the engine reads its
	// local cache); "" names none (the command alone).
	FolderName string
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
	// Topics, when set, limits the engine to these topics of the folder
	// and __consumer_offsets (the group log views read it): only their
	// manifests are read and only their rows are in the catalog tables,
	// so a question about one topic of a folder of thousands costs that
	// topic. Every cut is still read (a group is known by any topic's
	// cuts), and a misspelt topic is matched against every topic's name.
	Topics []string
	// Remote, if set, is the engine the checks' statements run on (Spark
	// Connect, package queries/spark); DuckDB keeps the catalog and judges
	// expressions. The caller closes it.
	Remote Remote
	// RemoteDir is where the remote reads the snapshot, when not at the
	// folder's own path: s3a://bucket/prefix for a bucket the folder is a
	// local cache of (the same layout; the manifests the engine reads are
	// the bucket's). The remote's views name each committed file there.
	RemoteDir string
}

// Topic describes one topic's views.
type Topic struct {
	Name string
	// Apart says why the topic has no views (its name is another topic's
	// but for case, or a table's the engine makes); "" when it has.
	Apart string
	// Partitions are the topic's partitions the folder holds, as it is
	// today: not OldPartitions.
	Partitions int
	// OldPartitions are the partitions of an old topic of the name only:
	// the topic was deleted and made again with fewer partitions, and
	// their records are history, in "T$superseded" (OldTopicPartitions).
	OldPartitions []int32
	Files         int
	Records       int64
	JSON          bool   // value is a STRUCT inferred from JSON
	Structure     string // the inferred JSON structure
	// KeyStructure is the structure of a topic's decoded keys (the dump
	// decoded wire-format keys): key is then from_json of key_decoded.
	KeyStructure string
	// Encoded is a topic of schema-encoded values (Avro, Protobuf, JSON
	// Schema) that the dump decoded; Formats are its schemas' types
	// (AVRO, PROTOBUF, JSON), as stored in the folder.
	Encoded bool
	Formats []string
	// KeyEncoded is a topic whose wire-format keys the dump decoded (or
	// tried to): key is the decoded key, key_error says why not.
	KeyEncoded bool
	// Damaged are the partitions whose manifest could not be read: not in
	// the views, named in Problems.
	Damaged []int32
	// openTxn: some file holds records of a transaction its marker was
	// not in (the view decides them from a later marker, if any).
	openTxn bool
	// unsampled says why its values could not be sampled for their type
	// when DuckDB failed on a damaged data file: value is then its bytes,
	// and an option that reads a field of it is the damage's fault, not
	// the user's.
	unsampled *DamagedError
	// sampledValue and sampledKey: Structure and KeyStructure were inferred
	// from a sample (not typed by writer schemas), so a value outside the
	// sample may not fit them; the views check each value (json_fit).
	sampledValue, sampledKey bool
}

// Engine is an in-memory DuckDB over one snapshot folder.
type Engine struct {
	db   *sql.DB
	dir  *catalog.Dir
	opts Options

	mu      sync.RWMutex
	version string
	// topicVersions is each topic's own version (catalogVersion), of the
	// same refresh as version.
	topicVersions map[string]string
	topics        []Topic
	sideDB        *sql.DB // inference's own pool (Open)
	problems      []string
	badCuts       map[string]int             // cluster snapshots the last refresh could not read, by the topic of their folder ("" unknown)
	files         []topicFiles               // the catalog as of the last refresh, by topic name
	snaps         []*catalog.ClusterSnapshot // cluster snapshots as of the last refresh
	built         map[string]bool            // lower-case names of the views and tables built
	allBuilt      bool
	allNames      []string        // every topic of the folder, when Options.Topics limits the engine
	system        map[string]bool // lower-case names of DuckDB's own tables and views (guard.go), read once when first needed
	systemMu      sync.Mutex
	tempDir       string // this engine's private spill folder, removed at Close

	remoteMu      sync.Mutex                 // held while the remote's views are built
	remoteVersion string                     // the catalog version the remote's views were built from
	remoteSnaps   []*catalog.ClusterSnapshot // the cuts the remote's tables were built from (at remoteVersion)
	remoteFiles   []topicFiles               // the catalog the remote's views are built from (at remoteVersion)
	remoteBuilt   map[string]bool            // lower-case names of the remote's tables and views built at remoteVersion
	remoteFuncs   map[string]bool            // lower-case names of the remote's functions made in its session
}

// ErrRefused marks SQL a locked engine will not run.
var ErrRefused = errors.New("refused")

// Open builds the views over dir. A folder with no snapshots opens to empty
// typed metadata tables.
func Open(ctx context.Context, dir string, opts Options) (*Engine, error) {
	// The folder is opened by its absolute path, so that every file the
	// engine names is absolute too: a remote engine (Spark) resolves a
	// relative path against its own working folder, not ours.
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", dir, err)
	}
	d, err := catalog.OpenAt(ctx, abs, catalog.S3Config{})
	if err != nil {
		return nil, err
	}
	// DuckDB's start (~12 ms) and reading the catalog (manifests, cluster
	// snapshots) need each other only once both are done: overlap them.
	type started struct {
		c   *duckdb.Connector
		err error
	}
	// The settings are DuckDB's configuration at open, not SET statements
	// run after it: each statement is ~0.1 ms on the way to the first
	// query. Spill files go to a folder of this engine's own (0700,
	// removed at Close), never one shared by every process on the host.
	tmp, err := os.MkdirTemp(opts.TempDir, "topicsnap-duckdb-")
	if err != nil {
		return nil, fmt.Errorf("make a temp folder for duckdb: %w", err)
	}
	dsn := url.Values{"temp_directory": {tmp}}
	if opts.MemoryLimit != "" {
		dsn.Set("memory_limit", opts.MemoryLimit)
	}
	if opts.Threads > 0 {
		dsn.Set("threads", strconv.Itoa(opts.Threads))
	}
	// QueryArrow's types: one Arrow has no twin for (HUGEINT, UUID, ...)
	// is exported as an extension type, never squeezed into a near one
	// (UHUGEINT into a decimal(38, 0) it overflows).
	dsn.Set("arrow_lossless_conversion", "true")
	ch := make(chan started, 1)
	go func() {
		c, err := duckdb.NewConnector("?"+dsn.Encode(), nil)
		ch <- started{c, err}
	}()
	e := &Engine{dir: d, opts: opts, built: map[string]bool{}, tempDir: tmp}
	v, tv, verr := e.catalogVersion(ctx)
	var cat *catalogState
	if verr == nil {
		cat, verr = e.readCatalog(ctx)
	}
	st := <-ch
	if st.err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("open duckdb: %w", st.err)
	}
	db := sql.OpenDB(st.c)
	e.db = db
	// Inference runs on a pool of its own over the same database, so a
	// build holding a transaction (or a caller that allowed the main pool
	// one connection) never waits on itself, and a read that fails does
	// not abort the build's transaction.
	e.sideDB = sql.OpenDB(noClose{st.c})
	if verr != nil {
		e.Close()
		return nil, verr
	}
	if err := e.setup(ctx); err != nil {
		e.Close()
		return nil, err
	}
	e.mu.Lock()
	err = e.apply(ctx, v, tv, cat)
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
	if !e.opts.Lazy {
		// Snapshot files are never rewritten (a new range is a new name), and
		// DuckDB checks a file's modification time before reusing its
		// footer: an engine that runs many queries reads each footer once.
		// A one-shot (lazy) engine reads them at most twice and would pay
		// more to free the cache at close (~5 ms at 206 files) than it saves.
		// (A setting of the parquet extension, which loads after the open:
		// not one of the DSN's.)
		if _, err := conn.ExecContext(ctx, "SET parquet_metadata_cache = true"); err != nil {
			return fmt.Errorf("configure duckdb (SET parquet_metadata_cache = true): %w", err)
		}
	}
	if err := registerFunctions(conn); err != nil {
		return err
	}
	if e.opts.Lazy {
		// A lazy engine makes the macros when a query first calls them
		// (buildTx): SELECT 1 does not pay for them (~1.7 ms).
		return nil
	}
	return createStateMacros(ctx, conn)
}

// stateMacros is the key of e.built (and of a want's names) for the table
// macros topic_state and topic_state_unknown: no topic is named so (a
// topic's name has no parentheses).
const stateMacros = "topic_state()"

// createStateMacros makes the table macros sql/topic_state_unknown.sql and
// sql/topic_state.sql (which calls the first): the guard lets untrusted
// SQL call them on a topic view only.
func createStateMacros(ctx context.Context, db interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}) error {
	for _, m := range []string{"topic_state_unknown", "topic_state"} {
		q, err := render(m, sqlData{})
		if err != nil {
			return err
		}
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("create macro %s: %w", m, err)
		}
	}
	return nil
}

// noClose is a connector whose database the pool over it does not close:
// the engine's main pool owns it.
type noClose struct{ driver.Connector }

// DB is the engine's database handle. Pin a *sql.Conn for a session.
func (e *Engine) DB() *sql.DB { return e.db }

// Dir is the snapshot folder.
func (e *Engine) Dir() string { return e.dir.Path }

// Close releases DuckDB.
func (e *Engine) Close() error {
	if e.sideDB != nil {
		e.sideDB.Close()
	}
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

// TopicVersion identifies what the views built at Version hold of one
// topic and what every topic's answers read (the group log, a folder's
// old flat cuts): it changes when they do, and not when only another
// topic was dumped. "" for a topic the folder does not hold.
func (e *Engine) TopicVersion(topic string) string {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.topicVersions[topic]
}

// rawColumns is the typed projection of the stored columns, shared by the
// populated and the empty view.
const rawColumns = `"partition", "offset", "timestamp"::TIMESTAMPTZ AS "timestamp", timestamp_type,
  %s AS "key", "key" AS key_raw, %s AS "value", "value" AS value_raw, %s AS value_error,
  headers, leader_epoch, producer_id, producer_epoch, is_transactional, is_control,
  control_type, %s AS txn_state, coalesce(%s = 'aborted', false) AS aborted, schema_id%s`

const emptyRaw = `SELECT NULL::INTEGER AS "partition", NULL::BIGINT AS "offset", NULL::TIMESTAMP AS "timestamp",
  NULL::VARCHAR AS timestamp_type, NULL::BLOB AS "key", NULL::BLOB AS "value",
  NULL::STRUCT("key" VARCHAR, "value" BLOB)[] AS headers, NULL::INTEGER AS leader_epoch, NULL::BIGINT AS producer_id,
  NULL::INTEGER AS producer_epoch, NULL::BOOLEAN AS is_transactional, NULL::BOOLEAN AS is_control,
  NULL::VARCHAR AS control_type, NULL::VARCHAR AS txn_state, NULL::INTEGER AS schema_id WHERE false`

// jsonValueError says why a JSON topic's value did not parse as a JSON
// object (its value is then NULL, its bytes still in value_raw); NULL for
// a value that parsed and for a null value (a tombstone). A value past
// jsonbound's bounds is not parsed at all and says which bound; one that
// does not fit the structure inferred from a sample says where (fit, the
// json_fit call of fitCheck; "" when every value fits). The values check
// counts the same column.
func jsonValueError(fit string) string {
	s := `CASE WHEN "value" IS NULL THEN NULL
  WHEN ` + boundError(`"value"`) + ` IS NOT NULL THEN ` + boundError(`"value"`) + `
  WHEN try(decode("value")) IS NULL THEN 'not UTF-8'
  WHEN NOT json_valid(decode("value")) THEN 'not JSON'
  WHEN json_type(decode("value")) <> 'OBJECT' THEN 'not a JSON object'`
	if fit != "" {
		s += `
  ELSE ` + fit
	}
	return s + ` END`
}

// fitCheck is the SQL of why the JSON text in src (VARCHAR) does not fit
// structure, a structure inferred from a sample: json_fit (functions.go,
// internal/jsonfit), NULL where it fits. from_json would otherwise convert
// what does not fit without a word (1.5 read as a BIGINT is 2). "" when no
// value can fail it (a structure of text fields only).
func fitCheck(src, structure string) string {
	if t, err := jsonfit.Compile(structure); err == nil && t.Lossless() {
		return ""
	}
	return fmt.Sprintf(`json_fit(%s, %s)`, src, quoteString(structure))
}

// fitted is the value expression value, read only where fit (a fitCheck)
// says the value fits: elsewhere NULL, and value_error says why.
func fitted(value, fit string) string {
	if fit == "" {
		return value
	}
	return fmt.Sprintf(`CASE WHEN %s IS NULL THEN %s END`, fit, value)
}

// jsonFitSource is the text json_fit checks of a JSON topic's value.
const jsonFitSource = `try(decode("value"))`

// encodedValueError says why a schema-encoded topic's value was not
// decoded: the dump's reason (the schema unknown or not reachable, the
// payload not decoding with it), a decoded text past jsonbound's bounds
// (only a folder not written by topicsnap's dump holds one), or a value
// that is not in the wire format at all; a decoded value that does not fit
// a structure sampled from the decoded values (fit, a fitCheck: a JSON
// Schema topic's) says where.
func encodedValueError(fit string) string {
	s := `CASE WHEN "value" IS NULL THEN NULL
  WHEN value_decode_error IS NOT NULL THEN value_decode_error
  WHEN ` + boundError(encodedSource) + ` IS NOT NULL THEN ` + boundError(encodedSource) + `
  WHEN value_decoded IS NULL AND schema_id IS NULL THEN 'no magic byte: not in the schema registry wire format'`
	if fit != "" {
		s += `
  ELSE ` + fit
	}
	return s + ` END`
}

// encodedKeyError is encodedValueError for a topic whose keys the dump
// decoded (key_error). A key in the wire format that no dump tried to
// decode (its file was written by a dump without a registry, or before keys
// were decoded) says so rather than "no magic byte". A decoded key that
// does not fit the structure sampled from the keys says where (fit, a
// fitCheck; "" when every key fits).
func encodedKeyError(fit string) string {
	ok := "NULL"
	if fit != "" {
		ok = fit
	}
	return `CASE WHEN "key" IS NULL THEN NULL
  WHEN key_decode_error IS NOT NULL THEN key_decode_error
  WHEN ` + boundError("key_decoded") + ` IS NOT NULL THEN ` + boundError("key_decoded") + `
  WHEN key_decoded IS NOT NULL THEN ` + ok + `
  WHEN octet_length("key") >= 5 AND left(hex("key"), 2) = '00' THEN 'not decoded: the dump that read it had no schema registry (or predates decoded keys)'
  ELSE 'no magic byte: not in the schema registry wire format' END`
}

// boundError is the SQL of why the JSON text in column col (BLOB or
// VARCHAR) is past jsonbound's bounds, NULL within them. Text shorter than
// jsonbound.MinBytesPastBound cannot pass a bound as valid JSON and is not
// scanned, so ordinary small values cost one length; a longer one is
// scanned by json_bound (functions.go), once per query that reads it.
func boundError(col string) string {
	// strlen is a VARCHAR's length in bytes; the one BLOB here is "value".
	n := fmt.Sprintf(`strlen(%s)`, col)
	if col == `"value"` {
		n = fmt.Sprintf(`octet_length(%s)`, col)
	}
	return fmt.Sprintf(`(CASE WHEN %s IS NULL OR %s < %d THEN NULL WHEN %s > %d THEN %s ELSE json_bound(%s) END)`,
		col, n, jsonbound.MinBytesPastBound, n, jsonbound.MaxBytes, quoteString(jsonbound.TooLarge()), col)
}

// boundedValue is value, a JSON value expression over the text in col,
// read only when that text is within jsonbound's bounds: past them the
// value's fields are NULL (and value_error says why).
func boundedValue(value, col string) string {
	return fmt.Sprintf(`CASE WHEN %s IS NULL THEN %s END`, boundError(col), value)
}

// textKey is the key column of a topic whose keys were not decoded: their
// text, NULL when not UTF-8 (key_raw keeps the bytes).
const textKey = `try(decode("key"))`

// encodedSource is the JSON text of a schema-encoded topic's values.
const encodedSource = `"value_decoded"`

// jsonSource is the JSON text of a JSON topic's values.
const jsonSource = `decode("value")`

// noValueError is value_error of a topic whose values are not JSON: there
// is no format to fail.
const noValueError = `NULL::VARCHAR`

// openResolved is the txn_state of a row whose transaction's marker was not
// in its file: the next marker of the same producer on the same partition
// decides it (found with an ASOF join); with none yet it stays "open".
const openResolved = `CASE WHEN s.txn_state = 'open' AND m.control_type IS NOT NULL
  THEN CASE m.control_type WHEN 'commit' THEN 'committed' ELSE 'aborted' END ELSE s.txn_state END`

// quoteIdent quotes a SQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// quoteString quotes a SQL string literal.
func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// QuoteIdent is exported for packages that build SQL over topic names.
func QuoteIdent(s string) string { return quoteIdent(s) }

// QuoteString quotes s as a SQL string literal: 's', with ' doubled.
func QuoteString(s string) string { return quoteString(s) }
