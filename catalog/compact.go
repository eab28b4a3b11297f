package catalog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/parquet-go/parquet-go"

	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/internal/suggest"
)

// Compaction: a partition's small committed files merged into large ones.
//
// A nightly dump of a quiet partition commits one small file a night, and a
// year of them is hundreds of files that every query opens. Compact merges
// runs of consecutive small files into files of up to a target size, under
// the same promises as the dump:
//
//   - It holds the partition's lock (a dump of the same partition waits
//     for it, or it skips a partition a dump holds).
//   - The merged file is written by the dump's FileWriter (same schema,
//     codecs, row groups, page options), its rows copied as Parquet rows
//     column by column from the old files, so every column every row had
//     (offsets, keys, values, headers, nulls, timestamps, markers, the
//     txn_state a file was written with, decoded and typed columns) is
//     kept bit for bit. It is renamed into place (or uploaded whole), and
//     its partition and offset columns read back against its entry
//     (CheckRows) before anything lists it.
//   - One manifest write (temp, fsync, rename, fsync folder; a conditional
//     PUT in a bucket) replaces the old entries by the merged one. Lost
//     ranges, snapshots and next offset are kept as they are.
//   - Only then are the old files removed, or, with a grace period, listed
//     in the manifest as retired (Manifest.Retired) and removed by a later
//     compact once the grace has passed, so that a reader which read the
//     old manifest still finds the files it lists. A dump's cleaning
//     (CleanPartition) leaves retired files alone.
//
// A kill at any instant leaves either the old manifest (the merged file,
// if it was renamed, is an unlisted leftover the next dump or compact
// removes) or the new one (the old files are unlisted or retired, never
// read again); no offset is lost or stored twice.
//
// What a run may hold: consecutive files of the manifest, each smaller
// than the target and written at least MinAge ago, with the same Parquet
// schema as the dump writes today (a file of an older layout is left as
// it is) and the same typed-column map (FileEntry.Typed), with no lost
// range between two of them. The merged file's snapshot id is that of the
// last file of its run: which offsets each snapshot dumped is the
// manifest's Snapshots (From, Until), not the files', and nothing reads
// a file's snapshot id but the files table, which lists files.

// DefaultCompactTarget is compact's target size of a merged file.
const DefaultCompactTarget = 128 << 20

