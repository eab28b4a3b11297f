package segments

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// readRows reads back every row of a partition, in manifest order.
func readRows(t testing.TB, dir string, tp catalog.TopicPartition) (*catalog.Manifest, []catalog.Row) {
	t.Helper()
	d, err := catalog.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := d.ReadManifest(t.Context(), tp)
	if err != nil {
		t.Fatal(err)
	}
	var rows []catalog.Row
	for _, f := range m.Files {
		err := catalog.ScanDataFile(context.Background(), d.FilePath(tp, f.Name), 1024, func(rs []catalog.Row) error {
			rows = append(rows, rs...)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return m, rows
}

func txnIndexEntry(pid, first, last int64) []byte {
	b := []byte{0, 0}
	for _, v := range []int64{pid, first, last, last} {
		b = binary.BigEndian.AppendUint64(b, uint64(v))
	}
	return b
}

func writeSegment(t testing.TB, dir string, base int64, batches ...[]byte) string {
	t.Helper()
	p := filepath.Join(dir, fmt.Sprintf("%020d.log", base))
	var all []byte
	for _, b := range batches {
		all = append(all, b...)
	}
	if err := os.WriteFile(p, all, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func markerBatch(base, pid int64, kind byte) []byte {
	return testBatch{base: base, lastDelta: -1, attrs: 0x30, pid: pid, recs: []testRec{{key: []byte{0, 0, 0, kind}, value: []byte{0, 0, 0, 0, 0, 0}, delta: -1}}}.encode()
}

func data(base int64, attrs int16, pid int64, vals ...string) []byte {
	var rs []testRec
	for _, v := range vals {
		rs = append(rs, testRec{key: []byte("k" + v), value: []byte(v), delta: -1})
	}
	return testBatch{base: base, lastDelta: -1, firstTS: 1_700_000_000_000, attrs: attrs, pid: pid, recs: rs}.encode()
}

// TestImportCodeMade imports a partition folder made by code: a
// transaction aborted (known from the .txnindex and its marker), one
// committed, a compacted hole, a batch with a bad CRC, a torn tail; then
// again (nothing changes), then with a newer segment (it continues).
func TestImportCodeMade(t *testing.T) {
	logs := t.TempDir()
	pdir := filepath.Join(logs, "orders-3")
	os.Mkdir(pdir, 0o755)
	bad := data(8, 0, -1, "x", "y")
	bad[len(bad)-1] ^= 0xff
	writeSegment(t, pdir, 5,
		data(5, 0x10, 9, "a", "b"),        // offsets 5, 6: transaction of producer 9, aborted
		markerBatch(7, 9, 0),              // 7: abort
		bad,                               // 8, 9: CRC mismatch
		data(10, 0x10|CodecZstd, 11, "c"), // 10: committed
		markerBatch(11, 11, 1),            // 11: commit
	)
	os.WriteFile(filepath.Join(pdir, fmt.Sprintf("%020d.txnindex", 5)), txnIndexEntry(9, 5, 7), 0o644)
	// Compaction left a hole at 12-13 and one inside the batch at 15; then the file is torn.
	hole := testBatch{base: 14, lastDelta: 2, recs: []testRec{{value: []byte("d"), delta: 0}, {value: []byte("e"), delta: 2}}}.encode()
	torn := data(17, 0, -1, "f", "g")
	writeSegment(t, pdir, 12, hole, torn[:len(torn)-3])
	out := t.TempDir()
	var warns []string
	opts := Options{Dir: out, Paths: []string{logs}, Warn: func(s string) { warns = append(warns, s) }}
	sum, err := Import(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	tp := catalog.TopicPartition{Topic: "orders", Partition: 3}
	m, rows := readRows(t, out, tp)
	var got []string
	for _, r := range rows {
		s := fmt.Sprintf("%d:%s", r.Offset, r.Value)
		if r.TxnState != nil {
			s += ":" + *r.TxnState
		}
		got = append(got, s)
	}
	want := "5:a:aborted 6:b:aborted 7:\x00\x00\x00\x00\x00\x00:aborted 10:c:committed 11:\x00\x00\x00\x00\x00\x00:committed 14:d 16:e"
	if strings.Join(got, " ") != want {
		t.Fatalf("rows\n%q\nwant\n%q", strings.Join(got, " "), want)
	}
	var lost []string
	for _, l := range m.Lost {
		lost = append(lost, fmt.Sprintf("%s %d-%d", l.Kind, l.From, l.To))
	}
	wantLost := "expired-before-first-snapshot 0-4, damaged 8-9, compacted 12-13, compacted 15-15, damaged 17-18"
	if strings.Join(lost, ", ") != wantLost {
		t.Fatalf("lost %q, want %q", lost, wantLost)
	}
	if !strings.Contains(m.Lost[1].Reason, "CRC mismatch") || !strings.Contains(m.Lost[4].Reason, "torn") {
		t.Errorf("reasons %q %q", m.Lost[1].Reason, m.Lost[4].Reason)
	}
	if m.NextOffset != 19 || len(m.Files) != 2 || !strings.HasSuffix(m.Files[0].Source, "00000000000000000005.log") || m.Files[0].SourceFrom != 0 || m.Files[0].SourceUntil == 0 {
		t.Errorf("manifest next %d, files %+v", m.NextOffset, m.Files)
	}
	if s := m.Snapshots[0]; s.LogStart != 5 || s.HighWatermark != -1 || s.Imported != "segments" {
		t.Errorf("snapshot %+v", s)
	}
	if sum.Damaged != 2 || sum.Records != 7 {
		t.Errorf("summary %+v", sum)
	}
	before, _ := os.ReadFile(filepath.Join(out, catalog.RelPartitionDir(tp), "manifest.json"))

	// Again: nothing changes.
	sum, err = Import(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(out, catalog.RelPartitionDir(tp), "manifest.json"))
	if string(before) != string(after) || sum.Records != 0 {
		t.Fatalf("a second import changed the manifest (%d records)", sum.Records)
	}

	// A newer segment continues.
	writeSegment(t, pdir, 19, data(19, 0, -1, "h"))
	if _, err := Import(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	m, rows = readRows(t, out, tp)
	if last := rows[len(rows)-1]; last.Offset != 19 || string(last.Value) != "h" || m.NextOffset != 20 || len(m.Snapshots) != 2 {
		t.Fatalf("continued import: last row %d %q, next %d", last.Offset, last.Value, m.NextOffset)
	}
}

func TestImportBadInput(t *testing.T) {
	tmp := t.TempDir()
	pdir := filepath.Join(tmp, "t-0")
	os.Mkdir(pdir, 0o755)
	os.WriteFile(filepath.Join(pdir, "00000000000000000000.index"), make([]byte, 16), 0o644)
	rnd := filepath.Join(tmp, "r-0")
	os.Mkdir(rnd, 0o755)
	os.WriteFile(filepath.Join(rnd, "00000000000000000000.log"), []byte(strings.Repeat("random bytes, not Kafka's ", 100)), 0o644)
	tests := []struct {
		name, path, want string
	}{
		{"missing", filepath.Join(tmp, "nope"), "no such file"},
		{"index without log", pdir, "holds no segment file"},
		{"an index as PATH", filepath.Join(pdir, "00000000000000000000.index"), "is not a segment file"},
		{"not a partition folder", t.TempDir(), "neither a partition folder"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Import(context.Background(), Options{Dir: t.TempDir(), Paths: []string{tc.path}})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
	// Random bytes: no panic, no rows, the damage said.
	var warns []string
	sum, err := Import(context.Background(), Options{Dir: t.TempDir(), Paths: []string{rnd}, Warn: func(s string) { warns = append(warns, s) }})
	if err != nil || sum.Records != 0 || sum.Damaged == 0 || len(warns) == 0 {
		t.Fatalf("random bytes: %+v %v %q", sum, err, warns)
	}
}

// TestImportV01 imports a segment of v0/v1 messages made by code (Kafka 4
// cannot write them): no producer, no leader epoch, v0 without timestamp.
func TestImportV01(t *testing.T) {
	logs := t.TempDir()
	pdir := filepath.Join(logs, "old-0")
	os.Mkdir(pdir, 0o755)
	var inner []byte
	for i := int64(0); i < 2; i++ {
		inner = append(inner, v01Message(i, 1, 0, 2000+i, nil, []byte{'v', byte('0' + i)})...)
	}
	writeSegment(t, pdir, 0,
		v01Message(0, 0, 0, -1, []byte("k"), []byte("v0 message")),
		v01Message(1, 1, 0x08, 1500, nil, nil),
		v01Message(3, 1, CodecSnappy, 3000, nil, compress(CodecSnappy, inner)),
	)
	out := t.TempDir()
	if _, err := Import(context.Background(), Options{Dir: out, Paths: []string{pdir}}); err != nil {
		t.Fatal(err)
	}
	m, rows := readRows(t, out, catalog.TopicPartition{Topic: "old", Partition: 0})
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%d %s %d %q pid%d le%d", r.Offset, r.TimestampType, r.Timestamp, r.Value, r.ProducerID, r.LeaderEpoch))
	}
	want := `0 none -1 "v0 message" pid-1 le-1|1 log_append 1500 "" pid-1 le-1|2 create 2000 "v0" pid-1 le-1|3 create 2001 "v1" pid-1 le-1`
	if strings.Join(got, "|") != want {
		t.Fatalf("rows\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
	if rows[1].Value != nil || len(m.Lost) != 0 || m.NextOffset != 4 {
		t.Fatalf("null value %q, lost %v, next %d", rows[1].Value, m.Lost, m.NextOffset)
	}
}

// TestImportTxnAcrossSegments: a transaction's marker in the next segment
// decides its records; one whose marker no segment holds stays open.
func TestImportTxnAcrossSegments(t *testing.T) {
	logs := t.TempDir()
	pdir := filepath.Join(logs, "tx-0")
	os.Mkdir(pdir, 0o755)
	writeSegment(t, pdir, 0, data(0, 0x10, 5, "a", "b"), data(2, 0x10, 6, "c"))
	writeSegment(t, pdir, 3, markerBatch(3, 5, 0))
	out := t.TempDir()
	if _, err := Import(context.Background(), Options{Dir: out, Paths: []string{pdir}}); err != nil {
		t.Fatal(err)
	}
	m, rows := readRows(t, out, catalog.TopicPartition{Topic: "tx", Partition: 0})
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%d:%s", r.Offset, *r.TxnState))
	}
	if strings.Join(got, " ") != "0:aborted 1:aborted 2:open 3:aborted" || m.Files[0].OpenTxnRecords != 1 {
		t.Fatalf("rows %v, open in first file %d", got, m.Files[0].OpenTxnRecords)
	}
}

func TestImportWarnsOfSegmentsNotGiven(t *testing.T) {
	pdir := filepath.Join(t.TempDir(), "w-0")
	os.Mkdir(pdir, 0o755)
	a := writeSegment(t, pdir, 0, data(0, 0, -1, "a"))
	writeSegment(t, pdir, 1, data(1, 0, -1, "b"))
	c := writeSegment(t, pdir, 2, data(2, 0, -1, "c"))
	var warns []string
	if _, err := Import(context.Background(), Options{Dir: t.TempDir(), Paths: []string{a, c}, Warn: func(s string) { warns = append(warns, s) }}); err != nil {
		t.Fatal(err)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "00000000000000000001.log was not given") {
		t.Fatalf("warnings %q", warns)
	}
}
