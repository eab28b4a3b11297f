package catalog

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/parquet-go/parquet-go"
)

// FileWriter streams rows of one topic-partition into a Parquet file under
// a temp name. Rows are copied into the writer's column buffers as they are
// written, so a caller holds only the rows of its current batch; memory is
// bounded by one row group. Commit makes the file durable under the name of
// its offset range; Abort removes it. Neither lists it in a manifest.
type FileWriter struct {
	d    *Dir
	tp   TopicPartition
	f    *os.File
	cw   *countingWriter
	pw   *parquet.GenericWriter[Row]
	tw   *parquet.GenericWriter[TypedRow] // a file of decoded values: with typed columns
	ts   *typedState
	opts []parquet.WriterOption
	fe   FileEntry
	data int64 // bytes of keys, values and headers written
	// rawGroup is the bytes of values writeRaw put in the open row group.
	rawGroup int64
	open     bool
	// lastEpoch is the leader epoch of the last row written.
	lastEpoch int32
}

// SetHistory makes the file one of the given history of the log (see
// FileEntry.History): its entry says so, and Commit names it FileNameIn.
func (w *FileWriter) SetHistory(h int) { w.fe.History = h }

// NewFileWriter starts a data file of tp for the snapshot, with row groups
// of RowGroupRows.
func (d *Dir) NewFileWriter(ctx context.Context, tp TopicPartition, snapshot string) (*FileWriter, error) {
	return d.NewFileWriterRows(ctx, tp, snapshot, RowGroupRows)
}

// NewFileWriterRows is NewFileWriter with another row group size: a
// writer holds one row group in memory, so a dump writing many partitions
// at once chooses smaller groups to stay within its memory budget. A
// group of fewer than 4,096 rows (a file known to be small) also gets
// smaller page buffers (see pageBufferFor).
func (d *Dir) NewFileWriterRows(ctx context.Context, tp TopicPartition, snapshot string, groupRows int) (*FileWriter, error) {
	// In a folder the file is written under a temp name in its
	// partition's folder; for a bucket in local temp space, then uploaded
	// whole by Commit.
	f, err := d.store().TempFile(ctx, RelPartitionDir(tp), tmpPrefix+"data-*.parquet")
	if err != nil {
		return nil, err
	}
	cw := &countingWriter{w: f}
	opts := []parquet.WriterOption{
		parquet.Compression(zstdCodec),
		parquet.MaxRowsPerRowGroup(int64(groupRows)),
		parquet.PageBufferSize(pageBufferFor(groupRows)),
		// Min/max of values and header bytes per page are of no use to a
		// reader (offset, timestamp and key keep theirs) and cost a compare
		// per value; the column index would hold two values per page.
		parquet.SkipPageBounds("value"), parquet.SkipPageStatistics("value"),
		parquet.SkipPageBounds("value_decoded"), parquet.SkipPageStatistics("value_decoded"),
		parquet.SkipPageBounds("key_decoded"), parquet.SkipPageStatistics("key_decoded"),
		parquet.SkipPageBounds("headers", "list", "element", "key"), parquet.SkipPageBounds("headers", "list", "element", "value"),
		parquet.SkipPageStatistics("headers", "list", "element", "key"), parquet.SkipPageStatistics("headers", "list", "element", "value"),
		parquet.CreatedBy("topicsnap", "1", ""),
		parquet.KeyValueMetadata("topicsnap.format_version", fmt.Sprint(FormatVersion)),
		parquet.KeyValueMetadata("topicsnap.topic", tp.Topic),
	}
	// The Parquet writer is made by the first Write (plain rows) or
	// WriteTyped (rows with typed columns).
	return &FileWriter{d: d, tp: tp, f: f, cw: cw, opts: opts, fe: FileEntry{Snapshot: snapshot, FirstOffset: -1}, open: true}, nil
}

// pageBufferFor is the page buffer size of a writer of groupRows rows a
// group: pageBufferSize, or less for a small group (256 bytes a row, at
// least 64 KiB). Every column of a writer allocates and clears one, so a
// file of 50 rows with 1 MiB buffers cost more to start than to write
// (issue 32); a page larger than the buffer is still written whole.
func pageBufferFor(groupRows int) int {
	return min(max(groupRows*256, 64<<10), pageBufferSize)
}

