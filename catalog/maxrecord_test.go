package catalog

import (
	"bytes"
	"context"
	"testing"
)

// TestMaxRecordBytes: a data file's entry bounds its largest record (key,
// value, headers' bytes and 10 a header), whoever wrote it, and a merge
// keeps the largest of its files', or none when one file's is unknown.
func TestMaxRecordBytes(t *testing.T) {
	d, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tp := TopicPartition{Topic: "t"}
	rows := []Row{
		{Offset: 0, Timestamp: 1, Key: []byte("k"), Value: []byte("small")},
		{Offset: 1, Timestamp: 2, Key: []byte("kk"), Value: bytes.Repeat([]byte("v"), 5000), Headers: []Header{{Key: "h", Value: []byte("12")}, {Key: "n"}}},
		{Offset: 2, Timestamp: 3, Value: nil},
	}
	fe, err := d.WriteDataFile(context.Background(), tp, rows, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(2 + 5000 + (1 + 2 + 10) + (1 + 10)); fe.MaxRecordBytes != want {
		t.Errorf("MaxRecordBytes %d, want %d", fe.MaxRecordBytes, want)
	}
	a, b := FileEntry{Records: 2, MaxRecordBytes: 40}, FileEntry{Records: 2, MaxRecordBytes: 900}
	if m := mergedEntry([]FileEntry{a, b}); m.MaxRecordBytes != 900 {
		t.Errorf("merge: %d, want 900", m.MaxRecordBytes)
	}
	old := FileEntry{Records: 2} // written before entries said it
	if m := mergedEntry([]FileEntry{a, old, b}); m.MaxRecordBytes != 0 {
		t.Errorf("merge with a file of unknown largest record: %d, want 0 (unknown)", m.MaxRecordBytes)
	}
}
