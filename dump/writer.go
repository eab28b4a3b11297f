package dump

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
)

// Batch sizes of the writer: rows are handed to the Parquet writer (which
// copies them, releasing the fetch buffers they point into) every batchRows,
// unless a transaction in the batch is still open; then the batch waits for
// its marker up to holdRows, and is written with txn_state "open" past that.
const (
	batchRows = 4096
	holdRows  = 64 * 1024
)

// Row groups are buffered in memory, one per partition being written. The
// dump shares rowGroupBudget between its partitions: 1 or 2 partitions get
// the catalog's 128k-row groups, 6 get 43k, 24 get 11k, never fewer than
// minGroupRows. Smaller groups encode as fast and compress as well (see
// BENCHMARKS.md); the budget was 192 MiB until a 5M-record A/B showed 64 MiB
// allocating 15% less, with 35% fewer GCs and a 10% faster dump.
//
// A dump that decodes values holds about 2.5 times the bytes a row: the
// exact bytes, the decoded text and the typed columns, so it gets
// proportionally fewer rows a group. That halved a 5M-record Avro dump's
// collections under the 448 MiB soft limit (87–102 to 51–53) but not its
// CPU; the larger soft limit such a dump gets (cmd/topicsnap) did that
// (BENCHMARKS.md).
const (
	rowGroupBudget       = 64 << 20
	rowBytesGuess        = 256 // a JSON event of ~200 bytes, as the column buffers hold it
	decodedRowBytesGuess = 640 // the same event as Avro, its decoded text and typed columns
	minGroupRows         = 8 * 1024
)

func groupRowsFor(partitions int, decoding bool) int {
	per := rowBytesGuess
	if decoding {
		per = decodedRowBytesGuess
	}
	n := rowGroupBudget / per / max(partitions, 1)
	return min(max(n, minGroupRows), catalog.RowGroupRows)
}

// groupRowsForPlan is rows, or fewer for a partition with fewer offsets
// to read (at least 256): its one row group then needs no more, and its
// writer's page buffers are sized to it (catalog.NewFileWriterRows).
func groupRowsForPlan(pl *plan, rows int) int {
	return int(min(int64(rows), max(pl.until-pl.from, 256)))
}

// writer turns one partition's records into committed Parquet files. It
// runs in its own goroutine; the reader feeds it in offset order. Memory is
// bounded by one batch of rows plus the Parquet writer's row group.
type writer struct {
	d  *dumper
	c  *cut
	pl *plan
	in chan item

	fileRows  int
	fileBytes int64
	bare      bool // the topic's values are bare Avro (--schema TOPIC.avsc)
	groupRows int  // Parquet row group size, from the memory budget

	// reader side only
	finished bool
	readAt   int64
	// stopped is set by the reader side before it closes in, read by the
	// writer after in is closed (the close orders the two): the reading
	// ended before the cut's end (an error, or a batch past the
	// decompression cap), so what was read is committed and the
	// partition is not recorded as dumped to the cut's end.
	stopped bool

	// writer side only
	fw         *catalog.FileWriter // the file being written, nil between files
	batch      []catalog.Row
	fields     []catalog.ValueFields // aligned with batch when the dump decodes: where each value's fields lie
	batchBytes int64
	// decodedBytes: the decoded text (values and keys) of the rows of the
	// file being written, the batch's included. A schema-encoded value's
	// text can be far larger than its bytes (an Avro value of 200 bytes,
	// 16 MiB), so the file rolls on both: sixty such values, counted by
	// their bytes alone, were one file and 6.3 GB of memory.
	decodedBytes int64
	arena        []byte          // the batch's decoded values, back to back (reused once written)
	ids          schemaIDs       // one *int32 per schema id, shared by the rows
	openTxn      map[int64][]int // producer id -> indexes in batch of an unresolved transaction
	next         int64
	pending      []catalog.LostRange
	closeOnce    bool
	complete     bool // this snapshot is recorded in the manifest: the partition reached the cut's end

	farWarned bool // a timestamp past maxStoredMillis was said

	records, bytes, files, lostN, lostOffsets, decoded, decodeErrs *atomic.Int64
	keysDecoded, keyDecodeErrs                                     *atomic.Int64
}

func (w *writer) close() {
	if !w.closeOnce {
		w.closeOnce = true
		close(w.in)
	}
}