// typedOpts are the typed columns' write options: Snappy by S2's encoder
// like the decoded text they come from, and no page bounds for the text.
func typedOpts() []parquet.WriterOption {
	var o []parquet.WriterOption
	for i := range TypedStrings {
		n := typedName(KindString, i)
		o = append(o, parquet.SkipPageBounds(n), parquet.SkipPageStatistics(n))
	}
	return o
}

// Write appends rows, which must follow the file's rows in offset order.
// The rows' bytes may be reused by the caller once Write returns.
func (w *FileWriter) Write(rows []Row) error {
	return w.WriteTyped(rows, nil, false)
}

// WriteTyped is Write for a writer that decodes values: with typed, the
// file has typed columns (see Typed), filled from each row's decoded text
// where fields (aligned with rows, or nil) says its top-level fields lie.
// The first write decides whether the file has them; a decoded row written
// to a file without them makes its manifest entry say so (Opaque).
func (w *FileWriter) WriteTyped(rows []Row, fields []ValueFields, typed bool) error {
	if len(rows) == 0 {
		return nil
	}
	if w.pw == nil && w.tw == nil {
		if typed {
			w.ts = newTypedState()
			w.tw = parquet.NewGenericWriter[TypedRow](w.cw, append(append([]parquet.WriterOption{typedSchema}, w.opts...), typedOpts()...)...)
		} else {
			w.pw = parquet.NewGenericWriter[Row](w.cw, append([]parquet.WriterOption{schema}, w.opts...)...)
		}
	}
	for i := range rows {
		r := &rows[i]
		if w.fe.FirstOffset < 0 {
			w.fe.FirstOffset = r.Offset
			w.fe.MinTimestamp, w.fe.MaxTimestamp = r.Timestamp, r.Timestamp
		}
		if r.Offset <= w.fe.LastOffset && w.fe.Records > 0 {
			return fmt.Errorf("write %s: offset %d after %d", w.tp, r.Offset, w.fe.LastOffset)
		}
		w.fe.LastOffset = r.Offset
		w.lastEpoch = r.LeaderEpoch
		w.fe.MinTimestamp = min(w.fe.MinTimestamp, r.Timestamp)
		w.fe.MaxTimestamp = max(w.fe.MaxTimestamp, r.Timestamp)
		if r.Control {
			w.fe.ControlRecords++
		}
		if r.TxnState != nil && *r.TxnState == TxnOpen {
			w.fe.OpenTxnRecords++
		}
		// Ids are listed for the values a dump tried to decode (a topic of
		// raw bytes may start values with a zero byte by chance).
		tried := r.ValueDecoded != nil || r.ValueDecodeError != nil
		if tried && r.SchemaID != nil && !slices.Contains(w.fe.SchemaIDs, *r.SchemaID) {
			w.fe.SchemaIDs = append(w.fe.SchemaIDs, *r.SchemaID)
		}
		if r.ValueDecoded != nil {
			w.fe.Decoded++
		}
		if r.ValueDecodeError != nil {
			w.fe.DecodeErrors++
		}
		keyTried := r.KeyDecoded != nil || r.KeyDecodeError != nil
		if keyTried && r.KeySchemaID != nil && !slices.Contains(w.fe.KeySchemaIDs, *r.KeySchemaID) {
			w.fe.KeySchemaIDs = append(w.fe.KeySchemaIDs, *r.KeySchemaID)
		}
		if r.KeyDecoded != nil {
			w.fe.KeysDecoded++
		}
		if r.KeyDecodeError != nil {
			w.fe.KeyDecodeErrors++
		}
		w.data += int64(len(r.Key) + len(r.Value))
		for _, h := range r.Headers {
			w.data += int64(len(h.Key) + len(h.Value))
		}
		w.fe.MaxRecordBytes = max(w.fe.MaxRecordBytes, RecordBytes(r.Key, r.Value, r.Headers))
	}
	w.fe.Records += int64(len(rows))
	rows, raw := storedHeaders(rows)
	w.fe.RawHeaderKeys += raw
	// parquet-go writes a slice of rows one column at a time, each column
	// a pass over every row: rows written a chunk at a time stay in the
	// CPU's cache for all the passes.
	for i := 0; i < len(rows); i += writeChunk {
		j := min(i+writeChunk, len(rows))
		var err error
		if w.tw != nil {
			f := fields[min(i, len(fields)):min(j, len(fields))]
			_, err = w.tw.Write(w.ts.build(rows[i:j], f))
			clear(w.ts.rows) // drop references into the caller's buffers
		} else {
			_, err = w.pw.Write(rows[i:j])
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", w.tp, classify(err))
		}
	}
	return nil
}

