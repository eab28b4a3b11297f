package restore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/internal/suggest"
)

// source is what the snapshot folder knows of the topic to restore.
type source struct {
	manifests  []*catalog.Manifest
	partitions int // partition count at the newest cut
	snap       *catalog.ClusterSnapshot
}

func readSource(ctx context.Context, dir *catalog.Dir, topic string) (*source, error) {
	tm, err := dir.ReadTopic(ctx, topic)
	if err != nil {
		return nil, err
	}
	if err := tm.Err(); err != nil {
		return nil, err
	}
	if len(tm.Manifests) == 0 {
		msg := fmt.Sprintf("%s holds no snapshot of topic %q", dir.Path, topic)
		names, _ := dir.Topics(ctx)
		if slices.Contains(names, topic) {
			// Its folder, made by a dump that wrote nothing of it: not
			// "did you mean" the very name.
			return nil, fmt.Errorf("%w: %s: %s", ErrNotInCatalog, msg, catalog.NoManifest)
		}
		if len(names) > 0 {
			if c := suggest.Closest(topic, names); c != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", c)
			} else {
				msg += fmt.Sprintf(" (it holds %s)", strings.Join(names, ", "))
			}
		}
		return nil, fmt.Errorf("%w: %s", ErrNotInCatalog, msg)
	}
	s := &source{manifests: tm.Manifests}
	snaps, err := dir.ClusterSnapshotsOf(ctx, []string{topic})
	if err != nil {
		return nil, err
	}
	for _, cs := range snaps { // oldest first: the last one wins
		if cs.Topic == topic {
			s.snap = cs
		}
	}
	// A cut lists every partition of the topic: a partition count its
	// own list does not bear out (an edited file) would create the target
	// with as many partitions as it says, up to a million.
	if cs := s.snap; cs != nil && len(cs.Partitions) > 0 && cs.PartitionCount != len(cs.Partitions) {
		return nil, exit.With(fmt.Errorf("cluster snapshot damaged: %s: it says topic %s had %d partitions and lists %d; restore creates its target with the cut's partition count, so it refuses one that contradicts itself",
			"snapshots/topic="+topic+"/"+cs.ID+".json", topic, cs.PartitionCount, len(cs.Partitions)),
			exit.BadFolder, "put the cluster snapshot back from a backup, or move it out of the folder: the target is then created with the partitions the data files name (catalog verify does not compare the count with the list)")
	}
	// A partition the topic no longer has (deleted and made again with
	// fewer) holds only the old topic's history, superseded whole: it is
	// not restored, and the target needs no such partition.
	s.manifests = slices.DeleteFunc(slices.Clone(tm.Manifests), func(m *catalog.Manifest) bool {
		return s.snap != nil && int(m.Partition) >= s.snap.PartitionCount && gone(m)
	})
	for _, m := range s.manifests {
		s.partitions = max(s.partitions, int(m.Partition)+1)
	}
	if s.snap != nil {
		s.partitions = max(s.partitions, s.snap.PartitionCount)
	}
	if len(s.manifests) == 0 {
		return nil, fmt.Errorf("%w: %s holds only superseded history of topic %q (deleted and made again with fewer partitions)", ErrNotInCatalog, dir.Path, topic)
	}
	return s, nil
}

// gone reports whether m holds nothing of its topic's current history: the
// topic was made again and every file of the partition is superseded.
func gone(m *catalog.Manifest) bool {
	if len(m.Files) > 0 || len(m.Lost) > 0 {
		return false
	}
	for _, r := range m.Rewrites {
		if r.Kind == catalog.RewriteRecreated {
			return true
		}
	}
	return false
}