// run writes what it is sent until its channel closes. ctx ends the
// reading (the run interrupted, or another writer failed); commitCtx bounds
// the writes to the folder, so that what was read is still committed.
func (w *writer) run(ctx, commitCtx context.Context) (err error) {
	tp := w.pl.tp
	m := w.pl.manifest
	if m.NextOffset < 0 {
		m.NextOffset = w.pl.from
	}
	w.openTxn = map[int64][]int{}
	// A batch holds batchRows rows (a Row is some hundred bytes): a small
	// partition's needs no more than its offsets to read, and append grows
	// one that has more.
	w.batch = make([]catalog.Row, 0, min(int64(batchRows), max(w.pl.until-w.pl.from, 1)))
	w.pending = append(w.pending, w.pl.lost...)
	defer func() {
		if err != nil && w.fw != nil {
			w.fw.Abort()
		}
	}()
	for it := range w.in {
		if ctx.Err() != nil {
			continue // drain; the run is being abandoned
		}
		if it.lost != nil {
			if err := w.flush(commitCtx); err != nil {
				return err
			}
			w.pending = append(w.pending, *it.lost)
			w.next = it.lost.To + 1
			if err := w.commit(commitCtx, nil); err != nil {
				return err
			}
			continue
		}
		var bytes int64
		for _, r := range it.recs {
			bytes += int64(len(r.Key) + len(r.Value))
			w.add(ctx, r)
			var inFile, inFileBytes int64
			if w.fw != nil {
				inFile, inFileBytes = w.fw.Rows(), w.fw.DataBytes()
			}
			full := inFile+int64(len(w.batch)) >= int64(w.fileRows) || inFileBytes+w.batchBytes+w.decodedBytes >= w.fileBytes
			if !full && len(w.batch) < batchRows {
				continue
			}
			if len(w.openTxn) > 0 && len(w.batch) < holdRows {
				continue // wait for the transaction's marker
			}
			if full {
				err = w.flush(commitCtx)
			} else {
				err = w.writeBatch(commitCtx)
			}
			if err != nil {
				return err
			}
		}
		w.records.Add(int64(len(it.recs)))
		if w.d.opts.Progress != nil {
			w.d.opts.Progress.Advance(w.pl.tp, int64(len(it.recs)), bytes)
		}
	}
	// Interrupted or not, commit what was read: work is never thrown away.
	// A partition whose reading stopped short (stopped) commits what it
	// read and no more: its offsets past it are neither stored nor lost,
	// and the next run reads them.
	if ctx.Err() != nil || w.stopped {
		return w.flush(commitCtx)
	}
	// The last file is committed (written, fsynced, renamed, its folder
	// fsynced) here, and listed by the one manifest write below that also
	// records the finished snapshot: one manifest write a partition, not two.
	if err := w.finishFile(commitCtx); err != nil {
		return err
	}
	// The partition reached the cut: the next snapshot starts there, even if
	// the last offsets were holes (compaction) rather than records.
	if w.next < w.pl.until {
		w.next = w.pl.until
	}
	done := &catalog.PartitionSnapshot{
		ID: w.c.id, AsOf: w.c.asOf, LogStart: w.c.starts[tp.Partition], HighWatermark: w.c.ends[tp.Partition],
		LastStable: w.c.stable[tp.Partition], From: w.pl.from, Until: w.pl.until, Complete: true,
		TopicID: w.c.state.TopicID,
	}
	if err := w.commit(commitCtx, done); err != nil {
		return err
	}
	w.complete = true
	if w.d.opts.Progress != nil {
		w.d.opts.Progress.Done(tp)
	}
	return nil
}

func (w *writer) add(ctx context.Context, r *kgo.Record) {
	row := catalog.Row{
		Partition: r.Partition, Offset: r.Offset, Timestamp: w.storedMillis(r),
		TimestampType: catalog.TimestampCreate,
		Key:           r.Key, Value: r.Value,
		LeaderEpoch: r.LeaderEpoch, ProducerID: r.ProducerID, ProducerEpoch: int32(r.ProducerEpoch),
		Transactional: r.Attrs.IsTransactional(), Control: r.Attrs.IsControl(),
	}
	if r.Attrs.TimestampType() == 1 {
		row.TimestampType = catalog.TimestampLogAppend
	}
	if len(r.Headers) > 0 {
		row.Headers = make([]catalog.Header, len(r.Headers))
		for i, h := range r.Headers {
			row.Headers[i] = catalog.Header{Key: h.Key, Value: h.Value}
		}
	}
	switch {
	case row.Control:
	case w.bare:
		// Bare Avro (--schema TOPIC.avsc): no header, so no schema id.
		if row.Value != nil {
			w.decodeBare(ctx, &row)
		}
	default:
		row.SchemaID = w.ids.of(r.Value)
		if row.SchemaID != nil && w.d.res != nil {
			w.decode(ctx, &row)
		}
	}
	// Keys in the wire format (subject TOPIC-key) are decoded as values
	// are, with the same schemas folder, into key_decoded.
	if !row.Control && w.d.res != nil {
		if row.KeySchemaID = w.ids.of(r.Key); row.KeySchemaID != nil {
			w.decodeKey(ctx, &row)
		}
	}
	idx := len(w.batch)
	if w.typed() {
		// The value's fields, for the file's typed columns: where decode
		// left them (it reuses the slot's Spans), or nothing.
		if vf := w.fieldsSlot(); row.ValueDecoded == nil {
			vf.Plan = nil
		}
	}
	switch {
	case row.Control:
		// A control record's key is version int16, type int16: 0 abort, 1 commit.
		kind, state := catalog.ControlAbort, catalog.TxnAborted
		if len(r.Key) >= 4 && binary.BigEndian.Uint16(r.Key[2:4]) == 1 {
			kind, state = catalog.ControlCommit, catalog.TxnCommitted
		}
		row.ControlType, row.TxnState = &kind, &state
		for _, i := range w.openTxn[r.ProducerID] {
			w.batch[i].TxnState = &state
		}
		delete(w.openTxn, r.ProducerID)
	case row.Transactional:
		open := catalog.TxnOpen
		row.TxnState = &open
		w.openTxn[r.ProducerID] = append(w.openTxn[r.ProducerID], idx)
	}
	w.batch = append(w.batch, row)
	w.batchBytes += int64(len(r.Key) + len(r.Value))
	w.decodedBytes += int64(len(row.ValueDecoded) + len(row.KeyDecoded))
}

