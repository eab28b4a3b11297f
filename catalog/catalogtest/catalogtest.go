// Package catalogtest makes snapshot folders for tests by code, and
// tampers with them as someone who hands a folder over could: rows
// rewritten in a data file whose size and row count its manifest is made
// to match again, so only a reader that checks the rows can tell.
package catalogtest

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/topicsnap/topicsnap/catalog"
)

// Rows are count data records of partition p from offset first on, each
// value "p/offset" so a reader can tell where a record came from.
func Rows(p int32, first int64, count int) []catalog.Row {
	rows := make([]catalog.Row, count)
	for i := range rows {
		o := first + int64(i)
		rows[i] = catalog.Row{Partition: p, Offset: o, Timestamp: 1_700_000_000_000 + o,
			TimestampType: catalog.TimestampCreate, Key: []byte("k"), Value: ValueOf(p, o)}
	}
	return rows
}

// ValueOf is the value Rows gives the record at offset o of partition p.
func ValueOf(p int32, o int64) []byte { return fmt.Appendf(nil, "%d/%d", p, o) }

// Folder makes a snapshot folder of topic with the catalog's own writer:
// per partition, one data file per slice of files (each of Rows of that
// partition, in offset order), and the manifest listing them.
func Folder(t testing.TB, dir, topic string, files map[int32][][]catalog.Row) *catalog.Dir {
	t.Helper()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	for p, fs := range files {
		tp := catalog.TopicPartition{Topic: topic, Partition: p}
		m := &catalog.Manifest{Topic: topic, Partition: p, NextOffset: -1}
		for _, rows := range fs {
			fe, err := d.WriteDataFile(t.Context(), tp, rows, "s1")
			if err != nil {
				t.Fatal(err)
			}
			m.Files = append(m.Files, fe)
			m.NextOffset = fe.LastOffset + 1
		}
		if err := d.WriteManifest(t.Context(), m); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// Rewrite replaces data file name of tp in d by the rows change makes of
// its rows, written as Parquet without the catalog writer's checks, and
// makes the manifest entry's size the new file's: a tampered file that
// the footer checks of catalog verify pass as long as the row count holds.
func Rewrite(t testing.TB, d *catalog.Dir, tp catalog.TopicPartition, name string, change func([]catalog.Row) []catalog.Row) {
	t.Helper()
	path := d.FilePath(tp, name)
	rows, err := catalog.ReadDataFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows = change(rows)
	tmp := filepath.Join(filepath.Dir(path), "tampered.tmp")
	f, err := os.Create(tmp)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[catalog.Row](f)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	m, err := d.ReadManifest(t.Context(), tp)
	if err != nil {
		t.Fatal(err)
	}
	for i := range m.Files {
		if m.Files[i].Name == name {
			m.Files[i].Bytes = st.Size()
		}
	}
	if err := d.WriteManifest(t.Context(), m); err != nil {
		t.Fatal(err)
	}
}
