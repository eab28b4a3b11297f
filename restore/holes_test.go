package restore

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/catalog/catalogtest"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/kafkaconn"
)

// TestRestoreSaysTheOffsetsItLacks: offsets of the planned range that no
// data file holds are said before anything is produced: those of a lost
// range as deleted by Kafka before the dump, the others, on a topic not
// compacted, as missing from the folder (a file taken out with its
// manifest entry, which catalog verify does not see). Before, a folder
// with the entry of offsets 300-599 removed was restored with 1,700 of
// 2,000 records, exit 0, and nothing said.
func TestRestoreSaysTheOffsetsItLacks(t *testing.T) {
	file := func(first, last int64) catalog.FileEntry {
		return catalog.FileEntry{Name: "f", FirstOffset: first, LastOffset: last, Records: last - first + 1}
	}
	lost := func(from, to int64) catalog.LostRange {
		return catalog.LostRange{Kind: catalog.LostBetween, From: from, To: to}
	}
	for _, tc := range []struct {
		name      string
		files     []catalog.FileEntry
		lost      []catalog.LostRange
		from, to  int64 // the planned range, exclusive end
		policy    string
		noSnap    bool
		want      []string // in the warnings, in order; none: no warning
		wantHoles int
	}{
		{name: "whole", files: []catalog.FileEntry{file(0, 299), file(300, 599)}, from: 0, to: 600, policy: "delete"},
		{name: "a file taken out", files: []catalog.FileEntry{file(0, 299), file(600, 999)}, from: 0, to: 1000, policy: "delete",
			want: []string{"src/0: 300 offsets (300-599) are in no data file of DIR and in no lost range, and topic src was not compacted at its last cut (cleanup.policy=delete)", "topicsnap check gaps --dir DIR --topic src"}, wantHoles: 1},
		{name: "the last file taken out", files: []catalog.FileEntry{file(0, 299)}, from: 0, to: 600, policy: "delete",
			want: []string{"src/0: 300 offsets (300-599) are in no data file"}, wantHoles: 1},
		{name: "a lost range", files: []catalog.FileEntry{file(0, 299), file(600, 999)}, lost: []catalog.LostRange{lost(300, 599)}, from: 0, to: 1000, policy: "delete",
			want: []string{"src/0: 300 offsets (300-599 expired-between-snapshots) are in lost ranges of the manifest (deleted by Kafka before the dump"}, wantHoles: 1},
		{name: "part lost, part missing", files: []catalog.FileEntry{file(0, 299), file(600, 999)}, lost: []catalog.LostRange{lost(300, 399)}, from: 0, to: 1000, policy: "delete",
			want: []string{"src/0: 200 offsets (400-599) are in no data file", "src/0: 100 offsets (300-399 expired-between-snapshots) are in lost ranges"}, wantHoles: 2},
		{name: "compacted: the cleaner's holes", files: []catalog.FileEntry{file(0, 299), file(600, 999)}, from: 0, to: 1000, policy: "compact,delete", wantHoles: 1},
		{name: "no cluster snapshot", files: []catalog.FileEntry{file(0, 299), file(301, 999)}, from: 0, to: 1000, noSnap: true,
			want: []string{"src/0: 1 offset (300) is in no data file", "the folder does not say whether topic src was compacted"}, wantHoles: 1},
		{name: "outside the planned range", files: []catalog.FileEntry{file(0, 299), file(600, 999)}, from: 600, to: 1000, policy: "delete"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &catalog.Manifest{Topic: "src", Partition: 0, Files: tc.files, Lost: tc.lost, NextOffset: tc.to}
			pl := &plan{m: m, part: &Partition{From: tc.from, Until: tc.to, OpenAt: -1}}
			if got := len(planHoles(pl)); got != tc.wantHoles {
				t.Errorf("planHoles: %d holes %v, want %d", got, planHoles(pl), tc.wantHoles)
			}
			src := &source{manifests: []*catalog.Manifest{m}, partitions: 1}
			if !tc.noSnap {
				src.snap = &catalog.ClusterSnapshot{Topic: "src", PartitionCount: 1, Configs: map[string]string{"cleanup.policy": tc.policy}}
			}
			var warned []string
			sayHoles(Options{Topic: "src", Dir: "DIR"}, src, []*plan{pl}, func(s string) { warned = append(warned, s) })
			all := strings.Join(warned, "\n")
			if len(tc.want) == 0 && len(warned) > 0 {
				t.Errorf("warned %q, want nothing", all)
			}
			at := 0
			for _, w := range tc.want {
				i := strings.Index(all[at:], w)
				if i < 0 {
					t.Errorf("warnings %q lack %q (in order)", all, w)
					break
				}
				at += i + len(w)
			}
		})
	}
}

