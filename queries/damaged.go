package queries

import (
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/parquet-go/parquet-go"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/folder"
	"github.com/topicsnap/topicsnap/catalog/store"
	"github.com/topicsnap/topicsnap/internal/exit"
)

// ErrDamagedData is a data file DuckDB could not read mid-query (or while
// it made a topic's views): its footer or pages are not what Parquet
// says, whatever the damage (garbage of the right size, bit rot in a
// page, a footer rewritten). It is the folder's fault, not the query's:
// exit 9, and the hint is catalog verify, which names the file.
var ErrDamagedData = exit.New(exit.BadFolder, "damaged data file",
	"topicsnap catalog verify --dir DIR (names every damaged file); put the file back from a backup, or remove its partition folder and dump the partition again while Kafka still has its offsets")

// damagedData matches DuckDB's messages of a Parquet file it cannot read:
// the footer (no magic, a bad length, thrift it cannot decode) or a page
// (decompression, bit-packing, a buffer read past its end). Only the
// message's first line is matched: the SQL excerpt below it is the user's.
var damagedData = regexp.MustCompile(`No magic bytes found at end of file|too small to be a Parquet file|Footer length error|TProtocolException|invalid TType|don't know what type|Out of buffer|Failed to read file "[^"]*\.parquet"|(?i:decompression failure)|might be corrupted|likely corrupted|Invalid string encoding found in Parquet file|bitpacked data exceeds|Variable-length int over 10 bytes`)

// damagedFile is the file a DuckDB message names, when it does.
var damagedFile = regexp.MustCompile(`['"]([^'"]+\.parquet)['"]`)

// DamagedError is a query (or a view's build) that failed on a data file
// it could not read. errors.Is(err, ErrDamagedData) holds.
type DamagedError struct {
	// Context says what was being done ("check values on app_events"), or "".
	Context string
	// File is the damaged file's path in the folder when DuckDB's message
	// names it, else "".
	File string
	// Msg is DuckDB's message without the driver's wrapping or the SQL
	// excerpt, the folder's path left out.
	Msg string
	Err error
}

func (e *DamagedError) Error() string {
	var b strings.Builder
	if e.Context != "" {
		b.WriteString(e.Context + ": ")
	}
	b.WriteString(ErrDamagedData.Error())
	if e.File != "" {
		b.WriteString(" " + e.File)
	}
	b.WriteString(": " + e.Msg)
	if e.notUTF8() {
		b.WriteString(" (a string column holds bytes that are not UTF-8: damage, or a record header key a client wrote as such bytes, which Kafka takes, in a file written before topicsnap stored such keys as bytes)")
	}
	if e.File == "" {
		b.WriteString(" (DuckDB does not say which file: catalog verify names it)")
	}
	return b.String()
}

func (e *DamagedError) Unwrap() []error     { return []error{ErrDamagedData, e.Err} }
func (e *DamagedError) ExitCode() exit.Code { return exit.BadFolder }
func (e *DamagedError) Hint() string {
	if e.notUTF8() {
		return "topicsnap catalog verify --dir DIR: a file it names is damaged (put it back from a backup, or remove its partition folder and dump the partition again while Kafka still has its offsets); " +
			"if it finds every file intact, a record header key is not UTF-8: every record is there and restore produces its exact bytes; query the topic without its header keys (SELECT * EXCLUDE (headers) FROM …); topicsnap catalog compact stores such keys as bytes, readable, in the files it merges"
	}
	return ErrDamagedData.Hint()
}

// notUTF8 reports whether DuckDB refused a string that is not UTF-8: a
// page's bit rot, or a header key as Kafka took it (Kafka keeps a header
// key's bytes; the Java client writes UTF-8, other clients any bytes), which
// catalog verify finds intact.
func (e *DamagedError) notUTF8() bool {
	return strings.Contains(e.Msg, "Invalid string encoding found in Parquet file")
}