// writeRaw appends rows read as Parquet rows from a file of the same
// schema (Row's, or TypedRow's when typed): compaction's copy, which keeps
// every column's value as it was. The caller sets the manifest entry.
func (w *FileWriter) writeRaw(rows []parquet.Row, typed bool) error {
	if w.pw == nil && w.tw == nil {
		if typed {
			w.tw = parquet.NewGenericWriter[TypedRow](w.cw, append(append([]parquet.WriterOption{typedSchema}, w.opts...), typedOpts()...)...)
		} else {
			w.pw = parquet.NewGenericWriter[Row](w.cw, append([]parquet.WriterOption{schema}, w.opts...)...)
		}
	}
	var err error
	if w.tw != nil {
		_, err = w.tw.WriteRows(rows)
	} else {
		_, err = w.pw.WriteRows(rows)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", w.tp, classify(err))
	}
	// A row group is held in memory until it is flushed: rows of large
	// values close it before RowGroupRows.
	for _, r := range rows {
		for _, v := range r {
			if !v.IsNull() && v.Kind() == parquet.ByteArray {
				w.rawGroup += int64(len(v.ByteArray()))
			}
		}
	}
	if w.rawGroup >= rawGroupBytes {
		w.rawGroup = 0
		if w.tw != nil {
			err = w.tw.Flush()
		} else {
			err = w.pw.Flush()
		}
		if err != nil {
			return fmt.Errorf("write %s: %w", w.tp, classify(err))
		}
	}
	return nil
}

// rawGroupBytes closes a row group writeRaw writes once its values hold
// this many bytes (a variable for tests).
var rawGroupBytes int64 = 64 << 20

// writeChunk is how many rows go to parquet-go at a time.
const writeChunk = 1024

// closeParquet writes the footer, and says in the manifest entry what the
// typed columns hold.
func (w *FileWriter) closeParquet() error {
	if w.tw != nil {
		if w.ts != nil { // else writeRaw's caller set it
			w.fe.Typed = w.ts.entry()
		}
		return w.tw.Close()
	}
	if w.pw == nil {
		return nil
	}
	return w.pw.Close()
}

// Rows is the number of rows written so far.
func (w *FileWriter) Rows() int64 { return w.fe.Records }

// DataBytes is the size of the keys, values and headers written so far.
func (w *FileWriter) DataBytes() int64 { return w.data }

// Commit finishes the file: footer, fsync, rename to FIRST-LAST.parquet,
// fsync of the folder (in a bucket: uploaded whole under that name). It returns the entry to list in the manifest.
func (w *FileWriter) Commit(ctx context.Context) (FileEntry, error) {
	if w.fe.Records == 0 {
		w.Abort()
		return FileEntry{}, fmt.Errorf("commit %s: no rows", w.tp)
	}
	tmp := w.f.Name()
	fail := func(what string, err error) (FileEntry, error) {
		w.Abort()
		return FileEntry{}, fmt.Errorf("%s %s: %w", what, tmp, classify(err))
	}
	if err := w.closeParquet(); err != nil {
		return fail("finish", err)
	}
	if err := w.f.Sync(); err != nil {
		return fail("sync", err)
	}
	if err := w.f.Close(); err != nil {
		return fail("close", err)
	}
	w.open = false
	w.fe.Name = FileNameIn(w.fe.FirstOffset, w.fe.LastOffset, w.fe.History)
	epoch := w.lastEpoch
	w.fe.LastLeaderEpoch = &epoch
	w.fe.Bytes = w.cw.n
	w.fe.WrittenAt = time.Now().UTC()
	if err := w.d.store().Place(ctx, tmp, RelFilePath(w.tp, w.fe.Name)); err != nil {
		return FileEntry{}, err
	}
	return w.fe, nil
}

// Abort drops the file.
func (w *FileWriter) Abort() {
	if w.open {
		w.f.Close()
		w.open = false
	}
	os.Remove(w.f.Name())
}