// decode decodes a wire-format value with its writer schema into
// row.ValueDecoded, or says why not in row.ValueDecodeError. The bytes stay
// in row.Value either way.
func (w *writer) decode(ctx context.Context, row *catalog.Row) {
	// Decoded into the batch's arena: one allocation now and then, not one
	// a value (the Parquet writer copies the rows).
	start := len(w.arena)
	out, _, ok, fail := w.d.res.DecodeFields(ctx, row.Value, w.arena, w.fieldsSlot())
	switch {
	case !ok:
	case fail != nil:
		why := fail.Reason
		row.ValueDecodeError = &why
		w.decodeErrs.Add(1)
	default:
		w.arena = out
		row.ValueDecoded = out[start:len(out):len(out)]
		w.decoded.Add(1)
	}
}

// typed reports whether the files this writer writes have typed columns:
// when the dump decodes values.
func (w *writer) typed() bool { return w.d.res != nil }

// fieldsSlot is the ValueFields of the row being added (the next in the
// batch), its Spans reused from an earlier batch.
func (w *writer) fieldsSlot() *catalog.ValueFields {
	idx := len(w.batch)
	for len(w.fields) <= idx {
		if len(w.fields) < cap(w.fields) {
			w.fields = w.fields[:len(w.fields)+1]
		} else {
			w.fields = append(w.fields, catalog.ValueFields{})
		}
	}
	return &w.fields[idx]
}

// decodeKey decodes a wire-format key with its writer schema into
// row.KeyDecoded, or says why not in row.KeyDecodeError. The bytes stay in
// row.Key either way.
func (w *writer) decodeKey(ctx context.Context, row *catalog.Row) {
	start := len(w.arena)
	out, _, ok, fail := w.d.res.Decode(ctx, row.Key, w.arena)
	switch {
	case !ok:
	case fail != nil:
		why := fail.Reason
		row.KeyDecodeError = &why
		w.keyDecodeErrs.Add(1)
	default:
		w.arena = out
		row.KeyDecoded = out[start:len(out):len(out)]
		w.keysDecoded.Add(1)
	}
}

// decodeBare decodes a bare Avro value with the topic's one schema.
func (w *writer) decodeBare(ctx context.Context, row *catalog.Row) {
	start := len(w.arena)
	out, fail := w.d.res.DecodeBareFields(ctx, w.pl.tp.Topic, row.Value, w.arena, w.fieldsSlot())
	if fail != nil {
		why := fail.Reason
		row.ValueDecodeError = &why
		w.decodeErrs.Add(1)
		return
	}
	w.arena = out
	row.ValueDecoded = out[start:len(out):len(out)]
	w.decoded.Add(1)
}

// writeBatch hands the batch to the file being written, starting one if
// needed. Transactions still open in it keep txn_state "open".
func (w *writer) writeBatch(ctx context.Context) error {
	if len(w.batch) == 0 {
		return nil
	}
	if w.fw == nil {
		fw, err := w.d.dir.NewFileWriterRows(ctx, w.pl.tp, w.c.id, w.groupRows)
		if err != nil {
			return fmt.Errorf("write %s: %w", w.pl.tp, err)
		}
		fw.SetHistory(w.pl.manifest.History())
		w.fw = fw
	}
	var fields []catalog.ValueFields
	typed := false
	if w.typed() {
		fields = w.fields[:len(w.batch)]
		// A file has typed columns when its first batch holds a decoded
		// value: a JSON topic's files are written without them.
		typed = slices.ContainsFunc(w.batch, func(r catalog.Row) bool { return r.ValueDecoded != nil })
	}
	if err := w.fw.WriteTyped(w.batch, fields, typed); err != nil {
		return err
	}
	clear(w.batch) // drop references into the fetch buffers
	w.batch = w.batch[:0]
	for i := range w.fields {
		w.fields[i].Plan = nil // the Spans stay, for reuse
	}
	w.fields = w.fields[:0]
	w.arena = w.arena[:0]
	w.batchBytes = 0
	clear(w.openTxn)
	return nil
}

