package catalog

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/topicsnap/topicsnap/internal/exit"
)

// compactRows are n rows of partition p from offset first, of every kind a
// dump writes: nulls and empties, headers (duplicate, null value),
// transactions committed, aborted and left open, their markers, schema ids
// and decoded text or decode errors.
func compactRows(p int32, first int64, n int) []Row {
	str := func(s string) *string { return &s }
	id := func(i int32) *int32 { return &i }
	var rows []Row
	for i := range n {
		off := first + int64(i)*2 // holes, as markers and compaction leave
		r := Row{Partition: p, Offset: off, Timestamp: 1_700_000_000_000 + off, TimestampType: TimestampCreate,
			LeaderEpoch: 3, ProducerID: -1, ProducerEpoch: -1}
		switch i % 7 {
		case 0:
			r.Key, r.Value = nil, nil
		case 1:
			r.Key, r.Value = []byte{}, []byte{}
			r.Headers = []Header{{Key: "h", Value: nil}, {Key: "h", Value: []byte{}}, {Key: "h", Value: []byte{0, 1}}, {Key: "\xff\xfe", Value: []byte("x")}}
		case 2:
			r.Key, r.Value = []byte(fmt.Sprint("k", off)), []byte{0, 0, 0, 0, 7, 2}
			r.SchemaID, r.ValueDecoded = id(7), []byte(fmt.Sprintf(`{"n":%d}`, off))
		case 3:
			r.Value, r.SchemaID, r.ValueDecodeError = []byte{0, 0, 0, 0, 9}, id(9), str("schema 9 unknown")
			r.KeySchemaID, r.KeyDecoded = id(8), []byte(`"k"`)
		case 4:
			r.Transactional, r.ProducerID, r.ProducerEpoch, r.TxnState = true, 42, 1, str(TxnOpen)
			r.Value = []byte("in txn")
		case 5:
			r.Transactional, r.ProducerID, r.ProducerEpoch, r.TxnState = true, 43, 0, str(TxnAborted)
			r.Value = []byte("aborted")
			r.TimestampType = TimestampLogAppend
		case 6:
			r.Control, r.Transactional, r.ProducerID, r.ControlType, r.TxnState = true, true, 42, str(ControlCommit), str(TxnCommitted)
			r.Key, r.Value = []byte{0, 0, 0, 1}, []byte{0, 0, 0, 0, 0, 0}
		}
		rows = append(rows, r)
	}
	return rows
}

