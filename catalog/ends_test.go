package catalog_test

import (
	"encoding/binary"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
	"github.com/topicsnap/topicsnap/internal/exit"
)

// setFooterLength writes n as the footer length word of the data file at
// path (its last 8 bytes are the length and "PAR1"): a handed-over file
// claiming a footer of its choosing.
func setFooterLength(t *testing.T, path string, n uint32) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], n)
	if _, err := f.WriteAt(b[:], st.Size()-8); err != nil {
		t.Fatal(err)
	}
}

// TestFooterPastItsBoundIsRefused: every reader of a folder's data files
// (verify, compact, restore's scan, markers, ReadDataFile) holds the
// footer length a file's last bytes claim to catalog.MaxFooterBytes and
// refuses a file past it as a damaged data file (exit 9) before a byte of
// the footer is read; and a length past the file is refused whatever the
// bound (parquet-go would allocate it: up to 4 GiB).
func TestFooterPastItsBoundIsRefused(t *testing.T) {
	tp := catalog.TopicPartition{Topic: "orders", Partition: 0}
	first := catalog.FileName(0, 99)
	for _, c := range []struct {
		name   string
		bound  int64  // MaxFooterBytes for the case (0: as built)
		length uint32 // footer length written into the first file (0: its own)
		detail string
	}{
		{"footer past the bound", 64, 0, "past the 64 a data file's may take"},
		{"footer of 4 GiB", 0, 0xfffffff0, "a footer of 4294967280 bytes in a file of"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			d := catalogtest.Folder(t, dir, "orders", map[int32][][]catalog.Row{
				0: {catalogtest.Rows(0, 0, 100), catalogtest.Rows(0, 100, 100)},
			})
			path := d.FilePath(tp, first)
			if _, err := catalog.ReadDataFile(path); err != nil {
				t.Fatalf("a sound file: %v", err)
			}
			if c.length != 0 {
				setFooterLength(t, path, c.length)
			}
			if c.bound != 0 {
				defer func(b int64) { catalog.MaxFooterBytes = b }(catalog.MaxFooterBytes)
				catalog.MaxFooterBytes = c.bound
			}
			damaged := func(what string, err error) {
				t.Helper()
				if code, _ := exit.Of(err); !errors.Is(err, catalog.ErrBadDataFile) || code != exit.BadFolder || !strings.Contains(err.Error(), c.detail) {
					t.Errorf("%s: %v (exit %d), want a damaged data file (exit 9) saying %q", what, err, code, c.detail)
				}
			}

			_, problems, err := d.Verify(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			named := false
			for _, p := range problems {
				if p.Path == path && p.Kind == catalog.KindDataFile && strings.Contains(p.Detail, c.detail) {
					named = true
				}
			}
			if !named {
				t.Errorf("verify: %v, want %s named: %s", problems, first, c.detail)
			}

			_, err = catalog.ReadDataFile(path)
			damaged("ReadDataFile", err)
			err = catalog.ScanDataFileColumnsReused(t.Context(), path, 10, []string{"partition", "offset"}, func([]catalog.Row) error { return nil })
			damaged("restore's scan", err)
			m, err := d.ReadManifest(t.Context(), tp)
			if err != nil {
				t.Fatal(err)
			}
			m.Files[0].ControlRecords = 1 // so its markers are read
			_, err = d.ReadMarkers(t.Context(), m, 0)
			damaged("markers", err)
			_, err = d.Compact(t.Context(), catalog.CompactOptions{})
			damaged("compact", err)
			if after, err := d.ReadManifest(t.Context(), tp); err != nil || len(after.Files) != 2 {
				t.Errorf("compact changed the partition: %v %v", after, err)
			}
		})
	}
}
