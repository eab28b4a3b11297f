package segments

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// sink writes one partition's imported rows into committed Parquet files
// with the dump's commit protocol: a file is committed (footer, fsync,
// rename), then the manifest that lists it. Every offset below next is in
// a committed file, in the batch being written, or in a pending lost range
// committed with the next manifest.
type sink struct {
	dir       *catalog.Dir
	id        string
	m         *catalog.Manifest
	fileRows  int
	fileBytes int64
	sum       *Summary

	fw      *catalog.FileWriter
	batch   []catalog.Row
	next    int64
	pending []catalog.LostRange
	changed bool

	source            string
	srcFrom, srcUntil int64
	lostBudget        int
	// unrecorded counts, by kind, the ranges and offsets lost past the
	// manifest's bound of lost ranges: said in the snapshot's note.
	unrecorded map[string]*unrecorded

	// warn, if set, is told of the first timestamp past what a data file
	// holds (catalog.StoredTimestamp).
	warn      func(string)
	farWarned bool

	// lastCommit is when the manifest was last committed: a file
	// committed sooner than manifestEvery after it is listed by the next
	// commit, not one of its own.
	lastCommit time.Time
}

// manifestEvery spaces the manifest's commits: a partition of many small
// segments makes a file of each, and a manifest committed after each one
// is written again whole every time (10,000 one-record segments took 574 s,
// a 5 MiB manifest rewritten 10,000 times). Files committed since the last
// manifest are not listed yet: an import stopped then leaves them as
// leftovers, which the next one removes and reads again.
const manifestEvery = time.Second

// manifestCommits counts the manifests the sinks commit (the tests read it).
var manifestCommits atomic.Int64

const sinkBatchRows = 4096

// lostReserve is what the budget of lost ranges keeps for the kinds an
// import records at most a few times a partition (before the first
// segment, between imports, below the log start): the kinds that repeat
// (compacted, damaged, not-in-file) stop being listed before it.
const lostReserve = 100

// unrecorded is the lost ranges of one kind past the manifest's bound.
type unrecorded struct{ ranges, offsets int64 }

func newSink(dir *catalog.Dir, id string, m *catalog.Manifest, fileRows int, fileBytes int64, sum *Summary) *sink {
	return &sink{dir: dir, id: id, m: m, fileRows: fileRows, fileBytes: fileBytes, sum: sum, next: m.NextOffset,
		lostBudget: catalog.MaxLostRanges - lostReserve - len(m.Lost)}
}

// setSource names where the rows that follow come from; a new source
// starts a new file, so that each manifest entry names one.
func (s *sink) setSource(ctx context.Context, name string, from int64) error {
	if s.source != name {
		if err := s.flush(ctx); err != nil {
			return err
		}
	}
	s.source, s.srcFrom, s.srcUntil = name, from, from
	return nil
}

// lose records offsets from..to as lost; next moves past them.
func (s *sink) lose(kind, reason string, from, to int64) {
	if to < from || to < s.next {
		return
	}
	from = max(from, s.next)
	s.next = to + 1
	s.changed = true
	if n := len(s.pending); n > 0 {
		p := &s.pending[n-1]
		if p.Kind == kind && p.Reason == reason && p.To+1 == from {
			p.To = to
			return
		}
	}
	// A manifest lists at most catalog.MaxLostRanges: past that it does not
	// read, and a commit of it fails (a kcat file of a transactional topic
	// passes over a marker per transaction; a segment can hold a damaged
	// batch every few). Past the budget a range of a repeating kind is
	// counted, and said in the snapshot's note, not listed; any kind once
	// the bound itself is reached.
	repeating := kind == catalog.LostCompacted || kind == catalog.LostDamaged || kind == catalog.LostNotInFile
	if repeating && s.lostBudget <= 0 || len(s.m.Lost)+len(s.pending) >= catalog.MaxLostRanges {
		if s.unrecorded == nil {
			s.unrecorded = map[string]*unrecorded{}
		}
		u := s.unrecorded[kind]
		if u == nil {
			u = &unrecorded{}
			s.unrecorded[kind] = u
			if s.warn != nil && kind != catalog.LostCompacted {
				s.warn(fmt.Sprintf("topic %s partition %d: from offset %d on, %s ranges are counted in the snapshot's note, not listed one by one: the manifest lists at most %d lost ranges (check gaps counts their offsets as missing)",
					s.m.Topic, s.m.Partition, from, kind, catalog.MaxLostRanges))
			}
		}
		u.ranges++
		u.offsets += to - from + 1
		return
	}
	s.lostBudget--
	s.pending = append(s.pending, catalog.LostRange{Kind: kind, Reason: reason, From: from, To: to, DetectedAt: time.Now().UTC(), Snapshot: s.id})
}

// add appends a row at offset next (holes before it already lost), and
// extends the source's byte range to until.
func (s *sink) add(ctx context.Context, r catalog.Row, until int64) error {
	if r.Offset < s.next {
		return fmt.Errorf("offset %d after %d: out of order", r.Offset, s.next-1)
	}
	var clamped bool
	ts := r.Timestamp
	if r.Timestamp, clamped = catalog.StoredTimestamp(ts); clamped && !s.farWarned && s.warn != nil {
		s.farWarned = true
		s.warn(fmt.Sprintf("topic %s partition %d offset %d: timestamp %d ms is further from 1970 than the folder's timestamp column holds (the year 294,247; a producer's nanoseconds taken for milliseconds?), so it is stored as %d, and so are any others of the partition; the record is kept, and restore refuses it",
			s.m.Topic, s.m.Partition, r.Offset, ts, r.Timestamp))
	}
	s.batch = append(s.batch, r)
	s.next = r.Offset + 1
	s.srcUntil = max(s.srcUntil, until)
	s.changed = true
	// A file holds at most fileRows records: the batch goes to it once it
	// fills what the file has room for (--file-rows below a batch rolled
	// nothing before).
	room := s.fileRows
	if s.fw != nil {
		room -= int(s.fw.Rows())
	}
	if len(s.batch) >= min(sinkBatchRows, room) {
		return s.writeBatch(ctx)
	}
	return nil
}

