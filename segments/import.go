package segments

import (
	"context"
	"errors"
	"fmt"
	"github.com/topicsnap/topicsnap/internal/exit"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// Options of one import.
type Options struct {
	Dir    string           // the snapshot folder, or s3://bucket/prefix
	S3     catalog.S3Config // how to reach Dir when it is a bucket
	Paths  []string         // log directories, partition folders, .log files
	Topics []string         // if set, only these topics' partitions are imported
	// OpenBucket reaches the bucket of an s3:// PATH (nil: such PATHs
	// are refused).
	OpenBucket OpenBucket
	Limits     Limits
	FileRows   int   // roll a file after this many rows (default 512k)
	FileBytes  int64 // or this many bytes of keys, values and headers (default 48 MiB)
	// Warn, if set, is told what was left out or could not be read.
	Warn func(string)
}

// Summary of one import.
type Summary struct {
	Partitions  int // partitions the import changed
	Records     int64
	Files       int
	Bytes       int64
	Lost        int
	LostOffsets int64
	Damaged     int // batches that could not be read
	Unmatched   int // lines of a kcat -f file that did not match its format
	BadLines    int // lines of a kcat -J file that did not read
	// NotAdded counts records the segments hold that the folder lacks
	// (lost ranges) below a partition's next offset: not imported.
	NotAdded int64
	Elapsed  time.Duration
}

func (s Summary) String() string {
	rate := 0.0
	if s.Elapsed > 0 {
		rate = float64(s.Records) / s.Elapsed.Seconds()
	}
	out := fmt.Sprintf("imported %d records in %d files into %d partitions in %.1fs, %.0f records/s, %d lost ranges (%d offsets)",
		s.Records, s.Files, s.Partitions, s.Elapsed.Seconds(), rate, s.Lost, s.LostOffsets)
	if s.Damaged > 0 {
		out += fmt.Sprintf(", %d damaged batches (lost ranges of kind damaged say where and why)", s.Damaged)
	}
	if s.NotAdded > 0 {
		out += fmt.Sprintf(", %d records the folder records lost below its partitions' next offsets left out (an import adds after a partition's last offset; the warnings say where)", s.NotAdded)
	}
	if s.BadLines > 0 {
		out += fmt.Sprintf(", %d lines that did not read as kcat -C -J (not imported; the warnings name the first)", s.BadLines)
	}
	if s.Unmatched > 0 {
		out += fmt.Sprintf(", %d lines that did not match the format (not imported; the warnings name the first)", s.Unmatched)
	}
	switch {
	case s.Partitions == 0 && s.NotAdded > 0:
	case s.Partitions == 0 && s.Damaged > 0:
		out += " (nothing readable that was not imported before; the warnings name each damaged batch)"
	case s.Partitions == 0:
		out += " (nothing new: every offset was already imported)"
	}
	return out
}

func (o *Options) defaults() {
	if o.FileRows <= 0 {
		o.FileRows = 512 * 1024
	}
	if o.FileBytes <= 0 {
		o.FileBytes = 48 << 20
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
}

// Import reads the segment files under opts.Paths into opts.Dir, as a dump
// of the same partitions would have written them. It resumes from each
// partition's manifest: offsets already there are skipped, so importing
// the same segments again changes nothing and newer segments continue
// where the last import ended.
func Import(ctx context.Context, opts Options) (Summary, error) {
	start := time.Now()
	opts.defaults()
	var sum Summary
	parts, err := resolve(ctx, opts.Paths, opts.Topics, opts.OpenBucket, opts.Warn)
	if err != nil {
		return sum, err
	}
	if len(parts) == 0 && len(opts.Topics) > 0 {
		return sum, exit.Errorf(ErrBadInput, "no segment file of topic %s under %s", strings.Join(opts.Topics, ", "), strings.Join(opts.Paths, ", "))
	}
	if len(parts) == 0 {
		return sum, exit.Errorf(ErrBadInput, "no segment file under %s", strings.Join(opts.Paths, ", "))
	}
	if err := catalog.CheckCreateAt(ctx, opts.Dir, opts.S3); err != nil {
		return sum, err
	}
	dir, err := catalog.CreateAt(ctx, opts.Dir, opts.S3)
	if err != nil {
		return sum, err
	}
	tps := make([]catalog.TopicPartition, 0, len(parts))
	for tp := range parts {
		tps = append(tps, tp)
	}
	slices.SortFunc(tps, func(a, b catalog.TopicPartition) int {
		if c := strings.Compare(a.Topic, b.Topic); c != 0 {
			return c
		}
		return int(a.Partition - b.Partition)
	})
	starts := readLogStarts(parts, opts.Warn)
	id := catalog.NewSnapshotID(start)
	var damaged []error // partitions whose manifest does not read
	for _, tp := range tps {
		if err := ctx.Err(); err != nil {
			sum.Elapsed = time.Since(start)
			return sum, err
		}
		if err := importPartition(ctx, dir, id, tp, parts[tp], starts[tp], opts, &sum); err != nil {
			if costsPartition(err) {
				// It costs that partition: the others are imported.
				warnNotImported(opts.Warn, err, tp, damaged)
				damaged = append(damaged, err)
				continue
			}
			sum.Elapsed = time.Since(start)
			return sum, err
		}
	}
	sum.Elapsed = time.Since(start)
	return sum, notImported(damaged)
}

// costsPartition reports whether err costs its partition only, the others
// imported: a manifest that does not read, or the limit of open files
// reached when the partition's lock or manifest was opened.
func costsPartition(err error) bool {
	var me *catalog.ManifestError
	return errors.As(err, &me) || errors.Is(err, catalog.ErrTooManyFiles)
}

// warnNotImported says that tp is not imported, for err; of the partitions
// not imported for the limit of open files, only the first is named (the
// same cause, the same fix), the end's error counts them.
func warnNotImported(warn func(string), err error, tp catalog.TopicPartition, before []error) {
	if errors.Is(err, catalog.ErrTooManyFiles) {
		if slices.ContainsFunc(before, func(e error) bool { return errors.Is(e, catalog.ErrTooManyFiles) }) {
			return
		}
		warn(fmt.Sprintf("%v; partition %s not imported, nor the others this import cannot open files for (counted at the end)", err, tp))
		return
	}
	warn(fmt.Sprintf("%v; partition %s not imported", err, tp))
}

// notImported is the error of an import some of whose partitions were not
// imported (errs, in partition order), nil if none: it names how many, why,
// and the first. Damage comes first (exit 9): a limit of open files
// reached (exit 2) is fixed by running again with a higher one.
func notImported(errs []error) error {
	if len(errs) == 0 {
		return nil
	}
	var first, firstLimit error
	limited := 0
	for _, e := range errs {
		if errors.Is(e, catalog.ErrTooManyFiles) {
			limited++
			if firstLimit == nil {
				firstLimit = e
			}
		} else if first == nil {
			first = e
		}
	}
	damaged := len(errs) - limited
	switch {
	case limited == 0 && damaged == 1:
		return first
	case limited == 0:
		return fmt.Errorf("%d partitions not imported, their manifests damaged (the warnings name each); the first: %w", damaged, first)
	case damaged == 0:
		return fmt.Errorf("%d %s not imported: the limit of open files was reached (those imported are committed; run again with a higher limit to import the rest); the first: %w", limited, plural(limited, "partition", "partitions"), firstLimit)
	}
	return fmt.Errorf("%d partitions not imported: %d for the limit of open files (%v), %d with their manifests damaged (the warnings name each); the first damaged: %w", len(errs), limited, firstLimit, damaged, first)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// marker is a transaction marker found by the first pass.
type marker struct {
	offset int64
	commit bool
}

// txnStates says the fate of a transactional record: from the aborted
// transactions of the .txnindex files, else from the first marker of its
// producer after it, else open (its marker is not in what was imported).
type txnStates struct {
	markers map[int64][]marker     // producer id -> markers in offset order
	aborted map[int64][]AbortedTxn // producer id -> aborted transactions
}

func (t *txnStates) state(pid, off int64) string {
	as := t.aborted[pid] // sorted by First, not overlapping
	if i := sort.Search(len(as), func(i int) bool { return as[i].First > off }); i > 0 && off <= as[i-1].Last {
		return catalog.TxnAborted
	}
	ms := t.markers[pid]
	i := sort.Search(len(ms), func(i int) bool { return ms[i].offset >= off })
	if i == len(ms) {
		return catalog.TxnOpen
	}
	if ms[i].commit {
		return catalog.TxnCommitted
	}
	return catalog.TxnAborted
}

// importPartition imports one partition's segments. Offsets below ls, the
// log start its log directory's checkpoint recorded, are lost (deleted),
// not imported, though their records may still be on disk.
func importPartition(ctx context.Context, dir *catalog.Dir, id string, tp catalog.TopicPartition, segs []segFile, ls logStart, opts Options, sum *Summary) (err error) {
	lock, err := dir.LockPartition(ctx, tp)
	if err != nil {
		return lockErr(err, tp)
	}
	defer lock.Unlock()
	m, err := dir.ReadManifest(ctx, tp)
	if err != nil {
		return err
	}
	if _, err := dir.CleanPartition(ctx, m); err != nil {
		return err
	}
	txn, err := firstPass(ctx, segs, opts)
	if err != nil {
		return err
	}
	s := newSink(dir, id, m, opts.FileRows, opts.FileBytes, sum)
	s.warn = opts.Warn
	defer func() {
		if err != nil {
			s.abort()
		}
	}()
	from := m.NextOffset
	logStart := int64(-1)
	notAdded := int64(0) // records the folder lacks, below its next offset
	damagedBefore := sum.Damaged
	first := true      // no new batch yet in this run
	var damage *Damage // the first damage not yet followed by a good batch
	var damageAt string
	var damageBase int64 // the base offset of damageAt
	// damageTo is the last offset the headers of the damages since damage
	// claim, while each claims the offsets after the one before it; -1
	// when one does not.
	damageTo := int64(-1)
	loseDamage := func(upTo int64) {
		if damage == nil {
			return
		}
		s.lose(catalog.LostDamaged, fmt.Sprintf("%s, %s", damageAt, damage.Error()), s.next, upTo)
		damage = nil
	}
	for si, seg := range segs {
		nextBase, hasNext := nextInFolder(segs, si)
		if s.next >= 0 && hasNext && nextBase <= s.next && damage == nil {
			continue // every offset it may hold was imported before
		}
		r, f, err := seg.fs.open(seg.path)
		if err != nil {
			return err
		}
		sc := NewScanner(r, seg.size, opts.Limits)
		if err := s.setSource(ctx, seg.path, 0); err != nil {
			f.Close()
			return err
		}
		prevLast := int64(-1) // the last offset of the file's previous batch
		for {
			if err := ctx.Err(); err != nil {
				f.Close()
				return err
			}
			sc.SkipBelow = max(s.next, ls.offset)
			sc.Lacking = func(base, last int64) bool { return lacking(m.Lost, base, last) >= 0 }
			b, d, rerr := sc.Next()
			if errors.Is(rerr, io.EOF) {
				break
			}
			if rerr != nil {
				f.Close()
				return readErr(seg.path, rerr)
			}
			if d != nil {
				sum.Damaged++
				opts.Warn(fmt.Sprintf("%s: %s", seg.path, d.Error()))
				switch {
				case damage == nil:
					damage, damageAt, damageBase = d, seg.path, seg.base
					damageTo = -1
					if d.From >= 0 && d.To >= d.From {
						damageTo = d.To
					}
				case damageTo >= 0 && d.From == damageTo+1 && d.To >= d.From:
					damageTo = d.To
				default:
					damageTo = -1
				}
				continue
			}
			if hasNext && b.LastOffset >= nextBase {
				// A segment holds the offsets below its folder's next one's
				// base: a batch claiming more (its header's last offset is
				// under its CRC, not under any check of Kafka's) would have
				// the next segment's records taken for imported before.
				if b.BaseOffset >= nextBase {
					opts.Warn(fmt.Sprintf("%s: bytes %d-%d: a batch of offsets %d-%d, at or past the base offset %d of the folder's next segment: not imported (the next segment holds those offsets)",
						seg.path, b.Pos, b.Pos+b.Size-1, b.BaseOffset, b.LastOffset, nextBase))
					continue
				}
				kept := b.Records[:0:0]
				for _, r := range b.Records {
					if r.Offset < nextBase {
						kept = append(kept, r)
					}
				}
				opts.Warn(fmt.Sprintf("%s: bytes %d-%d: a batch of offsets %d-%d, past the base offset %d of the folder's next segment: read up to offset %d (%d of its records past it not imported)",
					seg.path, b.Pos, b.Pos+b.Size-1, b.BaseOffset, b.LastOffset, nextBase, nextBase-1, len(b.Records)-len(kept)))
				b.Records, b.LastOffset = kept, nextBase-1
			}
			if b.LastOffset <= prevLast {
				// Kafka's offsets only grow within a segment: a batch
				// that goes back is not Kafka's log, and is not read.
				opts.Warn(fmt.Sprintf("%s: bytes %d-%d: a batch of offsets %d-%d after offset %d in the same file: the offsets go back, so it is not imported (what it holds is not compared with what was)",
					seg.path, b.Pos, b.Pos+b.Size-1, b.BaseOffset, b.LastOffset, prevLast))
				continue
			}
			prevLast = b.LastOffset
			if b.LastOffset < s.next || b.LastOffset < ls.offset {
				// Imported before, or below the log start; but a record the
				// folder lacks (a lost range says so) cannot be added below
				// its next offset: said, never passed over without a word.
				for _, r := range b.Records {
					if r.Offset < s.next {
						if i := lacking(m.Lost, r.Offset, r.Offset); i >= 0 {
							notAdded++
							if notAdded == 1 {
								l := m.Lost[i]
								opts.Warn(fmt.Sprintf("%s: offset %d (and any others the folder lacks below its next offset %d: the summary counts them) is in this segment, but the folder records it lost (%s %d-%d) and holds later offsets, so it is not imported: an import adds after a partition's last offset; import these segments into another folder to read them",
									seg.path, r.Offset, s.next, l.Kind, l.From, l.To))
							}
						}
					}
				}
				damage = nil
				continue
			}
			if logStart < 0 {
				logStart = max(b.BaseOffset, ls.offset)
			}
			// A segment's name is its base offset: the offsets from there
			// to its first batch were in it (compacted away, or damaged);
			// those before it were not imported.
			segStart := min(seg.base, b.BaseOffset)
			if s.next < 0 && damage != nil {
				// A damaged segment before it: its offsets were damaged,
				// not before the first segment.
				segStart = min(segStart, damageBase)
			}
			// Offsets below the log start the broker recorded are deleted,
			// as a dump of the broker would have found them: lost ranges of
			// the dump's kinds, with the checkpoint as their reason, though
			// their records may still be on disk (this batch's below it too:
			// addBatch leaves out what lies below next).
			switch {
			case s.next < 0 && ls.offset > segStart:
				s.next = 0
				s.lose(catalog.LostBeforeFirst, ls.reason(), 0, ls.offset-1)
				from = ls.offset
			case s.next >= 0 && ls.offset > s.next:
				s.lose(catalog.LostBetween, ls.reason(), s.next, ls.offset-1)
			}
			if s.next < 0 {
				// The partition's first import.
				s.next = 0
				s.lose(catalog.LostBeforeFirst, "before the first segment imported", 0, segStart-1)
				from = segStart
			} else if first && segStart > s.next && damage == nil {
				s.lose(catalog.LostBetween, "not in the imported segments (deleted since the last import, or not given)", s.next, segStart-1)
			}
			if b.BaseOffset > s.next {
				if damage != nil {
					loseDamage(b.BaseOffset - 1)
				} else {
					s.lose(catalog.LostCompacted, "", s.next, b.BaseOffset-1)
				}
			}
			damage = nil
			first = false
			if err := addBatch(ctx, s, tp, b, txn); err != nil {
				f.Close()
				return err
			}
		}
		f.Close()
		// A damaged tail of a segment with a later one: the offsets up to
		// that segment's base were in it.
		if damage != nil && hasNext && s.next >= 0 {
			loseDamage(nextBase - 1)
		}
		if err := s.flush(ctx); err != nil {
			return err
		}
	}
	if damage != nil && s.next < 0 && damage.From == damageBase && damage.To >= damage.From {
		// Not one batch read, on a first import: offsets from the damaged
		// segment's base on were in it (as below).
		s.next = 0
		s.lose(catalog.LostBeforeFirst, "before the first segment imported", 0, damageBase-1)
		from, logStart = damageBase, damageBase
	}
	if damage != nil && s.next >= 0 && damage.From == s.next && damage.To >= damage.From && max(damageTo, damage.To)-damage.From < 1<<31 {
		// The last batches are damaged: their headers' offsets, unchecked,
		// are the best there is (the first's alone when a later one's do
		// not follow from it).
		if damageTo < 0 {
			opts.Warn(fmt.Sprintf("%s: the damaged batches after %s claim offsets that do not follow from it: they are unknown, so the lost range recorded ends at %d", damageAt, damage.Error(), damage.To))
		}
		loseDamage(max(damageTo, damage.To))
	} else if damage != nil {
		opts.Warn(fmt.Sprintf("%s: %s: the offsets it held are unknown, so no lost range is recorded for it", damageAt, damage.Error()))
	}
	// Every batch on disk lies below the log start (a DeleteRecords up to
	// the high watermark): all of it deleted.
	switch {
	case s.next < 0 && ls.offset > 0:
		s.next = 0
		s.lose(catalog.LostBeforeFirst, ls.reason(), 0, ls.offset-1)
		from, logStart = ls.offset, ls.offset
	case s.next >= 0 && ls.offset > s.next:
		s.lose(catalog.LostBetween, ls.reason(), s.next, ls.offset-1)
	}
	if first && damage == nil && sum.Damaged == damagedBefore {
		// No new batch, none damaged: a partition whose records retention
		// deleted keeps an empty active segment named by the log end
		// offset. The offsets below it were not in what was imported.
		switch end := segs[len(segs)-1].base; {
		case s.next < 0 && end > 0:
			s.next = 0
			s.lose(catalog.LostBeforeFirst, fmt.Sprintf("before the first segment imported (its segments hold no record; the last is named by offset %d)", end), 0, end-1)
			from, logStart = end, end
		case s.next >= 0 && end > s.next:
			s.lose(catalog.LostBetween, "not in the imported segments (deleted since the last import, or not given)", s.next, end-1)
		}
	}
	sum.NotAdded += notAdded
	if s.next < 0 {
		return nil // nothing readable at all
	}
	return s.finish(ctx, from, logStart, "segments")
}

// lacking is the index of a lost range of ls (sorted, apart) that the
// folder could hold records of, overlapping base..last; -1 when none. The
// cleaner's holes (compacted) and the offsets below a broker's log start
// (deleted) hold none by their nature, so they are not counted.
func lacking(ls []catalog.LostRange, base, last int64) int {
	i := sort.Search(len(ls), func(i int) bool { return ls[i].To >= base })
	for ; i < len(ls) && ls[i].From <= last; i++ {
		if ls[i].Kind != catalog.LostCompacted && !strings.HasPrefix(ls[i].Reason, "deleted:") {
			return i
		}
	}
	return -1
}

// nextInFolder is the base offset of the segment after segs[i] in its own
// folder: the offsets segs[i] may hold end below it. Another folder's
// segments of the partition (another broker's replica) say nothing of
// where this one's end.
func nextInFolder(segs []segFile, i int) (int64, bool) {
	dir := segs[i].fs.dir(segs[i].path)
	for _, n := range segs[i+1:] {
		if n.fs == segs[i].fs && n.fs.dir(n.path) == dir {
			return n.base, true
		}
	}
	return 0, false
}

// addBatch turns a batch's records into rows; holes inside the batch (the
// cleaner removed records) are compacted.
func addBatch(ctx context.Context, s *sink, tp catalog.TopicPartition, b *Batch, txn *txnStates) error {
	tsType := catalog.TimestampCreate
	switch {
	case b.NoTimestamp:
		tsType = catalog.TimestampNone
	case b.LogAppendTime:
		tsType = catalog.TimestampLogAppend
	}
	for _, r := range b.Records {
		if r.Offset < s.next {
			continue
		}
		s.lose(catalog.LostCompacted, "", s.next, r.Offset-1)
		row := catalog.Row{
			Partition: tp.Partition, Offset: r.Offset, Timestamp: r.Timestamp, TimestampType: tsType,
			Key: r.Key, Value: r.Value, LeaderEpoch: b.LeaderEpoch, ProducerID: b.ProducerID, ProducerEpoch: int32(b.ProducerEpoch),
			Transactional: b.Transactional, Control: b.Control,
		}
		if len(r.Headers) > 0 {
			row.Headers = make([]catalog.Header, len(r.Headers))
			for i, h := range r.Headers {
				row.Headers[i] = catalog.Header{Key: h.Key, Value: h.Value}
			}
		}
		switch {
		case b.Control && b.ControlType >= 0:
			kind, state := catalog.ControlAbort, catalog.TxnAborted
			if b.ControlType == ControlCommit {
				kind, state = catalog.ControlCommit, catalog.TxnCommitted
			}
			row.ControlType, row.TxnState = &kind, &state
		case b.Transactional && !b.Control:
			st := txn.state(b.ProducerID, r.Offset)
			row.TxnState = &st
		}
		if err := s.add(ctx, row, b.Pos+b.Size); err != nil {
			return fmt.Errorf("%s: %w", tp, err)
		}
	}
	s.lose(catalog.LostCompacted, "", s.next, b.LastOffset)
	s.srcUntil = max(s.srcUntil, b.Pos+b.Size)
	return nil
}

// firstPass reads the markers of every segment (headers only for data
// batches) and the aborted transactions of their .txnindex files.
func firstPass(ctx context.Context, segs []segFile, opts Options) (*txnStates, error) {
	t := &txnStates{markers: map[int64][]marker{}, aborted: map[int64][]AbortedTxn{}}
	for _, seg := range segs {
		r, f, err := seg.fs.open(seg.path)
		if err != nil {
			return nil, err
		}
		sc := NewScanner(r, seg.size, opts.Limits)
		sc.HeadersOnly = true
		for ctx.Err() == nil {
			b, _, err := sc.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				f.Close()
				return nil, readErr(seg.path, err)
			}
			if b != nil && b.Control && b.ControlType >= 0 {
				t.markers[b.ProducerID] = append(t.markers[b.ProducerID], marker{b.BaseOffset, b.ControlType == ControlCommit})
			}
		}
		f.Close()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		idx := strings.TrimSuffix(seg.path, ".log") + ".txnindex"
		raw, err := seg.fs.readFile(idx, MaxTxnIndexBytes)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			opts.Warn(fmt.Sprintf("%s: %v; the markers in the segments decide alone", idx, err))
			continue
		}
		es, tail, err := ParseTxnIndex(raw)
		if err != nil {
			opts.Warn(fmt.Sprintf("%s: %v; the markers in the segments decide alone", idx, err))
			continue
		}
		if tail != "" {
			opts.Warn(fmt.Sprintf("%s: %s", idx, tail))
		}
		for _, e := range es {
			t.aborted[e.ProducerID] = append(t.aborted[e.ProducerID], e)
		}
	}
	for _, as := range t.aborted {
		slices.SortFunc(as, func(a, b AbortedTxn) int { return cmpInt(a.First, b.First) })
	}
	// The index and the markers must agree: an aborted transaction's
	// marker (at its last offset) is an abort.
	for pid, as := range t.aborted {
		for _, a := range as {
			ms := t.markers[pid]
			i := sort.Search(len(ms), func(i int) bool { return ms[i].offset >= a.Last })
			if i < len(ms) && ms[i].offset == a.Last && ms[i].commit {
				opts.Warn(fmt.Sprintf("producer %d: the transaction index says %d-%d aborted, its marker at %d says commit; marked aborted, as the index says", pid, a.First, a.Last, a.Last))
			}
		}
	}
	return t, nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// lockErr is the error of taking tp's lock: locked by another writer says
// so, any other cause (a limit of open files, a bad lock file) is its own.
func lockErr(err error, tp catalog.TopicPartition) error {
	if errors.Is(err, catalog.ErrLocked) {
		return fmt.Errorf("%w (another topicsnap is writing %s; wait for it)", err, tp)
	}
	return fmt.Errorf("lock %s: %w", tp, err)
}