// CompactOptions say what Compact merges.
type CompactOptions struct {
	// Topics to compact; none: every topic of the folder.
	Topics []string
	// Partitions to compact (nil: all).
	Partitions map[int32]bool
	// TargetBytes is the largest merged file (by the sum of its inputs'
	// sizes); a file this large or larger is left alone.
	TargetBytes int64
	// MinAge: files written less than this long ago are left alone.
	MinAge time.Duration
	// Grace: old files are kept (listed as retired) this long after the
	// manifest stopped listing them, for readers that read the manifest
	// before; 0 removes them as soon as the new manifest is committed.
	Grace time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// CompactStats say what Compact did.
type CompactStats struct {
	Partitions  int   // partitions looked at
	FilesBefore int   // files listed before
	FilesAfter  int   // files listed after
	Merged      int   // old files replaced by merged ones
	Written     int   // merged files written
	BytesIn     int64 // bytes of the old files merged
	BytesOut    int64 // bytes of the merged files
	Removed     int   // old (or leftover) files deleted
	Retired     int   // old files kept for the grace period
	// Imported: small files left as they are because an import wrote
	// them (their entry names their source, which a merged one could not).
	Imported int
	// Skipped names partitions left alone and why (locked by a dump, a
	// damaged manifest, files of an older layout).
	Skipped []string
}

// compactPause is called between compact's steps (a test's kill window).
var compactPause = func(stage string) {}

// Compact merges small files of the chosen partitions; see above. A
// partition a dump holds is skipped and named in Skipped. A partition
// whose lock file is not a regular file (ErrBadLock), whose manifest is
// damaged (ManifestError) or a data file of which does not read as its
// entry says (ErrBadDataFile), and a topic that cannot be read (its folder a link, a
// file or a FIFO: FolderError; a listing that fails; a topic named in
// o.Topics the folder does not hold: ErrNoTopic) are skipped and named
// too, the others are compacted, and the error returned at the end wraps
// each; any other error (a full disk, an interrupt) stops the whole run.
func (d *Dir) Compact(ctx context.Context, o CompactOptions) (CompactStats, error) {
	var st CompactStats
	var bad []error // partitions and topics not compacted, each named
	var badTopics int
	if o.TargetBytes <= 0 {
		o.TargetBytes = DefaultCompactTarget
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	held, unread, err := d.TopicFolders(ctx)
	if err != nil {
		return st, err
	}
	notRead := map[string]*FolderError{}
	for _, fe := range unread {
		notRead[fe.Topic] = fe
	}
	topics := o.Topics
	if len(topics) == 0 {
		topics = slices.Clone(held)
		for _, fe := range unread {
			topics = append(topics, fe.Topic)
		}
	}
	skipTopic := func(topic string, err error) {
		if fe, ok := err.(*FolderError); ok {
			st.Skipped = append(st.Skipped, fe.Error()) // names topic=T
		} else {
			st.Skipped = append(st.Skipped, fmt.Sprintf("topic %s: %v", topic, err))
		}
		bad = append(bad, fmt.Errorf("compact topic %s: %w", topic, err))
		badTopics++
	}
	for _, topic := range topics {
		if fe := notRead[topic]; fe != nil {
			skipTopic(topic, fe)
			continue
		}
		if !slices.Contains(held, topic) {
			msg := fmt.Sprintf("the folder holds no topic %q", topic)
			if c := suggest.Closest(topic, held); c != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", c)
			}
			skipTopic(topic, exit.Errorf(ErrNoTopic, "%s", msg))
			continue
		}
		tm, err := d.ReadTopic(ctx, topic)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return st, cerr
			}
			// Costs this topic, named; the others are compacted.
			skipTopic(topic, err)
			continue
		}
		if len(tm.Manifests) == 0 && len(tm.Damaged) == 0 && len(o.Topics) > 0 {
			// Named, and a folder a dump wrote nothing in: no topic of the
			// folder (ls, sql, check say so), not "0 partitions" compacted.
			skipTopic(topic, exit.Errorf(ErrNoTopic, "the folder holds no topic %q: %s", topic, NoManifest))
			continue
		}
		for _, me := range tm.Damaged {
			if o.Partitions == nil || o.Partitions[me.TP.Partition] {
				// Costs this partition, named; the others are compacted,
				// and the run fails at the end (exit 9): a nightly
				// compact does not hide a damaged folder behind exit 0.
				st.Skipped = append(st.Skipped, me.Error())
				bad = append(bad, fmt.Errorf("compact %s: %w", me.TP, me))
			}
		}
		for _, m := range tm.Manifests {
			if o.Partitions != nil && !o.Partitions[m.Partition] {
				continue
			}
			if err := ctx.Err(); err != nil {
				return st, err
			}
			if err := d.compactPartition(ctx, m.TP(), o, &st); err != nil {
				if errors.Is(err, ErrLocked) {
					st.Skipped = append(st.Skipped, fmt.Sprintf("%s: locked by a dump or another compact (run compact again once it is done)", m.TP()))
					continue
				}
				if errors.Is(err, ErrBadLock) || errors.Is(err, ErrBadDataFile) || errors.As(err, new(*ManifestError)) {
					// Costs this partition, named; the others are
					// compacted, and the run still fails at the end.
					st.Skipped = append(st.Skipped, fmt.Sprintf("%s: %v", m.TP(), err))
					bad = append(bad, fmt.Errorf("compact %s: %w", m.TP(), err))
					continue
				}
				return st, fmt.Errorf("compact %s: %w", m.TP(), err)
			}
		}
	}
	if len(bad) > 0 {
		var n []string
		if badTopics > 0 {
			n = append(n, count(badTopics, "topic"))
		}
		if parts := len(bad) - badTopics; parts > 0 {
			n = append(n, count(parts, "partition"))
		}
		return st, fmt.Errorf("%s not compacted, the others were: %w", strings.Join(n, " and "), errors.Join(bad...))
	}
	return st, nil
}

