package dump

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
)

// writer turns one partition's records into committed Parquet files. It
// runs in its own goroutine; the reader feeds it in offset order.
type writer struct {
	d  *dumper
	c  *cut
	pl *plan
	in chan item

	fileRows  int
	fileBytes int64

	// reader side only
	finished bool
	readAt   int64

	// writer side only
	rows      []catalog.Row
	rowBytes  int64
	openTxn   map[int64][]int // producer id -> indexes in rows of an unresolved transaction
	next      int64
	pending   []catalog.LostRange
	closeOnce bool

	records, bytes, files, lostN, lostOffsets *atomic.Int64
}

func (w *writer) close() {
	if !w.closeOnce {
		w.closeOnce = true
		close(w.in)
	}
}

func (w *writer) run(ctx context.Context) error {
	tp := w.pl.tp
	m := w.pl.manifest
	if m.NextOffset < 0 {
		m.NextOffset = w.pl.from
	}
	w.openTxn = map[int64][]int{}
	w.pending = append(w.pending, w.pl.lost...)
	for it := range w.in {
		if ctx.Err() != nil {
			continue // drain; the run is being abandoned
		}
		if it.lost != nil {
			if err := w.flush(); err != nil {
				return err
			}
			w.pending = append(w.pending, *it.lost)
			w.next = it.lost.To + 1
			if err := w.commit(nil); err != nil {
				return err
			}
			continue
		}
		var bytes int64
		for _, r := range it.recs {
			bytes += int64(len(r.Key) + len(r.Value))
			w.add(r)
			if len(w.rows) >= w.fileRows || w.rowBytes >= w.fileBytes {
				if err := w.flush(); err != nil {
					return err
				}
			}
		}
		w.records.Add(int64(len(it.recs)))
		if w.d.opts.Progress != nil {
			w.d.opts.Progress.Advance(w.pl.tp, int64(len(it.recs)), bytes)
		}
	}
	if ctx.Err() != nil {
		// Interrupted: commit what was read so far, so work is not lost.
		if err := w.flush(); err != nil {
			return err
		}
		return nil
	}
	if err := w.flush(); err != nil {
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
	}
	if err := w.commit(done); err != nil {
		return err
	}
	if w.d.opts.Progress != nil {
		w.d.opts.Progress.Done(tp)
	}
	return nil
}

func (w *writer) add(r *kgo.Record) {
	row := catalog.Row{
		Partition: r.Partition, Offset: r.Offset, Timestamp: r.Timestamp.UnixMilli(),
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
			w.rowBytes += int64(len(h.Key) + len(h.Value))
		}
	}
	w.rowBytes += int64(len(r.Key)+len(r.Value)) + 64
	if !row.Control {
		row.SchemaID = schemaID(r.Value)
	}
	idx := len(w.rows)
	switch {
	case row.Control:
		// A control record's key is version int16, type int16: 0 abort, 1 commit.
		kind, state := catalog.ControlAbort, catalog.TxnAborted
		if len(r.Key) >= 4 && binary.BigEndian.Uint16(r.Key[2:4]) == 1 {
			kind, state = catalog.ControlCommit, catalog.TxnCommitted
		}
		row.ControlType, row.TxnState = &kind, &state
		for _, i := range w.openTxn[r.ProducerID] {
			w.rows[i].TxnState = &state
		}
		delete(w.openTxn, r.ProducerID)
	case row.Transactional:
		open := catalog.TxnOpen
		row.TxnState = &open
		w.openTxn[r.ProducerID] = append(w.openTxn[r.ProducerID], idx)
	}
	if w.rows == nil {
		// Size the buffer once: growing a slice of rows by doubling copies
		// every row again and again.
		w.rows = make([]catalog.Row, 0, min(int64(w.fileRows), max(w.pl.until-w.next, 1)))
	}
	w.rows = append(w.rows, row)
}

// flush writes buffered rows as one file and commits it.
func (w *writer) flush() error {
	if len(w.rows) == 0 {
		return nil
	}
	fe, err := w.d.dir.WriteDataFile(w.pl.tp, w.rows, w.c.id)
	if err != nil {
		return fmt.Errorf("write %s: %w", w.pl.tp, err)
	}
	w.next = w.rows[len(w.rows)-1].Offset + 1
	w.pl.manifest.Files = append(w.pl.manifest.Files, fe)
	w.rows = nil
	w.rowBytes = 0
	clear(w.openTxn)
	w.bytes.Add(fe.Bytes)
	w.files.Add(1)
	return w.commit(nil)
}

// commit writes the manifest: files, next offset and lost ranges.
func (w *writer) commit(done *catalog.PartitionSnapshot) error {
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
	if err := w.d.dir.WriteManifest(m); err != nil {
		return fmt.Errorf("commit manifest of %s: %w", w.pl.tp, err)
	}
	return nil
}