// duckTooManyFiles is err as catalog.ErrTooManyFiles (exit 2, the hint to
// raise the limit) when DuckDB could not open a file for the limit of open
// files: its message then ends in the system's "Too many open files" (of
// EMFILE; "... in system" of ENFILE). Nothing is wrong with the folder or
// the query. Only the message's first line is kept: what follows is an
// excerpt of the views' SQL. Any other error is returned as it is.
func duckTooManyFiles(err error) error {
	if err == nil || errors.Is(err, catalog.ErrTooManyFiles) {
		return err
	}
	first, _, _ := strings.Cut(err.Error(), "\n")
	if !strings.Contains(first, "Too many open files") {
		return err
	}
	e := &duckOpenError{msg: driverNoise.ReplaceAllString(strings.TrimSpace(first), ""), errno: syscall.EMFILE}
	if strings.Contains(first, "Too many open files in system") {
		e.errno = syscall.ENFILE
	}
	return store.TooManyFiles(e)
}

// duckOpenError is a DuckDB message of a file it could not open, and the
// errno the message names.
type duckOpenError struct {
	msg   string
	errno syscall.Errno
}

func (e *duckOpenError) Error() string { return e.msg }
func (e *duckOpenError) Unwrap() error { return e.errno }

// isDamagedData reports whether err's message is DuckDB's of a Parquet
// file it could not read.
func isDamagedData(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrDamagedData) {
		return true
	}
	first, _, _ := strings.Cut(err.Error(), "\n")
	return damagedData.MatchString(first)
}

// damagedErr is err as a *DamagedError when DuckDB failed on a damaged
// data file (else err itself): context says what was being done, root is
// the folder whose path a file's name is given relative to ("" keeps it).
func damagedErr(err error, context, root string) error {
	if limit := duckTooManyFiles(err); errors.Is(limit, catalog.ErrTooManyFiles) {
		return limit
	}
	if err == nil || !isDamagedData(err) {
		return err
	}
	var de *DamagedError
	if errors.As(err, &de) {
		if context != "" && de.Context == "" {
			c := *de
			c.Context = context
			return &c
		}
		return err
	}
	msg := strings.TrimSpace(err.Error())
	// The first line only: what follows is the query's excerpt (LINE 4:
	// ... read_parquet([...), the views' SQL, not the user's.
	msg, _, _ = strings.Cut(msg, "\n")
	msg = driverNoise.ReplaceAllString(strings.TrimPrefix(msg, "duckdb: "), "")
	// A wrapping of ours ("create views of T: Invalid Error: ..."): the
	// DuckDB part is what is said.
	if i := strings.Index(msg, " Error: "); i >= 0 {
		msg = msg[i+len(" Error: "):]
	}
	file := ""
	if m := damagedFile.FindStringSubmatch(msg); m != nil {
		file = m[1]
	}
	if root != "" && !catalog.IsURL(root) {
		prefix := filepath.Clean(root) + string(filepath.Separator)
		if abs, err := filepath.Abs(root); err == nil {
			msg = strings.ReplaceAll(msg, abs+string(filepath.Separator), "")
			file = strings.TrimPrefix(file, abs+string(filepath.Separator))
		}
		msg = strings.ReplaceAll(msg, prefix, "")
		file = strings.TrimPrefix(file, prefix)
	} else if root != "" {
		msg = strings.ReplaceAll(msg, strings.TrimSuffix(root, "/")+"/", "")
		file = strings.TrimPrefix(file, strings.TrimSuffix(root, "/")+"/")
	}
	return &DamagedError{Context: context, File: file, Msg: msg, Err: err}
}

// checkDataFile says whether data file name of tp in the folder root
// begins and ends as a Parquet file does (catalog.CheckEnds: "PAR1" at both
// ends and a footer length that fits in the file); with footer, that its
// footer decodes too (catalog.OpenParquet, within catalog.MaxFooterBytes)
// and names the columns every view reads (catalog.CheckColumns).
// A file of the size its manifest recorded that is garbage (rewritten, a
// disk's block of zeroes) would otherwise fail every query of its topic;
// this way it costs its partition, as a file cut short does. The error
// wraps catalog.ErrBadDataFile. Reading the pages is catalog verify's.
func checkDataFile(root string, tp catalog.TopicPartition, name string, footer bool) error {
	return checkDataFileCached(root, tp, name, footer, nil)
}