// offsetAtTime is, as Kafka's offsets-for-times, the offset of the first
// stored data record whose timestamp is t or later; the end of the stored
// data if none is.
func offsetAtTime(ctx context.Context, dir *catalog.Dir, m *catalog.Manifest, t time.Time) (int64, error) {
	ms := t.UnixMilli()
	errFound := errors.New("found")
	for _, f := range m.Files {
		if f.MaxTimestamp < ms {
			continue
		}
		var at int64
		err := removedUnder(ctx, dir, m.TP(), f.Name, scanFile(ctx, dir.FilePath(m.TP(), f.Name), 4096, nil, func(rows []catalog.Row) error {
			for i := range rows {
				if !rows[i].Control && rows[i].Timestamp >= ms { // a marker has the time it was written
					at = rows[i].Offset
					return errFound
				}
			}
			return nil
		}))
		if errors.Is(err, errFound) {
			return at, nil
		}
		if err != nil {
			return 0, err
		}
	}
	return m.NextOffset, nil
}

// columns are the columns of a data file restore reads: what a
// produced record is made of (partition, key, value, headers, timestamp)
// and what decides whether it is produced (offset, is_control, txn_state,
// producer_id for catalog.Committed). The others (decoded values, epochs,
// schema ids, ...) are not read at all.
var columns = []string{"partition", "offset", "timestamp", "key", "value", "headers", "producer_id", "is_control", "txn_state"}

// scanPlan reads the partition's planned range and calls emit with each
// batch of records to produce and the next source offset after it (-1:
// none), and done with the file's rows (as its manifest counts them) on
// the last batch of each file it reads (which may be empty). It counts what it leaves out, and stops at a transaction still
// open. Every row it reads is held to its file's manifest entry
// (catalog.RowCheck) before anything of its batch is emitted: a file that
// contradicts it ends the scan with a *catalog.RowError before the file's
// done. Before it hands over a file's first batch it enters gate (nil:
// none), so no transaction commits part of a file not yet read through.
//
// With a pool (nil: none), each batch's records and the chunks their keys
// and values are copied into come from it, and emit gets them as mem
// (nil for a batch of no records), to give back (mem.release) when the
// producer no longer holds any of its records; without one, mem is nil
// and everything is allocated afresh.
func scanPlan(ctx context.Context, dir *catalog.Dir, pl *plan, to string, gate *fileGate, pool *memPool, emit func(recs []*kgo.Record, mem *batchMem, next int64, done bool, fileRows int64) error) error {
	p := pl.part
	if p.From >= p.Until {
		return nil
	}
	// cur is the memory the batch being read is copied into.
	var cur *batchMem
	var alloc func(int) []byte
	if pool != nil {
		cur = pool.get()
		defer func() { cur.release() }()
		alloc = func(n int) []byte { return cur.chunk(n) }
	}
	errStop := errors.New("stop")
	part := pl.m.Partition // the folder's, never a row's column
	for _, f := range pl.m.Files {
		if f.LastOffset < p.From || f.FirstOffset >= p.Until {
			continue
		}
		if err := gate.enter(ctx, f.Records); err != nil {
			return err
		}
		check := catalog.NewRowCheck(pl.m.TP(), f)
		err := removedUnder(ctx, dir, pl.m.TP(), f.Name, scanFile(ctx, dir.FilePath(pl.m.TP(), f.Name), scanBatch, alloc, func(rows []catalog.Row) error {
			// One allocation for the batch's records (or the pool's), one
			// for their headers: the producer holds them until they are
			// acknowledged.
			var recs []*kgo.Record
			var slab []kgo.Record
			mem := cur
			if mem != nil {
				recs, slab = mem.records(len(rows))
			} else {
				recs, slab = make([]*kgo.Record, 0, len(rows)), make([]kgo.Record, len(rows))
			}
			nh := 0
			for i := range rows {
				nh += len(rows[i].Headers)
			}
			hslab := make([]kgo.RecordHeader, nh)
			next := int64(-1)
			past := false // a row at or after p.Until: the rest is not read
			for i := range rows {
				row := &rows[i]
				if err := check.Row(row.Partition, row.Offset); err != nil {
					return err
				}
				if err := check.Record(row.Timestamp, row.Key, row.Value, row.Headers); err != nil {
					return err
				}
				if row.Offset < p.From {
					continue
				}
				if row.Offset >= p.Until {
					past = true
					break
				}
				ok, decided := catalog.Committed(row, pl.markers)
				if !decided {
					p.OpenAt = row.Offset
					break
				}
				next = row.Offset + 1
				switch {
				case row.Control:
					p.Markers++
					continue
				case !ok:
					p.Aborted++
					continue
				}
				r := &slab[len(recs)]
				*r = kgo.Record{Topic: to, Partition: part, Offset: row.Offset, Key: row.Key, Value: row.Value, Timestamp: time.UnixMilli(row.Timestamp)}
				if n := len(row.Headers); n > 0 {
					r.Headers, hslab = hslab[:n:n], hslab[n:]
					for j, h := range row.Headers {
						r.Headers[j] = kgo.RecordHeader{Key: h.Key, Value: h.Value}
					}
				}
				recs = append(recs, r)
				p.Records++
				p.Bytes += int64(len(row.Key) + len(row.Value))
			}
			if mem != nil {
				// The next batch is copied into other memory; this one's
				// goes with its records, or back at once if it has none.
				cur = pool.get()
				if len(recs) == 0 {
					mem.release()
					mem = nil
				} else {
					mem.hold(len(recs))
				}
			}
			if next >= 0 {
				if err := emit(recs, mem, next, false, 0); err != nil {
					mem.release()
					return err
				}
			} else {
				mem.release()
			}
			if past || p.OpenAt >= 0 || next >= p.Until {
				return errStop
			}
			return nil
		}))
		stopped := errors.Is(err, errStop)
		if err == nil || stopped && check.AtEnd() {
			// Read to its end: its last offset and row count.
			if err := check.End(); err != nil {
				return err
			}
		}
		if err != nil && !stopped {
			return err
		}
		if err := emit(nil, nil, -1, true, f.Records); err != nil {
			return err
		}
		if stopped {
			return nil
		}
	}
	return nil
}