// writeSmallFiles commits files files of rows rows each to tp, one
// snapshot each, with a lost range after the first half when lost.
func writeSmallFiles(t *testing.T, d *Dir, tp TopicPartition, files, rows int, typed bool, lost bool) {
	t.Helper()
	l, err := d.LockPartition(t.Context(), tp)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	m, err := d.ReadManifest(t.Context(), tp)
	if err != nil {
		t.Fatal(err)
	}
	off := max(m.NextOffset, 0)
	for i := range files {
		if lost && i == files/2 {
			m.Lost = append(m.Lost, LostRange{Kind: LostBetween, From: off, To: off + 9, DetectedAt: time.Unix(1, 0).UTC(), Snapshot: "s-lost"})
			off += 10
		}
		snap := fmt.Sprintf("s%03d", i)
		w, err := d.NewFileWriter(t.Context(), tp, snap)
		if err != nil {
			t.Fatal(err)
		}
		rs := compactRows(tp.Partition, off, rows)
		if err := w.WriteTyped(rs, nil, typed); err != nil {
			t.Fatal(err)
		}
		fe, err := w.Commit(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		fe.WrittenAt = fe.WrittenAt.Add(-2 * time.Hour)
		m.Files = append(m.Files, fe)
		m.Snapshots = append(m.Snapshots, PartitionSnapshot{ID: snap, From: off, Until: rs[len(rs)-1].Offset + 1, Complete: true})
		off = rs[len(rs)-1].Offset + 1
		m.NextOffset = off
		if err := d.WriteManifest(t.Context(), m); err != nil {
			t.Fatal(err)
		}
	}
}

// rawRows reads every row of every file m lists, as Parquet values,
// column by column: what compaction must keep bit for bit.
func rawRows(t *testing.T, d *Dir, m *Manifest) []parquet.Row {
	t.Helper()
	var out []parquet.Row
	for _, fe := range m.Files {
		f, cleanup, err := d.localData(context.Background(), m.TP(), fe)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := parquet.OpenFile(f, fe.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]parquet.Row, 100)
		for _, rg := range pf.RowGroups() {
			rows := rg.Rows()
			for {
				n, err := rows.ReadRows(buf)
				for _, r := range buf[:n] {
					out = append(out, r.Clone())
				}
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			rows.Close()
		}
		cleanup()
	}
	return out
}

func TestCompactKeepsEveryRow(t *testing.T) {
	for _, tc := range []struct {
		name    string
		typed   bool
		lost    bool
		grace   time.Duration
		target  int64
		files   int
		wantMax int // files listed after, at most
		// groupBytes, when set, closes the merged file's row groups
		// after this many bytes of values.
		groupBytes int64
	}{
		{name: "plain", files: 40, target: DefaultCompactTarget, wantMax: 1},
		{name: "typed", typed: true, files: 12, target: DefaultCompactTarget, wantMax: 1},
		{name: "lost range splits runs", lost: true, files: 10, target: DefaultCompactTarget, wantMax: 2},
		{name: "small target", files: 30, target: 20_000, wantMax: 15},
		{name: "grace keeps old files", files: 8, grace: time.Hour, target: DefaultCompactTarget, wantMax: 1},
		{name: "row groups closed by size", files: 10, target: DefaultCompactTarget, wantMax: 1, groupBytes: 500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.groupBytes > 0 {
				defer func(n int64) { rawGroupBytes = n }(rawGroupBytes)
				rawGroupBytes = tc.groupBytes
			}
			dir := t.TempDir()
			d, err := Create(dir)
			if err != nil {
				t.Fatal(err)
			}
			tp := TopicPartition{"events", 2}
			writeSmallFiles(t, d, tp, tc.files, 60, tc.typed, tc.lost)
			before, err := d.ReadManifest(t.Context(), tp)
			if err != nil {
				t.Fatal(err)
			}
			rowsBefore := rawRows(t, d, before)
			// The rows name schema ids the folder lacks: verify says so,
			// the same before and after, and nothing else.
			_, problemsBefore, err := d.Verify(t.Context())
			if err != nil || len(problemsBefore) != 3 {
				t.Fatalf("verify before: %v %v", err, problemsBefore)
			}
			st, err := d.Compact(t.Context(), CompactOptions{TargetBytes: tc.target, MinAge: time.Hour, Grace: tc.grace})
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Skipped) > 0 {
				t.Fatalf("skipped: %v", st.Skipped)
			}
			after, err := d.ReadManifest(t.Context(), tp)
			if err != nil {
				t.Fatal(err)
			}
			if len(after.Files) > tc.wantMax || len(after.Files) >= len(before.Files) {
				t.Fatalf("%d files after, from %d (want at most %d)", len(after.Files), len(before.Files), tc.wantMax)
			}
			rowsAfter := rawRows(t, d, after)
			if tc.groupBytes > 0 {
				f, cleanup, err := d.localData(t.Context(), tp, after.Files[0])
				if err != nil {
					t.Fatal(err)
				}
				pf, err := parquet.OpenFile(f, after.Files[0].Bytes)
				if err != nil || len(pf.RowGroups()) < 5 {
					t.Fatalf("merged file has %d row groups (want several): %v", len(pf.RowGroups()), err)
				}
				cleanup()
			}
			if !reflect.DeepEqual(rowsBefore, rowsAfter) {
				t.Fatalf("rows differ after compact: %d rows before, %d after", len(rowsBefore), len(rowsAfter))
			}
			// Every other field of the manifest is kept.
			if !reflect.DeepEqual(before.Lost, after.Lost) || !reflect.DeepEqual(before.Snapshots, after.Snapshots) || before.NextOffset != after.NextOffset {
				t.Fatalf("manifest changed beyond its files:\nbefore %+v\nafter  %+v", before, after)
			}
			if before.Records() != after.Records() {
				t.Fatalf("records %d before, %d after", before.Records(), after.Records())
			}
			var sum = func(m *Manifest, f func(FileEntry) int64) (n int64) {
				for _, fe := range m.Files {
					n += f(fe)
				}
				return n
			}
			for name, f := range map[string]func(FileEntry) int64{
				"control": func(fe FileEntry) int64 { return fe.ControlRecords }, "open": func(fe FileEntry) int64 { return fe.OpenTxnRecords },
				"decoded": func(fe FileEntry) int64 { return fe.Decoded }, "decode errors": func(fe FileEntry) int64 { return fe.DecodeErrors },
				"keys decoded":    func(fe FileEntry) int64 { return fe.KeysDecoded },
				"raw header keys": func(fe FileEntry) int64 { return fe.RawHeaderKeys },
			} {
				if a, b := sum(before, f), sum(after, f); a != b || name == "raw header keys" && a == 0 {
					t.Errorf("%s: %d before, %d after", name, a, b)
				}
			}
			if tc.typed && !reflect.DeepEqual(before.Files[0].Typed, after.Files[0].Typed) {
				t.Errorf("typed columns %+v, were %+v", after.Files[0].Typed, before.Files[0].Typed)
			}
			_, problems, err := d.Verify(t.Context())
			if err != nil || !reflect.DeepEqual(problems, problemsBefore) {
				t.Fatalf("verify: %v %v", err, problems)
			}
			left, err := d.Unlisted(t.Context(), after)
			if err != nil || len(left) > 0 {
				t.Fatalf("unlisted after compact: %v %v", left, err)
			}
			// Old files: removed at once, or kept (retired) through the
			// grace period, through a dump's cleaning too, and removed by
			// the compact after it.
			old := filepath.Join(d.PartitionDir(tp), before.Files[0].Name)
			_, serr := os.Stat(old)
			if tc.grace == 0 {
				if serr == nil || len(after.Retired) > 0 {
					t.Fatalf("old file kept without a grace period (retired %v)", after.Retired)
				}
				return
			}
			if serr != nil || len(after.Retired) != len(before.Files) {
				t.Fatalf("old file gone within the grace period (%v), retired %d", serr, len(after.Retired))
			}
			// A reader that read the manifest before the compact reads
			// every row it listed, as before.
			if got := rawRows(t, d, before); !reflect.DeepEqual(got, rowsBefore) {
				t.Fatal("a reader of the old manifest reads other rows within the grace period")
			}
			if removed, err := d.CleanPartition(t.Context(), after); err != nil || len(removed) > 0 {
				t.Fatalf("a dump's cleaning removed retired files: %v %v", removed, err)
			}
			st, err = d.Compact(t.Context(), CompactOptions{MinAge: time.Hour, Grace: tc.grace, Now: func() time.Time { return time.Now().Add(2 * tc.grace) }})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(old); err == nil || st.Removed != len(before.Files) {
				t.Fatalf("retired files not removed after the grace period (removed %d)", st.Removed)
			}
			final, _ := d.ReadManifest(t.Context(), tp)
			if len(final.Retired) > 0 || !reflect.DeepEqual(final.Files, after.Files) {
				t.Fatalf("manifest after removing retired files: %+v", final)
			}
		})
	}
}