// checkDataFileCached is checkDataFile that decodes the footer of a file
// fc does not know to have decoded (and records it when it does); fc may
// be nil.
func checkDataFileCached(root string, tp catalog.TopicPartition, name string, footer bool, fc *footerCache) error {
	rel := catalog.RelFilePath(tp, name)
	f, err := folder.OpenRegular(filepath.Join(root, filepath.FromSlash(path.Dir(rel))), name)
	if err != nil {
		if limit := store.TooManyFiles(err); errors.Is(limit, catalog.ErrTooManyFiles) {
			return fmt.Errorf("%s: %w", rel, limit) // the process's limit, not the file's damage
		}
		return fmt.Errorf("%s: %w: %w", rel, catalog.ErrBadDataFile, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w: %w", rel, catalog.ErrBadDataFile, err)
	}
	if footer {
		switch k, ok := fc.key(rel, st); {
		case ok && fc.has(k):
			// Decoded before, unchanged since: its ends and its footer's
			// length within the bound.
			err = catalog.CheckEnds(f, st.Size(), true)
		default:
			var pf *parquet.File
			pf, err = catalog.OpenParquet(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
			if err == nil {
				err = catalog.CheckColumns(pf.Schema())
			}
			if err == nil && ok {
				fc.add(k)
			}
		}
	} else {
		err = catalog.CheckEnds(f, st.Size(), false)
	}
	if err != nil {
		return fmt.Errorf("%s: %w: %w", rel, catalog.ErrBadDataFile, err)
	}
	return nil
}

// checkContents checks every data file m lists (checkDataFile): its ends,
// and its footer decoded (unless fc knows it decoded before). DuckDB reads the footer of every file a query
// scans (and of the first of each view's list when it makes the views): a
// file whose footer does not decode, whichever it is, would fail every
// query of its topic; this way it costs its partition. The error is the
// partition's, as the catalog reports a file cut short.
func checkContents(root string, m *catalog.Manifest, fc *footerCache) *catalog.ManifestError {
	tp := m.TP()
	for _, f := range m.AllFiles() {
		err := checkDataFileCached(root, tp, f.Name, true, fc)
		if err == nil && f.RawHeaderKeys > 0 {
			err = checkKeyRaw(root, tp, f.Name, f.RawHeaderKeys)
		}
		if err != nil {
			rel := catalog.RelFilePath(tp, "manifest.json")
			return &catalog.ManifestError{TP: tp, Path: filepath.Join(root, filepath.FromSlash(rel)), Rel: rel, Err: err, Detail: err.Error()}
		}
	}
	return nil
}

// checkKeyRaw says whether a file whose manifest entry counts header keys
// stored as bytes has the column that holds them: the views of its topic
// name headers.key_raw, and a manifest that says so of a file without it
// (edited, or a file put back from before) failed the build of every view
// of the topic ("Binder Error: Could not find key "key_raw" in struct").
// Its partition is left out, named, as a damaged file's is.
func checkKeyRaw(root string, tp catalog.TopicPartition, name string, n int64) error {
	rel := catalog.RelFilePath(tp, name)
	f, err := folder.OpenRegular(filepath.Join(root, filepath.FromSlash(path.Dir(rel))), name)
	if err != nil {
		if limit := store.TooManyFiles(err); errors.Is(limit, catalog.ErrTooManyFiles) {
			return fmt.Errorf("%s: %w", rel, limit)
		}
		return fmt.Errorf("%s: %w: %w", rel, catalog.ErrBadDataFile, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w: %w", rel, catalog.ErrBadDataFile, err)
	}
	pf, err := catalog.OpenParquet(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
	if err != nil {
		return fmt.Errorf("%s: %w: %w", rel, catalog.ErrBadDataFile, err)
	}
	if _, ok := pf.Schema().Lookup("headers", "list", "element", "key_raw"); !ok {
		return fmt.Errorf("%s: %w: its manifest entry counts %d header keys stored as bytes, and the file has no column headers.key_raw to hold them", rel, catalog.ErrBadDataFile, n)
	}
	return nil
}

// checkAllContents is checkContents of each of ms, on as many cores as
// the process may use (decoding a footer is CPU: ~40 µs a file); the
// error of ms[i] is at [i].
func checkAllContents(root string, ms []*catalog.Manifest, fc *footerCache) []*catalog.ManifestError {
	out := make([]*catalog.ManifestError, len(ms))
	workers := min(runtime.GOMAXPROCS(0), len(ms))
	if workers <= 1 {
		for i, m := range ms {
			out[i] = checkContents(root, m, fc)
		}
		return out
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(ms); i = int(next.Add(1)) - 1 {
				out[i] = checkContents(root, ms[i], fc)
			}
		})
	}
	wg.Wait()
	return out
}