// removedUnder is err, unless err is data file name of tp missing and the
// partition's manifest, read again, no longer lists it: a catalog compact
// merged and removed it after this restore read the manifest (its --grace
// shorter than the restore), which is not a damaged folder but
// ErrSourceChanged.
func removedUnder(ctx context.Context, dir *catalog.Dir, tp catalog.TopicPartition, name string, err error) error {
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		return err
	}
	m, rerr := dir.ReadManifest(ctx, tp)
	if rerr != nil {
		return err
	}
	for _, f := range m.AllFiles() {
		if f.Name == name {
			return err // still listed: missing, the folder is damaged
		}
	}
	return fmt.Errorf("%w: data file %s of %s was removed after this restore read its manifest (a catalog compact merged it into another); nothing of it was committed",
		ErrSourceChanged, catalog.RelFilePath(tp, name), tp)
}

// fnError is an error fn of scanFile returned: its own, not the file's.
type fnError struct{ err error }

func (e *fnError) Error() string { return e.err.Error() }
func (e *fnError) Unwrap() error { return e.err }

// scanFile reads the restored columns of the data file at path in
// batches of batch rows and calls fn with each (the rows are reused). A
// file whose bytes are not the Parquet they should be (a page whose CRC32
// does not match, a footer that does not decode: bit rot, a file rewritten)
// is a damaged folder, as a file cut short is: the error wraps
// catalog.ErrBadDataFile (exit 9, catalog verify). fn's own errors and a
// cancelled ctx come back as they are.
func scanFile(ctx context.Context, path string, batch int, alloc func(int) []byte, fn func([]catalog.Row) error) error {
	err := catalog.ScanDataFileColumnsInto(ctx, path, batch, columns, alloc, func(rows []catalog.Row) error {
		if err := fn(rows); err != nil {
			return &fnError{err}
		}
		return nil
	})
	var fe *fnError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &fe):
		return fe.err
	case ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)),
		errors.Is(err, catalog.ErrBadDataFile), errors.Is(err, os.ErrPermission):
		return err
	}
	return fmt.Errorf("%w: %w", err, catalog.ErrBadDataFile)
}