// count is "1 topic", "2 topics".
func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// CompactHeld compacts partitions whose locks the caller holds: a
// --follow dump, which holds its partitions' locks for its whole run,
// compacts them between rounds with it. The merge, its commit protocol and
// what a kill leaves are Compact's; only the lock is the caller's.
func (d *Dir) CompactHeld(ctx context.Context, tps []TopicPartition, o CompactOptions) (CompactStats, error) {
	var st CompactStats
	if o.TargetBytes <= 0 {
		o.TargetBytes = DefaultCompactTarget
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	for _, tp := range tps {
		if err := ctx.Err(); err != nil {
			return st, err
		}
		if err := d.compactLocked(ctx, tp, o, &st); err != nil {
			return st, fmt.Errorf("compact %s: %w", tp, err)
		}
	}
	return st, nil
}

// compactPartition compacts one partition under its lock.
func (d *Dir) compactPartition(ctx context.Context, tp TopicPartition, o CompactOptions, st *CompactStats) error {
	l, err := d.LockPartition(ctx, tp)
	if err != nil {
		return err
	}
	defer l.Unlock()
	return d.compactLocked(ctx, tp, o, st)
}

// compactLocked compacts one partition whose lock is held.
func (d *Dir) compactLocked(ctx context.Context, tp TopicPartition, o CompactOptions, st *CompactStats) error {
	m, err := d.ReadManifest(ctx, tp) // under the lock: what a dump may have committed since
	if err != nil {
		var me *ManifestError
		if errors.As(err, &me) {
			st.Skipped = append(st.Skipped, me.Error())
			return nil
		}
		return err
	}
	st.Partitions++
	st.FilesBefore += len(m.Files)
	// What is listed when it ends, whether it ends done or not: a compact
	// stopped (a full disk, a kill's next run) says the files that stand.
	defer func() {
		st.FilesAfter += len(m.Files)
		st.Retired += len(m.Retired)
	}()
	now := o.Now().UTC()
	// Leftovers of a killed dump or compact: a merged file never listed,
	// temp files, old files a killed compact had not yet removed.
	removed, err := d.CleanPartition(ctx, m)
	if err != nil {
		return err
	}
	st.Removed += len(removed)
	compactPause("cleaned")

	// Retired files whose grace has passed go first: out of the manifest,
	// then off the disk.
	var keep, expired []RetiredFile
	for _, r := range m.Retired {
		if now.Sub(r.RetiredAt) >= o.Grace {
			expired = append(expired, r)
		} else {
			keep = append(keep, r)
		}
	}
	if len(expired) > 0 {
		nm := *m
		nm.Retired = keep
		var names []string
		for _, r := range expired {
			names = append(names, r.Name)
		}
		if err := d.commitCompacted(ctx, tp, &nm, names, st); err != nil {
			return err
		}
		m = &nm
	}
	// Then each run, merged, committed and its old files retired or
	// removed before the next: a kill keeps the runs done.
	runs := compactRuns(m, o, now)
	for _, f := range m.Files {
		if f.Source != "" && f.Bytes < o.TargetBytes && now.Sub(f.WrittenAt) >= o.MinAge {
			st.Imported++
		}
	}
	var done []FileEntry // the files of the runs before the current one, as now listed
	for i, run := range runs {
		if len(run) < 2 {
			done = append(done, run...)
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		fe, why, err := d.mergeFiles(ctx, tp, run)
		if err != nil {
			return err
		}
		if why != "" {
			st.Skipped = append(st.Skipped, fmt.Sprintf("%s: files %s to %s left as they are: %s", tp, run[0].Name, run[len(run)-1].Name, why))
			done = append(done, run...)
			continue
		}
		nm := *m
		nm.Files = slices.Concat(done, []FileEntry{fe}, slices.Concat(runs[i+1:]...))
		nm.Retired = slices.Clone(m.Retired)
		var drop []string
		for _, f := range run {
			if o.Grace > 0 {
				nm.Retired = append(nm.Retired, RetiredFile{Name: f.Name, RetiredAt: now})
			} else {
				drop = append(drop, f.Name)
			}
		}
		if err := d.commitCompacted(ctx, tp, &nm, drop, st); err != nil {
			return err
		}
		m = &nm
		done = append(done, fe)
		st.Written++
		st.Merged += len(run)
		st.BytesOut += fe.Bytes
		for _, f := range run {
			st.BytesIn += f.Bytes
		}
	}
	return nil
}

// commitCompacted commits nm, then removes the data files drop names
// (those nm lists aside: a listed file is never removed).
func (d *Dir) commitCompacted(ctx context.Context, tp TopicPartition, nm *Manifest, drop []string, st *CompactStats) error {
	compactPause("written")
	if err := d.WriteManifest(ctx, nm); err != nil {
		return err
	}
	compactPause("committed")
	listed := map[string]bool{}
	for _, f := range nm.Files {
		listed[f.Name] = true
	}
	for _, name := range drop {
		if listed[name] {
			continue
		}
		if err := d.removeData(ctx, tp, name); err != nil {
			return err
		}
		st.Removed++
		compactPause("removed")
	}
	return nil
}

// compactRuns splits m's files into runs: consecutive files that may be
// merged together (see the package comment), each of one file when it
// may not.
func compactRuns(m *Manifest, o CompactOptions, now time.Time) [][]FileEntry {
	var runs [][]FileEntry
	var cur []FileEntry
	var size int64
	flush := func() {
		if len(cur) > 0 {
			runs = append(runs, cur)
		}
		cur, size = nil, 0
	}
	// An imported file keeps its source (a segment file's name and range)
	// in its entry, which a merged entry could not: it is left as it is.
	small := func(f FileEntry) bool {
		return f.Bytes < o.TargetBytes && now.Sub(f.WrittenAt) >= o.MinAge && f.Source == ""
	}
	for _, f := range m.Files {
		if !small(f) {
			flush()
			runs = append(runs, []FileEntry{f})
			continue
		}
		if len(cur) > 0 {
			prev := cur[len(cur)-1]
			if size+f.Bytes > o.TargetBytes || !reflect.DeepEqual(prev.Typed, f.Typed) || prev.History != f.History ||
				lostBetween(m.Lost, prev.LastOffset, f.FirstOffset) {
				flush()
			}
		}
		cur = append(cur, f)
		size += f.Bytes
	}
	flush()
	return runs
}

// lostBetween reports whether a lost range lies between offsets a and b.
func lostBetween(lost []LostRange, a, b int64) bool {
	for _, l := range lost {
		if l.To > a && l.From < b {
			return true
		}
	}
	return false
}

// mergeFiles writes run's rows into one new committed file and returns its
// entry, or why the run is left as it is (a file of another layout).
func (d *Dir) mergeFiles(ctx context.Context, tp TopicPartition, run []FileEntry) (FileEntry, string, error) {
	typed := run[0].Typed != nil
	want := schema
	if typed {
		want = typedSchema
	}
	w, err := d.NewFileWriter(ctx, tp, run[len(run)-1].Snapshot)
	if err != nil {
		return FileEntry{}, "", err
	}
	done := false
	defer func() {
		if !done {
			w.Abort()
		}
	}()
	buf := make([]parquet.Row, 1024)
	var moved int64 // header keys an older file held as text that are not UTF-8
	for _, fe := range run {
		why, err := d.copyRows(ctx, tp, fe, want, typed, w, buf, &moved)
		if err != nil || why != "" {
			return FileEntry{}, why, err
		}
	}
	w.fe = mergedEntry(run)
	w.fe.RawHeaderKeys += moved
	done = true
	fe, err := w.Commit(ctx)
	if err != nil {
		return FileEntry{}, "", err
	}
	// The leader epoch of the last row is the last file's (the next dump
	// compares it with the log's to notice a rewrite).
	fe.LastLeaderEpoch = run[len(run)-1].LastLeaderEpoch
	compactPause("merged")
	// Read the merged file's rows back against its entry before any
	// manifest lists it.
	if err := d.checkRowsOf(ctx, tp, fe); err != nil {
		d.removeData(ctx, tp, fe.Name)
		return FileEntry{}, "", fmt.Errorf("merged file %s does not read back as written: %w", fe.Name, err)
	}
	return fe, "", nil
}

// copyRows copies the rows of file fe into w, as Parquet rows; why is set
// when its schema is not want.
func (d *Dir) copyRows(ctx context.Context, tp TopicPartition, fe FileEntry, want *parquet.Schema, typed bool, w *FileWriter, buf []parquet.Row, moved *int64) (why string, err error) {
	f, cleanup, err := d.localData(ctx, tp, fe)
	if err != nil {
		return "", err
	}
	defer cleanup()
	// A file that does not read as its entry says costs its partition
	// (ErrBadDataFile), not the run: the others are compacted.
	pf, err := OpenParquet(f, fe.Bytes)
	if err != nil {
		if errors.Is(err, ErrBadDataFile) {
			return "", fmt.Errorf("read %s: %w", RelFilePath(tp, fe.Name), err)
		}
		return "", fmt.Errorf("read %s: %w: %w", RelFilePath(tp, fe.Name), ErrBadDataFile, err)
	}
	if pf.NumRows() != fe.Records {
		return "", fmt.Errorf("read %s: %w: %d rows, its manifest says %d (run catalog verify)", RelFilePath(tp, fe.Name), ErrBadDataFile, pf.NumRows(), fe.Records)
	}
	var conv *beforeKeyRaw
	if !parquet.EqualNodes(pf.Schema(), want) {
		if conv = newBeforeKeyRaw(pf.Schema(), want); conv == nil {
			return fmt.Sprintf("%s has another layout than the files this build writes", fe.Name), nil
		}
	}
	for _, rg := range pf.RowGroups() {
		rows := rg.Rows()
		for {
			if err := ctx.Err(); err != nil {
				rows.Close()
				return "", err
			}
			n, rerr := rows.ReadRows(buf)
			if n > 0 && conv != nil {
				*moved += conv.convert(buf[:n])
			}
			if n > 0 {
				if err := w.writeRaw(buf[:n], typed); err != nil {
					rows.Close()
					return "", err
				}
			}
			if errors.Is(rerr, io.EOF) {
				break
			}
			if rerr != nil {
				rows.Close()
				return "", fmt.Errorf("read %s: %w: %w", RelFilePath(tp, fe.Name), ErrBadDataFile, rerr)
			}
		}
		rows.Close()
	}
	return "", nil
}

// beforeKeyRaw converts the Parquet rows of a file written before header
// keys that are not UTF-8 were stored as bytes (Header.KeyRaw) to the
// layout this build writes: its leaves are today's but key_raw, which
// every header of such a file has null (its key is in "key", whatever its
// bytes), and a key that is not UTF-8 (which DuckDB refuses in "key") is
// moved to key_raw, as FileWriter stores it: such a file's topic becomes
// readable in SQL once compacted. Without it, compaction left every run
// with such a file as it was ("another layout"), in every folder dumped
// before.
type beforeKeyRaw struct {
	key, keyRaw int // the headers' key leaf and where key_raw goes, in today's layout
}

// newBeforeKeyRaw is the conversion from a file's schema to want, nil
// when the file's layout is not want's without key_raw.
func newBeforeKeyRaw(file, want *parquet.Schema) *beforeKeyRaw {
	wc, fc := want.Columns(), file.Columns()
	raw, ok := want.Lookup("headers", "list", "element", "key_raw")
	key, ok2 := want.Lookup("headers", "list", "element", "key")
	if !ok || !ok2 || len(fc) != len(wc)-1 || raw.ColumnIndex != key.ColumnIndex+2 {
		return nil
	}
	for i, c := range fc {
		j := i
		if i >= raw.ColumnIndex {
			j++
		}
		if !slices.Equal(c, wc[j]) {
			return nil
		}
		l, _ := file.Lookup(c...)
		w, _ := want.Lookup(wc[j]...)
		if !parquet.EqualNodes(l.Node, w.Node) || l.MaxDefinitionLevel != w.MaxDefinitionLevel || l.MaxRepetitionLevel != w.MaxRepetitionLevel {
			return nil
		}
	}
	return &beforeKeyRaw{key: key.ColumnIndex, keyRaw: raw.ColumnIndex}
}

// convert rewrites rows in place: beside each header key level a key_raw
// level with the same repetition and definition levels (a null in the
// element, or the empty list's), or, of a key that is not UTF-8, its bytes
// there and an empty key (moved counts these); the columns after it one
// further on.
func (c *beforeKeyRaw) convert(rows []parquet.Row) (moved int64) {
	for i, r := range rows {
		out := make(parquet.Row, 0, len(r)+4)
		var keys []int // where each key level is in out
		raws := func() {
			for _, at := range keys {
				k := out[at]
				raw := parquet.Value{}.Level(k.RepetitionLevel(), k.DefinitionLevel(), c.keyRaw)
				if !k.IsNull() && !utf8.Valid(k.ByteArray()) {
					raw = parquet.ByteArrayValue(k.ByteArray()).Level(k.RepetitionLevel(), k.DefinitionLevel()+1, c.keyRaw)
					out[at] = parquet.ByteArrayValue(nil).Level(k.RepetitionLevel(), k.DefinitionLevel(), c.key)
					moved++
				}
				out = append(out, raw)
			}
			keys = nil
		}
		for _, v := range r {
			col := v.Column()
			if col >= c.keyRaw {
				raws()
				v = v.Level(v.RepetitionLevel(), v.DefinitionLevel(), col+1)
			}
			if col == c.key {
				keys = append(keys, len(out))
			}
			out = append(out, v)
		}
		raws() // no column after key_raw (not Row's layout)
		rows[i] = out
	}
	return moved
}

// localData opens a committed file for reading at random: in a folder the
// file itself, from a bucket a local temp copy removed by cleanup.
func (d *Dir) localData(ctx context.Context, tp TopicPartition, fe FileEntry) (*os.File, func(), error) {
	r, err := d.store().Open(ctx, RelFilePath(tp, fe.Name))
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", RelFilePath(tp, fe.Name), err)
	}
	if f, ok := r.(*os.File); ok {
		return f, func() { f.Close() }, nil
	}
	defer r.Close()
	tmp, err := os.CreateTemp("", tmpPrefix+"compact-*.parquet")
	if err != nil {
		return nil, nil, fmt.Errorf("create temp file: %w", classify(err))
	}
	cleanup := func() { tmp.Close(); os.Remove(tmp.Name()) }
	n, err := io.Copy(tmp, io.LimitReader(r, fe.Bytes+1))
	if err == nil && n != fe.Bytes {
		err = fmt.Errorf("%d bytes, its manifest says %d (run catalog verify)", n, fe.Bytes)
	}
	if err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("read %s: %w", d.FilePath(tp, fe.Name), err)
	}
	return tmp, cleanup, nil
}