// TestRestoreOfAFolderLackingAFile: through Run, on kfake: the manifest
// entry and the data file of offsets 300-599 of partition 0 taken out of
// the folder (catalog verify finds nothing wrong); the restore produces
// what the folder holds and says which offsets it lacks. Before: the
// same records, and nothing said.
func TestRestoreOfAFolderLackingAFile(t *testing.T) {
	const n = 2000
	c, dir := kfakeSource(t, n)
	mpath := filepath.Join(dir, "topic=src", "partition=0", "manifest.json")
	raw, err := os.ReadFile(mpath)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	var kept []any
	for _, f := range m["files"].([]any) {
		e := f.(map[string]any)
		if e["first_offset"].(float64) == 300 {
			if err := os.Remove(filepath.Join(dir, "topic=src", "partition=0", e["name"].(string))); err != nil {
				t.Fatal(err)
			}
			continue
		}
		kept = append(kept, f)
	}
	if len(kept) == len(m["files"].([]any)) {
		t.Fatal("no file of offsets 300-599 in partition 0: the test proves nothing")
	}
	m["files"] = kept
	if raw, err = json.Marshal(m); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mpath, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	w := &warnings{}
	sum, err := Run(t.Context(), Options{Conn: kafkaconn.Conn{Brokers: c.ListenAddrs()}, Dir: dir, Topic: "src", ToTopic: "dst", Progress: w})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Records != n-300 {
		t.Errorf("restored %d records, want %d", sum.Records, n-300)
	}
	if want := "src/0: 300 offsets (300-599) are in no data file of " + dir + " and in no lost range"; !strings.Contains(w.String(), want) {
		t.Errorf("warnings %q lack %q", w.String(), want)
	}
}

// TestRestoreRefusesACutThatContradictsItself: a cluster snapshot whose
// partition count its own list of partitions does not bear out (edited to
// 100,000 where the cut lists 1) is refused before anything is created
// (exit 9), naming the file. Before, the restore created the target with
// 100,000 partitions (its dry run said so).
func TestRestoreRefusesACutThatContradictsItself(t *testing.T) {
	d := catalogtest.Folder(t, t.TempDir(), "src", map[int32][][]catalog.Row{0: {catalogtest.Rows(0, 0, 10)}})
	cs := &catalog.ClusterSnapshot{ID: "20261207T000000.000Z-aaaaaa", Topic: "src", PartitionCount: 100_000, ReplicationFactor: 1,
		Partitions: []catalog.PartitionState{{Partition: 0, HighWatermark: 10, LastStable: 10}}, Configs: map[string]string{"cleanup.policy": "delete"}}
	if err := d.WriteClusterSnapshot(t.Context(), cs); err != nil {
		t.Fatal(err)
	}
	_, err := Run(t.Context(), Options{Conn: kafkaconn.Conn{Brokers: []string{"127.0.0.1:1"}}, Dir: d.Path, Topic: "src", ToTopic: "dst", DryRun: true})
	want := "snapshots/topic=src/20261207T000000.000Z-aaaaaa.json: it says topic src had 100000 partitions and lists 1"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("restore: %v, want the cut refused: %s", err, want)
	}
	if code, _ := exit.Of(err); code != exit.BadFolder {
		t.Errorf("exit %d, want %d", code, exit.BadFolder)
	}
}