// flush writes what is buffered, commits the file and the manifest.
func (w *writer) flush(ctx context.Context) error {
	if w.fw == nil && len(w.batch) == 0 {
		return nil
	}
	if err := w.finishFile(ctx); err != nil {
		return err
	}
	return w.commit(ctx, nil)
}

// finishFile writes what is buffered and commits the file (fsynced and
// renamed, its folder fsynced), listing it in the manifest in memory: the
// caller commits the manifest.
func (w *writer) finishFile(ctx context.Context) error {
	if err := w.writeBatch(ctx); err != nil {
		return err
	}
	if w.fw == nil {
		return nil
	}
	fe, err := w.fw.Commit(ctx)
	w.fw = nil
	w.decodedBytes = 0
	if err != nil {
		return fmt.Errorf("write %s: %w", w.pl.tp, err)
	}
	afterRename()
	w.next = fe.LastOffset + 1
	w.pl.manifest.Files = append(w.pl.manifest.Files, fe)
	w.bytes.Add(fe.Bytes)
	w.files.Add(1)
	return nil
}

// afterRename runs between a data file's rename to its final name and the
// manifest write that lists it. A no-op; the kill test widens the window
// so that its kill -9s land inside it too.
var afterRename = func() {}

// commit writes the manifest: files, next offset and lost ranges.
func (w *writer) commit(ctx context.Context, done *catalog.PartitionSnapshot) error {
	m := w.pl.manifest
	m.NextOffset = max(m.NextOffset, w.next)
	for _, l := range w.pending {
		m.Lost = append(m.Lost, l)
		w.lostN.Add(1)
		w.lostOffsets.Add(l.To - l.From + 1)
	}
	w.pending = nil
	if done != nil {
		m.Snapshots = append(m.Snapshots, *done)
	}
	if err := w.d.dir.WriteManifest(ctx, m); err != nil {
		return fmt.Errorf("commit manifest of %s: %w", w.pl.tp, err)
	}
	return nil
}

// storedMillis is r's timestamp as the folder stores it: Kafka's, or for a
// time past catalog.MaxTimestampMillis (a producer's nanoseconds taken for
// milliseconds), the bound on its side, said once a partition: such a
// record is kept, and restore refuses it (it cannot produce it either).
func (w *writer) storedMillis(r *kgo.Record) int64 {
	ms := recordMillis(r.Timestamp)
	stored, clamped := catalog.StoredTimestamp(ms)
	if clamped && !w.farWarned {
		w.farWarned = true
		w.d.warn(fmt.Sprintf("topic %s partition %d offset %d: timestamp %d ms is further from 1970 than the folder's timestamp column holds (the year 294,247; a producer's nanoseconds taken for milliseconds?), so it is stored as %d (%s), and so are any others of the partition; the record is kept, and restore refuses it",
			r.Topic, r.Partition, r.Offset, ms, stored, time.UnixMilli(stored).UTC().Format("2006-01-02")))
	}
	return stored
}

// recordMillis is the timestamp Kafka gave a fetched record, in ms. franz-go
// makes the record's time.Time as time.Unix(0, ms*1e6), which wraps for a
// timestamp before 1677-09-21 or after 2262-04-11 (a producer's microseconds
// taken for milliseconds, year 9999), so UnixMilli of it would store another
// time (9999-12-31 as 1816-03-30). The nanoseconds kept are ms*1e6 modulo
// 2^64: ms*15625 modulo 2^58, from which ms is recovered exactly for any
// timestamp within 2^57 ms (4.5 million years) of 1970.
func recordMillis(t time.Time) int64 {
	n := uint64(t.UnixNano())
	const mask = 1<<58 - 1
	ms := ((n >> 6) * inv15625) & mask
	if ms >= 1<<57 {
		return int64(ms) - 1<<58 // sign-extend the 58 bits
	}
	return int64(ms)
}

// inv15625 is the inverse of 15625 (1e6 / 2^6) modulo 2^64.
var inv15625 = func() uint64 {
	x := uint64(15625) // correct to 3 bits (an odd a is its own inverse mod 8); each step doubles them
	for range 5 {
		x *= 2 - 15625*x
	}
	return x
}()
