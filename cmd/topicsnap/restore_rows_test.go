package main

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
)

// TestTamperedFolderExitsNine: a data file whose rows contradict its
// manifest, or a FIFO in its place, makes catalog verify and restore exit
// 9 naming the file by its relative path, restore with a Try: that points
// at catalog verify and the re-dump.
func TestTamperedFolderExitsNine(t *testing.T) {
	b := strings.Join(brokers(t), ",")
	for _, tc := range []struct {
		name   string
		tamper func(d *catalog.Dir, tp catalog.TopicPartition, name string)
		text   string // in restore's Error: line
	}{
		{"two rows swapped", func(d *catalog.Dir, tp catalog.TopicPartition, name string) {
			catalogtest.Rewrite(t, d, tp, name, func(rs []catalog.Row) []catalog.Row {
				rs[3], rs[4] = rs[4], rs[3]
				return rs
			})
		}, "offsets out of order"},
		{"a row of another partition", func(d *catalog.Dir, tp catalog.TopicPartition, name string) {
			catalogtest.Rewrite(t, d, tp, name, func(rs []catalog.Row) []catalog.Row {
				rs[7].Partition = 0
				return rs
			})
		}, "partition column 0"},
		{"a FIFO for the file", func(d *catalog.Dir, tp catalog.TopicPartition, name string) {
			path := d.FilePath(tp, name)
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Skipf("mkfifo: %v", err)
			}
		}, "not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			topic := fmt.Sprintf("tampered-cmd-%d", time.Now().UnixNano())
			d := catalogtest.Folder(t, t.TempDir(), topic, map[int32][][]catalog.Row{
				0: {catalogtest.Rows(0, 0, 20)},
				1: {catalogtest.Rows(1, 0, 20), catalogtest.Rows(1, 20, 20)},
			})
			tp := catalog.TopicPartition{Topic: topic, Partition: 1}
			name := catalog.FileName(20, 39)
			tc.tamper(d, tp, name)
			rel := catalog.RelFilePath(tp, name)

			code, out, _ := cli(t, "catalog", "verify", "--dir", d.Path)
			if code != exitBadFolder || !strings.Contains(out, name) || !strings.Contains(out, "; 1 data file damaged") {
				t.Errorf("catalog verify: exit %d, stdout %q; want %d naming %s", code, out, exitBadFolder, name)
			}
			code, _, errs := cli(t, "restore", "--brokers", b, "--dir", d.Path, "--topic", topic, "--to-topic", topic+"-restored")
			if code != exitBadFolder || !strings.Contains(errs, "Error: ") || !strings.Contains(errs, rel) || !strings.Contains(errs, tc.text) ||
				!strings.Contains(errs, "Try: ") || !strings.Contains(errs, "catalog verify") || !strings.Contains(errs, "dump the partition again") {
				t.Errorf("restore: exit %d, stderr %q; want %d naming %s, %q and a Try: with catalog verify", code, errs, exitBadFolder, rel, tc.text)
			}
			t.Logf("restore says:\n%s", errs)
		})
	}
}
