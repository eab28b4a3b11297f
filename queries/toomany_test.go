package queries

import (
	"errors"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
)

// TestDataFileCheckPastTheOpenFilesLimit: a data file the readers could
// not open for the limit of open files was "damaged data file" (its
// partition left out, exit 9 on the command line). Now it is the limit
// (ErrTooManyFiles), and the topic's read fails rather than leave the
// partition out.
func TestDataFileCheckPastTheOpenFilesLimit(t *testing.T) {
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	rows := []catalog.Row{{Partition: 0, Offset: 0, Timestamp: time.Now().UnixMilli(), TimestampType: catalog.TimestampCreate, Key: []byte("k"), Value: []byte("v")}}
	writePartition(t, d, "t", 0, "s1", 1, rows)
	m, err := d.ReadManifest(t.Context(), catalog.TopicPartition{Topic: "t", Partition: 0})
	if err != nil {
		t.Fatal(err)
	}
	_, restore := catalogtest.LimitOpenFiles(t, 0) // the files open stay open; no other can be opened
	err = checkDataFile(dir, m.TP(), m.Files[0].Name, true)
	restore()
	if !errors.Is(err, catalog.ErrTooManyFiles) || errors.Is(err, catalog.ErrBadDataFile) {
		t.Fatalf("%v: want the limit of open files, not a damaged data file", err)
	}
}