// TestCompactLeavesYoungAndLockedFiles: files younger than MinAge are not
// merged, and a partition a dump holds is skipped and named.
func TestCompactLeavesYoungAndLockedFiles(t *testing.T) {
	d, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tp := TopicPartition{"events", 0}
	writeSmallFiles(t, d, tp, 5, 10, false, false)
	st, err := d.Compact(t.Context(), CompactOptions{MinAge: 3 * time.Hour})
	if err != nil || st.Written != 0 || st.FilesAfter != 5 {
		t.Fatalf("young files merged: %+v %v", st, err)
	}
	l, err := d.LockPartition(t.Context(), tp)
	if err != nil {
		t.Fatal(err)
	}
	st, err = d.Compact(t.Context(), CompactOptions{MinAge: time.Hour})
	l.Unlock()
	if err != nil || st.Written != 0 || len(st.Skipped) != 1 || !strings.Contains(st.Skipped[0], "locked") {
		t.Fatalf("locked partition compacted: %+v %v", st, err)
	}
	// A damaged manifest costs its partition, named; the others are
	// compacted, and the run fails at the end (exit 9): it was exit 0.
	damaged := TopicPartition{"events", 1}
	writeSmallFiles(t, d, damaged, 3, 10, false, false)
	if err := os.WriteFile(filepath.Join(d.PartitionDir(damaged), manifestName), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	st, err = d.Compact(t.Context(), CompactOptions{MinAge: time.Hour})
	if !errors.Is(err, ErrBadManifest) || exitOf(err) != exit.BadFolder || st.Written != 1 || len(st.Skipped) != 1 || !strings.Contains(st.Skipped[0], "partition 1: manifest damaged") {
		t.Fatalf("with a damaged manifest: %+v %v", st, err)
	}
}

// TestCompactDamagedDataFile: a data file whose bytes were changed (its
// size as its entry says, so the folder's read does not notice) stopped
// the whole compact at that partition with an error of no exit code of
// its own; a file cut short was skipped with a warning and exit 0. Each
// now costs its partition, named, the others are compacted, and the run
// fails at the end with ErrBadDataFile (exit 9); the damaged partition's
// files and manifest are left as they were.
func TestCompactDamagedDataFile(t *testing.T) {
	for _, damage := range []string{"bytes changed", "cut short"} {
		t.Run(damage, func(t *testing.T) {
			d, err := Create(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			good, bad := TopicPartition{"events", 0}, TopicPartition{"events", 1}
			writeSmallFiles(t, d, good, 3, 10, false, false)
			writeSmallFiles(t, d, bad, 3, 10, false, false)
			m, err := d.ReadManifest(t.Context(), bad)
			if err != nil {
				t.Fatal(err)
			}
			before, err := os.ReadFile(filepath.Join(d.PartitionDir(bad), manifestName))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(d.PartitionDir(bad), m.Files[1].Name)
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if damage == "cut short" {
				b = b[:len(b)/2]
			} else {
				for i := 4; i < len(b)-8; i++ { // past the magic, before the footer's length
					b[i] ^= 0x5a
				}
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			st, err := d.Compact(t.Context(), CompactOptions{})
			if !errors.Is(err, ErrBadDataFile) || exitOf(err) != exit.BadFolder || !strings.Contains(err.Error(), "1 partition not compacted") {
				t.Fatalf("compact: %+v %v", st, err)
			}
			if st.Written != 1 || len(st.Skipped) != 1 || !strings.Contains(st.Skipped[0], "events/1") && !strings.Contains(st.Skipped[0], "partition 1") {
				t.Fatalf("the good partition not compacted, or the bad one not named: %+v", st)
			}
			after, err := os.ReadFile(filepath.Join(d.PartitionDir(bad), manifestName))
			if err != nil || string(after) != string(before) {
				t.Fatalf("the damaged partition's manifest changed (%v)", err)
			}
			if gm, err := d.ReadManifest(t.Context(), good); err != nil || len(gm.Files) != 1 {
				t.Fatalf("good partition: %v %v", gm, err)
			}
		})
	}
}

// TestCompactBucket is compaction in a bucket (the real S3 server make
// test starts): the same rows, bit for bit, the old objects removed or
// retired, catalog verify as before, nothing unlisted.
func TestCompactBucket(t *testing.T) {
	loc, cfg := testBucket(t)
	d := mustCreateAt(t, loc, cfg)
	tp := TopicPartition{"events", 0}
	writeSmallFiles(t, d, tp, 12, 40, false, false)
	tpTyped := TopicPartition{"events", 1}
	writeSmallFiles(t, d, tpTyped, 6, 40, true, true)
	before := map[TopicPartition][]parquet.Row{}
	var mb []*Manifest
	for _, p := range []TopicPartition{tp, tpTyped} {
		m, err := d.ReadManifest(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		mb = append(mb, m)
		before[p] = rawRows(t, d, m)
	}
	_, problemsBefore, err := d.Verify(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	st, err := d.Compact(t.Context(), CompactOptions{MinAge: time.Hour, Partitions: map[int32]bool{0: true}})
	if err != nil || st.Written != 1 || st.Removed != 12 {
		t.Fatalf("compact partition 0: %+v %v", st, err)
	}
	st, err = d.Compact(t.Context(), CompactOptions{MinAge: time.Hour, Grace: time.Hour, Partitions: map[int32]bool{1: true}})
	if err != nil || st.Written != 2 || st.Retired != 6 {
		t.Fatalf("compact partition 1: %+v %v", st, err)
	}
	for i, p := range []TopicPartition{tp, tpTyped} {
		m, err := d.ReadManifest(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		if got := rawRows(t, d, m); !reflect.DeepEqual(got, before[p]) {
			t.Fatalf("%s: rows differ after compact", p)
		}
		if !reflect.DeepEqual(m.Lost, mb[i].Lost) || !reflect.DeepEqual(m.Snapshots, mb[i].Snapshots) {
			t.Fatalf("%s: lost ranges or snapshots changed", p)
		}
		if u, err := d.Unlisted(t.Context(), m); err != nil || len(u) > 0 {
			t.Fatalf("%s: unlisted: %v %v", p, u, err)
		}
	}
	_, problems, err := d.Verify(t.Context())
	if err != nil || !reflect.DeepEqual(problems, problemsBefore) {
		t.Fatalf("verify: %v %v (before %v)", err, problems, problemsBefore)
	}
}

// TestRetiredNamesAreDataFileNames: a retired file is removed by name, so
// a manifest whose retired list names a path, another kind of file, or a
// file it also lists is refused, by readers and by the writer.
func TestRetiredNamesAreDataFileNames(t *testing.T) {
	listed := FileName(0, 9)
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{FileName(10, 19), true},
		{FileNameIn(10, 19, 2), true},
		{"00000000000000000010-00000000000000000019.h0.parquet", false},
		{"../../topicsnap.json", false},
		{"manifest.json", false},
		{"00000000000000000010-00000000000000000019.parquet/../x", false},
		{"10-19.parquet", false},
		{FileName(19, 10), false},
		{listed, false},
	} {
		m := &Manifest{FormatVersion: FormatVersion, Topic: "t", Partition: 0, NextOffset: 20,
			Files:   []FileEntry{{Name: listed, FirstOffset: 0, LastOffset: 9, Records: 10}},
			Retired: []RetiredFile{{Name: tc.name, RetiredAt: time.Unix(1, 0)}}}
		err := m.validate()
		if (err == nil) != tc.ok {
			t.Errorf("retired %q: validate says %v", tc.name, err)
		}
		d, _ := Create(t.TempDir())
		if werr := d.WriteManifest(t.Context(), m); (werr == nil) != tc.ok || !tc.ok && !errors.Is(werr, ErrBadManifest) {
			t.Errorf("retired %q: WriteManifest says %v", tc.name, werr)
		}
	}
}

// TestCompactRuns: a run holds consecutive small, old enough files of one
// history and one typed-column map, with no lost range between them, up
// to the target; an imported file (its source in its entry) stays alone.
func TestCompactRuns(t *testing.T) {
	old := time.Now().Add(-2 * time.Hour)
	f := func(first, last int64, bytes int64, mod func(*FileEntry)) FileEntry {
		fe := FileEntry{Name: FileName(first, last), FirstOffset: first, LastOffset: last, Bytes: bytes, WrittenAt: old}
		if mod != nil {
			mod(&fe)
		}
		return fe
	}
	h1 := func(fe *FileEntry) { fe.History = 1 }
	for _, tc := range []struct {
		name  string
		files []FileEntry
		lost  []LostRange
		want  []int // run lengths
	}{
		{"all small", []FileEntry{f(0, 9, 10, nil), f(10, 19, 10, nil), f(20, 29, 10, nil)}, nil, []int{3}},
		{"target", []FileEntry{f(0, 9, 60, nil), f(10, 19, 60, nil), f(20, 29, 60, nil)}, nil, nil},
		{"histories", []FileEntry{f(0, 9, 10, nil), f(10, 19, 10, nil), f(20, 29, 10, h1), f(30, 39, 10, h1)}, nil, []int{2, 2}},
		{"imported", []FileEntry{f(0, 9, 10, nil), f(10, 19, 10, func(fe *FileEntry) { fe.Source = "00.log" }), f(20, 29, 10, nil)}, nil, []int{1, 1, 1}},
		{"young", []FileEntry{f(0, 9, 10, nil), f(10, 19, 10, func(fe *FileEntry) { fe.WrittenAt = time.Now() }), f(20, 29, 10, nil)}, nil, []int{1, 1, 1}},
		{"lost between", []FileEntry{f(0, 9, 10, nil), f(20, 29, 10, nil)}, []LostRange{{From: 10, To: 19}}, []int{1, 1}},
		{"typed maps", []FileEntry{f(0, 9, 10, nil), f(10, 19, 10, func(fe *FileEntry) { fe.Typed = &TypedColumns{Opaque: true} })}, nil, []int{1, 1}},
	} {
		if tc.name == "target" {
			tc.want = []int{1, 1, 1} // 60 + 60 > 100: each alone
		}
		runs := compactRuns(&Manifest{Files: tc.files, Lost: tc.lost}, CompactOptions{TargetBytes: 100, MinAge: time.Hour}, time.Now())
		var got []int
		for _, r := range runs {
			got = append(got, len(r))
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: runs of %v, want %v", tc.name, got, tc.want)
		}
	}
}

// exitOf is the exit code err gives a user.
func exitOf(err error) exit.Code {
	c, _ := exit.Of(err)
	return c
}