// checkRowsOf holds a committed file's rows to its entry (CheckRows).
func (d *Dir) checkRowsOf(ctx context.Context, tp TopicPartition, fe FileEntry) error {
	f, cleanup, err := d.localData(ctx, tp, fe)
	if err != nil {
		return err
	}
	defer cleanup()
	if err := checkParquet(f, fe.Bytes, fe); err != nil {
		return err
	}
	return checkRowsAt(ctx, fe.Name, f, fe.Bytes, tp, fe)
}

// removeData deletes a data file of tp (gone already is fine).
func (d *Dir) removeData(ctx context.Context, tp TopicPartition, name string) error {
	if err := d.store().Delete(ctx, RelFilePath(tp, name)); err != nil {
		return fmt.Errorf("remove %s: %w", RelFilePath(tp, name), err)
	}
	return nil
}

// mergedEntry is the manifest entry of run's files merged: its range,
// their counts summed, their schema ids in order met. Name, Bytes and
// WrittenAt are Commit's.
func mergedEntry(run []FileEntry) FileEntry {
	first, last := run[0], run[len(run)-1]
	fe := FileEntry{FirstOffset: first.FirstOffset, LastOffset: last.LastOffset,
		MinTimestamp: first.MinTimestamp, MaxTimestamp: first.MaxTimestamp,
		Snapshot: last.Snapshot, Typed: first.Typed, History: first.History}
	for _, f := range run {
		fe.Records += f.Records
		fe.ControlRecords += f.ControlRecords
		fe.OpenTxnRecords += f.OpenTxnRecords
		fe.RawHeaderKeys += f.RawHeaderKeys
		fe.MinTimestamp = min(fe.MinTimestamp, f.MinTimestamp)
		fe.MaxTimestamp = max(fe.MaxTimestamp, f.MaxTimestamp)
		fe.Decoded += f.Decoded
		fe.DecodeErrors += f.DecodeErrors
		fe.KeysDecoded += f.KeysDecoded
		fe.KeyDecodeErrors += f.KeyDecodeErrors
		fe.MaxRecordBytes = max(fe.MaxRecordBytes, f.MaxRecordBytes)
		for _, id := range f.SchemaIDs {
			if !slices.Contains(fe.SchemaIDs, id) {
				fe.SchemaIDs = append(fe.SchemaIDs, id)
			}
		}
		for _, id := range f.KeySchemaIDs {
			if !slices.Contains(fe.KeySchemaIDs, id) {
				fe.KeySchemaIDs = append(fe.KeySchemaIDs, id)
			}
		}
	}
	for _, f := range run {
		if f.MaxRecordBytes == 0 && f.Records > f.ControlRecords {
			fe.MaxRecordBytes = 0 // one file's is not known: neither is the merge's
		}
	}
	return fe
}