// writeBatch hands the batch to the file, starting one if needed, and
// commits the file once it is full.
func (s *sink) writeBatch(ctx context.Context) error {
	if err := s.writeRows(ctx); err != nil {
		return err
	}
	if s.fw != nil && (s.fw.Rows() >= int64(s.fileRows) || s.fw.DataBytes() >= s.fileBytes) {
		return s.flush(ctx)
	}
	return nil
}

func (s *sink) writeRows(ctx context.Context) error {
	if len(s.batch) == 0 {
		return nil
	}
	if s.fw == nil {
		fw, err := s.dir.NewFileWriter(ctx, s.m.TP(), s.id)
		if err != nil {
			return fmt.Errorf("write %s: %w", s.m.TP(), err)
		}
		s.fw = fw
	}
	if err := s.fw.Write(s.batch); err != nil {
		return err
	}
	clear(s.batch) // drop references into the segment's buffers
	s.batch = s.batch[:0]
	return nil
}

// flush commits the file being written, then the manifest.
func (s *sink) flush(ctx context.Context) error {
	if err := s.writeRows(ctx); err != nil {
		return err
	}
	wrote := false
	if s.fw != nil {
		fe, err := s.fw.Commit(ctx)
		s.fw = nil
		if err != nil {
			return fmt.Errorf("write %s: %w", s.m.TP(), err)
		}
		fe.Source, fe.SourceFrom, fe.SourceUntil = s.source, s.srcFrom, s.srcUntil
		s.srcFrom = s.srcUntil
		s.m.Files = append(s.m.Files, fe)
		s.sum.Files++
		s.sum.Bytes += fe.Bytes
		s.sum.Records += fe.Records
		wrote = true
	}
	if !wrote && len(s.pending) == 0 && s.m.NextOffset >= s.next {
		return nil
	}
	if time.Since(s.lastCommit) < manifestEvery {
		return nil // listed by the next commit (finish makes one)
	}
	return s.commit(ctx, nil)
}

func (s *sink) commit(ctx context.Context, done *catalog.PartitionSnapshot) error {
	m := s.m
	m.NextOffset = max(m.NextOffset, s.next)
	for _, l := range s.pending {
		m.Lost = append(m.Lost, l)
		s.sum.Lost++
		s.sum.LostOffsets += l.To - l.From + 1
	}
	s.pending = nil
	if done != nil {
		m.Snapshots = append(m.Snapshots, *done)
	}
	if err := s.dir.WriteManifest(ctx, m); err != nil {
		return fmt.Errorf("commit manifest of %s: %w", m.TP(), err)
	}
	s.lastCommit = time.Now()
	manifestCommits.Add(1)
	return nil
}

// finish commits what is left and, if this import changed the partition,
// records it as a snapshot of the manifest. An import that found nothing
// new leaves the manifest as it was.
func (s *sink) finish(ctx context.Context, from, logStart int64, imported string) error {
	return s.finishNote(ctx, from, logStart, imported, "")
}

// len is the rows not yet handed to the file.
func (s *sink) len() int { return len(s.batch) }

// finishNote is finish with a note on what the source lacks.
func (s *sink) finishNote(ctx context.Context, from, logStart int64, imported, note string) error {
	if err := s.flush(ctx); err != nil {
		return err
	}
	if !s.changed {
		return nil
	}
	done := &catalog.PartitionSnapshot{ID: s.id, AsOf: time.Now().UTC(), LogStart: logStart, HighWatermark: -1, LastStable: -1,
		From: from, Until: s.next, Complete: true, Imported: imported, Note: note}
	if n := s.unrecordedNote(); n != "" {
		if done.Note != "" {
			done.Note += "; "
		}
		done.Note += n
	}
	s.sum.Partitions++
	return s.commit(ctx, done)
}

// unrecordedNote says the lost ranges past the manifest's bound, by kind.
func (s *sink) unrecordedNote() string {
	var parts []string
	for _, kind := range []string{catalog.LostCompacted, catalog.LostDamaged, catalog.LostNotInFile, catalog.LostBeforeFirst, catalog.LostBetween} {
		u := s.unrecorded[kind]
		if u == nil {
			continue
		}
		what := kind + " ranges"
		if kind == catalog.LostCompacted {
			what = "compacted holes"
		}
		parts = append(parts, fmt.Sprintf("%d more %s (%d offsets)", u.ranges, what, u.offsets))
	}
	if len(parts) == 0 {
		return ""
	}
	return fmt.Sprintf("%s past the bound of %d lost ranges a manifest lists are not recorded one by one", strings.Join(parts, ", "), catalog.MaxLostRanges)
}

// abort drops the file being written (its rows were never listed).
func (s *sink) abort() {
	if s.fw != nil {
		s.fw.Abort()
		s.fw = nil
	}
}
