package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/topicsnap/topicsnap/internal/safefile"
)

// bounded runs f and fails the test when it blocks past a deadline (a FIFO
// read waits for a writer forever) or allocates past maxAlloc (a link to
// /dev/zero is read without end).
func bounded(t *testing.T, what string, maxAlloc uint64, f func()) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s: still blocked after 10 s", what)
	}
	runtime.ReadMemStats(&after)
	t.Logf("%s: allocated %d KiB", what, (after.TotalAlloc-before.TotalAlloc)>>10)
	if n := after.TotalAlloc - before.TotalAlloc; n > maxAlloc {
		t.Fatalf("%s: allocated %d bytes, want at most %d", what, n, maxAlloc)
	}
}

// goodManifest is a valid manifest of tp listing one file of 0..9, as the
// damaged ones below start from.
func goodManifest(tp TopicPartition) map[string]any {
	return map[string]any{
		"format_version": 1, "topic": tp.Topic, "partition": tp.Partition, "next_offset": 10,
		"files": []map[string]any{{"name": FileName(0, 9), "first_offset": 0, "last_offset": 9, "records": 10, "bytes": 100}},
		"lost":  []map[string]any{},
	}
}

func lostRange(from, to int64) map[string]any {
	return map[string]any{"kind": LostBetween, "from": from, "to": to}
}

// cutEntry is a manifest's entry of cut id: log start, high watermark
// (its last stable offset), dumped from the log start until it.
func cutEntry(id string, logStart, hw int64) map[string]any {
	return map[string]any{"id": id, "as_of": "2026-07-16T12:00:00Z", "log_start_offset": logStart, "high_watermark": hw,
		"last_stable_offset": hw, "from": logStart, "until": max(hw, logStart), "complete": true}
}

func fileEntry(name string, first, last, records int64) map[string]any {
	return map[string]any{"name": name, "first_offset": first, "last_offset": last, "records": records, "bytes": 100}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// damage is one way a handed-over folder's partition 1 manifest can be
// made hostile; it writes the manifest's place at path.
type damage struct {
	name  string
	write func(t *testing.T, path string)
	want  error // errors.Is the ManifestError, beside ErrBadManifest
}

// asManifest writes m (altered by change) as the manifest.
func asManifest(change func(m map[string]any)) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		m := goodManifest(TopicPartition{"orders", 1})
		change(m)
		if err := os.WriteFile(path, mustJSON(t, m), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func damages() []damage {
	var manyLost, manyFiles []map[string]any
	for i := range int64(MaxLostRanges + 1) {
		manyLost = append(manyLost, lostRange(100+2*i, 100+2*i))
	}
	for i := range int64(MaxManifestFiles + 1) {
		manyFiles = append(manyFiles, fileEntry(FileName(i, i), i, i, 1))
	}
	return []damage{
		{"link to /dev/zero", func(t *testing.T, path string) {
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
		}, nil},
		{"FIFO", func(t *testing.T, path string) {
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Fatal(err)
			}
		}, safefile.ErrNotRegular},
		{"link to a FIFO inside the folder", func(t *testing.T, path string) {
			fifo := filepath.Join(filepath.Dir(path), ".fifo")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(".fifo", path); err != nil {
				t.Fatal(err)
			}
		}, safefile.ErrNotRegular},
		{"a folder", func(t *testing.T, path string) {
			if err := os.Mkdir(path, 0o755); err != nil {
				t.Fatal(err)
			}
		}, safefile.ErrNotRegular},
		{"past the cap", func(t *testing.T, path string) {
			f, err := os.Create(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := f.Truncate(MaxManifestBytes + 1); err != nil { // sparse: costs no disk
				t.Fatal(err)
			}
		}, safefile.ErrTooLarge},
		{"invalid JSON", func(t *testing.T, path string) {
			os.WriteFile(path, []byte(`{"topic":"orders","partition":1,"files":[`), 0o644)
		}, nil},
		{"newer format", asManifest(func(m map[string]any) { m["format_version"] = FormatVersion + 1 }), ErrNewerFormat},
		{"lost range 5..-5", asManifest(func(m map[string]any) { m["lost"] = []any{lostRange(5, -5)} }), nil},
		{"lost range from a negative offset", asManifest(func(m map[string]any) { m["lost"] = []any{lostRange(-3, 4)} }), nil},
		{"lost range min..max int64", asManifest(func(m map[string]any) { m["lost"] = []any{lostRange(math.MinInt64, math.MaxInt64)} }), nil},
		{"lost range 0..max int64 (length overflows)", asManifest(func(m map[string]any) { m["lost"] = []any{lostRange(0, math.MaxInt64)} }), nil},
		{"lost ranges overlapping", asManifest(func(m map[string]any) { m["lost"] = []any{lostRange(10, 20), lostRange(15, 30)} }), nil},
		{"lost ranges out of order", asManifest(func(m map[string]any) { m["lost"] = []any{lostRange(30, 40), lostRange(10, 20)} }), nil},
		{"lost range of an unknown kind", asManifest(func(m map[string]any) {
			m["lost"] = []any{map[string]any{"kind": "whatever", "from": 10, "to": 20}}
		}), nil},
		{"too many lost ranges", asManifest(func(m map[string]any) { m["lost"] = manyLost }), nil},
		{"too many files", asManifest(func(m map[string]any) { m["files"] = manyFiles }), nil},
		{"an object bomb just under the cap", func(t *testing.T, path string) {
			// 22 million "{}": 3 bytes each as text, some 250 bytes each
			// as a FileEntry once decoded.
			head, tail := `{"format_version":1,"topic":"orders","partition":1,"files":[`, `{}]}`
			n := (MaxManifestBytes - len(head) - len(tail)) / 3
			b := make([]byte, 0, MaxManifestBytes)
			b = append(b, head...)
			for range n {
				b = append(b, "{},"...)
			}
			b = append(b, tail...)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, nil},
		{"file of negative offsets", asManifest(func(m map[string]any) {
			m["files"] = []any{fileEntry(FileName(-5, -1), -5, -1, 5)}
		}), nil},
		{"file ending before it starts", asManifest(func(m map[string]any) {
			m["files"] = []any{fileEntry(FileName(9, 0), 9, 0, 1)}
		}), nil},
		{"file up to max int64", asManifest(func(m map[string]any) {
			m["files"] = []any{fileEntry(FileName(0, math.MaxInt64), 0, math.MaxInt64, 1)}
		}), nil},
		{"files overlapping", asManifest(func(m map[string]any) {
			m["files"] = []any{fileEntry(FileName(0, 9), 0, 9, 10), fileEntry(FileName(5, 14), 5, 14, 10)}
		}), nil},
		{"more records than offsets", asManifest(func(m map[string]any) {
			m["files"] = []any{fileEntry(FileName(0, 9), 0, 9, 11)}
		}), nil},
		{"negative records", asManifest(func(m map[string]any) {
			m["files"] = []any{fileEntry(FileName(0, 9), 0, 9, -1)}
		}), nil},
		{"file name with ../", asManifest(func(m map[string]any) {
			m["files"] = []any{fileEntry("../../../x.parquet", 0, 9, 10)}
		}), ErrBadName},
		{"file name of another range", asManifest(func(m map[string]any) {
			m["files"] = []any{fileEntry(FileName(0, 8), 0, 9, 10)}
		}), ErrBadName},
		{"topic of the manifest is another", asManifest(func(m map[string]any) { m["topic"] = "payments" }), nil},
		{"partition of the manifest is another", asManifest(func(m map[string]any) { m["partition"] = 2 }), nil},
		{"topic with ../", asManifest(func(m map[string]any) { m["topic"] = "../../etc" }), ErrBadName},
		{"next offset below -1", asManifest(func(m map[string]any) { m["next_offset"] = -7 }), nil},
		// A dump resumed there would store offsets 5-9 again; a restore
		// stopped there left them out while ls listed them.
		{"next offset inside its last file", asManifest(func(m map[string]any) { m["next_offset"] = 5 }), nil},
		{"next offset at its last file's last offset", asManifest(func(m map[string]any) { m["next_offset"] = 9 }), nil},
		{"never dumped (next offset -1) yet listing a file", asManifest(func(m map[string]any) { m["next_offset"] = -1 }), nil},
		{"rewrite of an unknown kind", asManifest(func(m map[string]any) {
			m["rewrites"] = []any{rewrite("whatever", 2, 5, 2, 1)}
		}), nil},
		{"rewrite ending before it starts", asManifest(func(m map[string]any) {
			m["rewrites"] = []any{rewrite(RewriteTruncated, 5, 2, 2, 1)}
		}), nil},
		{"rewrite re-read after its first offset", asManifest(func(m map[string]any) {
			m["rewrites"] = []any{rewrite(RewriteTruncated, 2, 5, 3, 1)}
		}), nil},
		{"rewrite up to max int64", asManifest(func(m map[string]any) {
			m["rewrites"] = []any{rewrite(RewriteTruncated, 0, math.MaxInt64, 0, 1)}
		}), nil},
		{"rewrites skipping a history", asManifest(func(m map[string]any) {
			m["rewrites"] = []any{rewrite(RewriteTruncated, 2, 5, 2, 2)}
		}), nil},
		{"file of a history the manifest does not know", asManifest(func(m map[string]any) {
			f := fileEntry(FileNameIn(0, 9, 1), 0, 9, 10)
			f["history"] = 1
			m["files"] = []any{f}
		}), nil},
		{"file of history 1 named as history 0", asManifest(func(m map[string]any) {
			f := fileEntry(FileName(6, 9), 6, 9, 4)
			f["history"] = 1
			m["files"] = []any{fileEntry(FileName(0, 5), 0, 5, 6), f}
			m["rewrites"] = []any{rewrite(RewriteTruncated, 6, 9, 6, 1)}
		}), ErrBadName},
		{"superseded file of the current history", asManifest(func(m map[string]any) {
			f := fileEntry(FileNameIn(6, 9, 1), 6, 9, 4)
			f["history"] = 1
			m["files"] = []any{fileEntry(FileName(0, 5), 0, 5, 6)}
			m["superseded"] = []any{f}
			m["rewrites"] = []any{rewrite(RewriteTruncated, 6, 9, 6, 1)}
		}), nil},
		// Two objects (one appended to another): which holds the truth is
		// not known; the first was taken and the rest ignored.
		{"more JSON after its object", func(t *testing.T, path string) {
			b := mustJSON(t, goodManifest(TopicPartition{"orders", 1}))
			os.WriteFile(path, append(append(b, '\n'), b...), 0o644)
		}, nil},
		{"text after its object", func(t *testing.T, path string) {
			os.WriteFile(path, append(mustJSON(t, goodManifest(TopicPartition{"orders", 1})), "garbage"...), 0o644)
		}, nil},
		// The per-cut entries: an id checks and the catalog join with the
		// cuts, the offsets the checks subtract.
		{"cut entry with id ../x", asManifest(func(m map[string]any) { m["snapshots"] = []any{cutEntry("../x", 0, 10)} }), ErrBadName},
		{"cut entry without an id", asManifest(func(m map[string]any) { m["snapshots"] = []any{cutEntry("", 0, 10)} }), ErrBadName},
		{"cut entry with a high watermark of -1", asManifest(func(m map[string]any) { m["snapshots"] = []any{cutEntry("s1", 0, -1)} }), nil},
		{"cut entry with a log start of -5", asManifest(func(m map[string]any) {
			c := cutEntry("s1", 0, 10)
			c["log_start_offset"] = -5
			m["snapshots"] = []any{c}
		}), nil},
		{"cut entry with a high watermark of 2^63-1", asManifest(func(m map[string]any) { m["snapshots"] = []any{cutEntry("s1", 0, math.MaxInt64)} }), nil},
		{"cut entry dumped from after until", asManifest(func(m map[string]any) {
			c := cutEntry("s1", 0, 10)
			c["from"], c["until"] = 8, 3
			m["snapshots"] = []any{c}
		}), nil},
		{"superseded file named like a current one", asManifest(func(m map[string]any) {
			m["files"] = []any{fileEntry(FileName(0, 9), 0, 9, 10)}
			m["superseded"] = []any{fileEntry(FileName(0, 9), 0, 9, 10)}
			m["rewrites"] = []any{rewrite(RewriteTruncated, 6, 9, 6, 1)}
		}), nil},
	}
}

func rewrite(kind string, first, last, redumped int64, history int) map[string]any {
	return map[string]any{"kind": kind, "first": first, "last": last, "redumped": redumped, "old_leader_epoch": 0,
		"new_leader_epoch": 1, "epoch_end_offset": first, "history": history}
}

// A damaged partition costs that partition: ReadTopic lists the others
// and names it by its path in the folder (never an absolute path), the
// dump's ReadManifest refuses it with a typed error, Copy copies the rest
// and writes nothing outside the destination, and no read blocks or grows
// without bound.
func TestDamagedManifestCorpus(t *testing.T) {
	tp1 := TopicPartition{"orders", 1}
	rel := "topic=orders/partition=1/manifest.json"
	for _, c := range damages() {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			d, err := Create(filepath.Join(root, "src"))
			if err != nil {
				t.Fatal(err)
			}
			for p := int32(0); p < 3; p++ {
				writeManifest(t, d, TopicPartition{"orders", p}, 0, 9)
			}
			path := filepath.Join(d.PartitionDir(tp1), manifestName)
			os.Remove(path)
			c.write(t, path)

			var tm *TopicManifests
			bounded(t, "ReadTopic", 256<<20, func() { tm, err = d.ReadTopic(t.Context(), "orders") })
			if err != nil {
				t.Fatalf("ReadTopic: %v", err)
			}
			var got []int32
			for _, m := range tm.Manifests {
				got = append(got, m.Partition)
			}
			if !slices.Equal(got, []int32{0, 2}) || len(tm.Damaged) != 1 {
				t.Fatalf("readable %v, damaged %v; want [0 2] and partition 1", got, tm.Damaged)
			}
			me := tm.Damaged[0]
			msg := me.Error()
			if me.TP != tp1 || me.Rel != rel || !errors.Is(me, ErrBadManifest) && !errors.Is(me, ErrNewerFormat) ||
				c.want != nil && !errors.Is(me, c.want) ||
				!strings.Contains(msg, rel) || strings.Contains(msg, root) || len(msg) > 2000 {
				t.Fatalf("damaged: %+v\n%s\nwant %v and ErrBadManifest, naming %s and not %s", me, msg, c.want, rel, root)
			}

			// The dump refuses to append to it rather than overwrite it.
			_, err = d.ReadManifest(t.Context(), tp1)
			var rme *ManifestError
			if !errors.As(err, &rme) || !errors.Is(err, ErrBadManifest) && !errors.Is(err, ErrNewerFormat) {
				t.Fatalf("ReadManifest = %v, want a *ManifestError", err)
			}

			// Copy takes the rest and names it; nothing lands outside dst.
			before := snapshotOf(t, root)
			dst, err := Create(filepath.Join(root, "dst"))
			if err != nil {
				t.Fatal(err)
			}
			bounded(t, "Copy", 256<<20, func() { _, err = Copy(context.Background(), d, dst) })
			if !errors.Is(err, ErrBadManifest) && !errors.Is(err, ErrNewerFormat) || !strings.Contains(err.Error(), rel) {
				t.Fatalf("Copy = %v, want the damaged manifest named", err)
			}
			if ms, err := dst.Manifests(t.Context(), "orders"); err != nil || len(ms) != 2 {
				t.Fatalf("dst holds %d manifests (%v), want 2", len(ms), err)
			}
			for _, p := range snapshotOf(t, root) {
				if !slices.Contains(before, p) && !strings.HasPrefix(p, dst.Path) {
					t.Fatalf("Copy wrote %s, outside %s", p, dst.Path)
				}
			}
		})
	}
}

// Each invalid manifest is also refused by the writer: a dump never
// commits what a reader would refuse.
func TestWriteManifestRefusesWhatReadersRefuse(t *testing.T) {
	d, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	good := &Manifest{Topic: "orders", Partition: 0, NextOffset: 10,
		Files: []FileEntry{{Name: FileName(0, 9), FirstOffset: 0, LastOffset: 9, Records: 10}},
		Lost:  []LostRange{{Kind: LostBetween, From: 10, To: 19}}}
	cases := []struct {
		name   string
		change func(m *Manifest)
		want   error
	}{
		{"valid", func(*Manifest) {}, nil},
		{"lost 5..-5", func(m *Manifest) { m.Lost = []LostRange{{Kind: LostBetween, From: 5, To: -5}} }, ErrBadManifest},
		{"lost 0..max", func(m *Manifest) { m.Lost = []LostRange{{Kind: LostBetween, From: 0, To: math.MaxInt64}} }, ErrBadManifest},
		{"too many lost", func(m *Manifest) {
			m.Lost = nil
			for i := range int64(MaxLostRanges + 1) {
				m.Lost = append(m.Lost, LostRange{Kind: LostBetween, From: 20 + i, To: 20 + i})
			}
		}, ErrBadManifest},
		{"file name with ../", func(m *Manifest) { m.Files[0].Name = "../x.parquet" }, ErrBadName},
		{"topic with ../", func(m *Manifest) { m.Topic = "../x" }, ErrBadName},
		{"next offset inside its last file", func(m *Manifest) { m.NextOffset = 5 }, ErrBadManifest},
		{"next offset -1 with a file", func(m *Manifest) { m.NextOffset = -1 }, ErrBadManifest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := *good
			m.Files = slices.Clone(good.Files)
			m.Lost = slices.Clone(good.Lost)
			c.change(&m)
			before := snapshotOf(t, filepath.Dir(d.Path))
			err := d.WriteManifest(t.Context(), &m)
			if c.want == nil {
				if err != nil {
					t.Fatalf("WriteManifest: %v", err)
				}
				if _, err := d.ReadManifest(t.Context(), m.TP()); err != nil {
					t.Fatalf("read back: %v", err)
				}
				return
			}
			if !errors.Is(err, c.want) || !errors.Is(err, ErrBadManifest) {
				t.Fatalf("WriteManifest = %v, want %v", err, c.want)
			}
			if after := snapshotOf(t, filepath.Dir(d.Path)); !slices.Equal(before, after) {
				t.Fatalf("a refused manifest wrote %v", after)
			}
		})
	}
}

// A cluster snapshot's id becomes a file name (here, in a copy, in a
// bucket's cache): one that is not one path element of the expected
// shape, or not its own file's name, is refused by name, the others are
// read and copied, and nothing is written outside the destination.
func TestDamagedSnapshotCorpus(t *testing.T) {
	snap := func(id string) []byte {
		return mustJSON(t, ClusterSnapshot{FormatVersion: 1, ID: id, Topic: "orders", PartitionCount: 3})
	}
	cases := []struct {
		name string
		file string // under snapshots/
		// write puts the damaged snapshot at path.
		write func(t *testing.T, path string)
		want  error
	}{
		{"id ../../x", "x.json", func(t *testing.T, p string) { os.WriteFile(p, snap("../../x"), 0o644) }, ErrBadName},
		{"id /tmp/x", "x.json", func(t *testing.T, p string) { os.WriteFile(p, snap("/tmp/x"), 0o644) }, ErrBadName},
		{"id not its file's name", "x.json", func(t *testing.T, p string) { os.WriteFile(p, snap("y"), 0o644) }, nil},
		{"topic ../x", "x.json", func(t *testing.T, p string) {
			os.WriteFile(p, mustJSON(t, ClusterSnapshot{FormatVersion: 1, ID: "x", Topic: "../x"}), 0o644)
		}, ErrBadName},
		{"invalid JSON", "x.json", func(t *testing.T, p string) { os.WriteFile(p, []byte(`{"id":`), 0o644) }, nil},
		{"more JSON after its object", "x.json", func(t *testing.T, p string) { os.WriteFile(p, append(snap("x"), snap("x")...), 0o644) }, nil},
		{"newer format", "x.json", func(t *testing.T, p string) {
			os.WriteFile(p, mustJSON(t, ClusterSnapshot{FormatVersion: FormatVersion + 1, ID: "x", Topic: "orders"}), 0o644)
		}, ErrNewerFormat},
		{"FIFO", "x.json", func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		}, safefile.ErrNotRegular},
		{"link to /dev/zero", "x.json", func(t *testing.T, p string) {
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		}, nil},
		{"past the cap", "x.json", func(t *testing.T, p string) {
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			f.Truncate(MaxSnapshotBytes + 1)
		}, safefile.ErrTooLarge},
		// The checks list partitions 0..count-1 and subtract offsets: a
		// count of 2^31-1 had them ask DuckDB for 16 GiB, an offset of
		// -2^63 overflowed (lag, reset exited 2 with DuckDB's error).
		{"partition count 2^31-1", "x.json", writeSnap(func(s *ClusterSnapshot) { s.PartitionCount = math.MaxInt32 }), nil},
		{"high watermark -2^63", "x.json", writeSnap(func(s *ClusterSnapshot) {
			s.Partitions = []PartitionState{{Partition: 0, LogStart: 0, HighWatermark: math.MinInt64, LastStable: 5}}
		}), nil},
		{"high watermark 2^63-1 (less a committed -1 overflows)", "x.json", writeSnap(func(s *ClusterSnapshot) {
			s.Partitions = []PartitionState{{Partition: 0, LogStart: 0, HighWatermark: math.MaxInt64, LastStable: 5}}
		}), nil},
		{"committed offset 2^62+1", "x.json", writeSnap(func(s *ClusterSnapshot) {
			s.Groups = []GroupState{{Group: "g", Offsets: []GroupOffset{{Partition: 0, Offset: MaxCutOffset + 1}}}}
		}), nil},
		{"log start -2", "x.json", writeSnap(func(s *ClusterSnapshot) {
			s.Partitions = []PartitionState{{Partition: 0, LogStart: -2, HighWatermark: 5, LastStable: 5}}
		}), nil},
		{"committed offset -2^63", "x.json", writeSnap(func(s *ClusterSnapshot) {
			s.Groups = []GroupState{{Group: "g", Offsets: []GroupOffset{{Partition: 0, Offset: math.MinInt64}}}}
		}), nil},
		{"committed offset on partition -1", "x.json", writeSnap(func(s *ClusterSnapshot) {
			s.Groups = []GroupState{{Group: "g", Offsets: []GroupOffset{{Partition: -1, Offset: 3}}}}
		}), nil},
		{"share group start offset -2^63", "x.json", writeSnap(func(s *ClusterSnapshot) {
			s.Groups = []GroupState{{Group: "g", ProtocolType: ProtocolShare, Share: []ShareOffset{{Partition: 0, StartOffset: math.MinInt64}}}}
		}), nil},
		{"share group lag 2^63-1", "x.json", writeSnap(func(s *ClusterSnapshot) {
			s.Groups = []GroupState{{Group: "g", ProtocolType: ProtocolShare, Share: []ShareOffset{{Partition: 0, StartOffset: 3, Lag: math.MaxInt64}}}}
		}), nil},
		{"share group on partition -1", "x.json", writeSnap(func(s *ClusterSnapshot) {
			s.Groups = []GroupState{{Group: "g", ProtocolType: ProtocolShare, Share: []ShareOffset{{Partition: -1, StartOffset: 3}}}}
		}), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			src, err := Create(filepath.Join(root, "a", "src"))
			if err != nil {
				t.Fatal(err)
			}
			writeManifest(t, src, TopicPartition{"orders", 0}, 0, 9)
			if err := src.WriteClusterSnapshot(t.Context(), &ClusterSnapshot{ID: "s1", Topic: "orders", PartitionCount: 1}); err != nil {
				t.Fatal(err)
			}
			rel := snapshotsDir + "/" + c.file
			c.write(t, filepath.Join(src.Path, filepath.FromSlash(rel)))

			var snaps []*ClusterSnapshot
			bounded(t, "ClusterSnapshots", 64<<20, func() { snaps, err = src.ClusterSnapshots(t.Context()) })
			var se *SnapshotError
			if !errors.As(err, &se) || se.Rel != rel || !errors.Is(err, ErrBadManifest) && !errors.Is(err, ErrNewerFormat) ||
				c.want != nil && !errors.Is(err, c.want) || strings.Contains(err.Error(), root) {
				t.Fatalf("ClusterSnapshots error %v, want a *SnapshotError naming %s (%v) and not %s", err, rel, c.want, root)
			}
			if len(snaps) != 1 || snaps[0].ID != "s1" {
				t.Fatalf("readable snapshots %v, want s1", snaps)
			}

			before := snapshotOf(t, root)
			dst, err := Create(filepath.Join(root, "a", "dst"))
			if err != nil {
				t.Fatal(err)
			}
			var st CopyStats
			bounded(t, "Copy", 64<<20, func() { st, err = Copy(context.Background(), src, dst) })
			if err == nil || !strings.Contains(err.Error(), rel) || st.Snapshots != 1 || st.Manifests != 1 {
				t.Fatalf("Copy = %+v, %v; want s1 and the manifest copied and %s named", st, err, rel)
			}
			for _, p := range snapshotOf(t, root) {
				if !slices.Contains(before, p) && !strings.HasPrefix(p, dst.Path+string(filepath.Separator)) && p != dst.Path {
					t.Fatalf("Copy wrote %s, outside %s", p, dst.Path)
				}
			}
			if _, err := os.Stat(filepath.Join(dst.Path, snapshotsDir, c.file)); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the damaged snapshot was copied: %v", err)
			}
		})
	}
}

// writeSnap writes a cluster snapshot "x" of topic orders, changed by change.
func writeSnap(change func(s *ClusterSnapshot)) func(t *testing.T, p string) {
	return func(t *testing.T, p string) {
		s := ClusterSnapshot{FormatVersion: 1, ID: "x", Topic: "orders", PartitionCount: 1}
		change(&s)
		if err := os.WriteFile(p, mustJSON(t, s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWriteClusterSnapshotRefusesAPathAsID(t *testing.T) {
	root := t.TempDir()
	d, err := Create(filepath.Join(root, "a", "dir"))
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"../../x", "../x", "a/b", "/tmp/x", ".", "..", ".hidden", "", strings.Repeat("a", MaxSnapshotIDLen+1), "a\x00b"} {
		t.Run(fmt.Sprintf("%q", id), func(t *testing.T) {
			before := snapshotOf(t, root)
			err := d.WriteClusterSnapshot(t.Context(), &ClusterSnapshot{ID: id, Topic: "orders"})
			if !errors.Is(err, ErrBadName) {
				t.Fatalf("WriteClusterSnapshot(%q) = %v, want ErrBadName", id, err)
			}
			if after := snapshotOf(t, root); !slices.Equal(before, after) {
				t.Fatalf("wrote %v", after)
			}
		})
	}
	if err := d.WriteClusterSnapshot(t.Context(), &ClusterSnapshot{ID: NewSnapshotID(time.Now()), Topic: "orders"}); err != nil {
		t.Fatalf("a snapshot id NewSnapshotID makes: %v", err)
	}
}

// The other metadata files are read with the same bounds: topicsnap.json
// (Open), a stored schema, a copy's .etags.json.
func TestOtherMetadataIsReadBounded(t *testing.T) {
	fifo := func(t *testing.T, p string) {
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	zero := func(t *testing.T, p string) {
		if err := os.Symlink("/dev/zero", p); err != nil {
			t.Fatal(err)
		}
	}
	big := func(max int64) func(t *testing.T, p string) {
		return func(t *testing.T, p string) {
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			f.Truncate(max + 1)
		}
	}
	type file struct {
		name string
		rel  string
		max  int64
		read func(d *Dir) error
	}
	files := []file{
		{"topicsnap.json", folderFile, MaxFolderFileBytes, func(d *Dir) error { _, err := Open(d.Path); return err }},
		{"a schema", "schemas/7.json", MaxSchemaBytes, func(d *Dir) error { _, err := d.ReadSchema(t.Context(), 7); return err }},
	}
	for _, f := range files {
		for _, w := range []struct {
			name  string
			write func(t *testing.T, p string)
			want  error
		}{{"FIFO", fifo, safefile.ErrNotRegular}, {"link to /dev/zero", zero, nil}, {"past the cap", big(f.max), safefile.ErrTooLarge}} {
			t.Run(f.name+"/"+w.name, func(t *testing.T) {
				d, err := Create(t.TempDir())
				if err != nil {
					t.Fatal(err)
				}
				p := filepath.Join(d.Path, filepath.FromSlash(f.rel))
				os.MkdirAll(filepath.Dir(p), 0o755)
				os.Remove(p)
				w.write(t, p)
				bounded(t, "read "+f.rel, 16<<20, func() { err = f.read(d) })
				if !errors.Is(err, ErrBadManifest) || w.want != nil && !errors.Is(err, w.want) {
					t.Fatalf("read %s = %v, want ErrBadManifest (%v)", f.rel, err, w.want)
				}
			})
		}
	}

	// A copy's .etags.json is a hint: a FIFO in its place is skipped, not
	// waited on, and the copy goes on.
	root := t.TempDir()
	src, err := Create(filepath.Join(root, "src"))
	if err != nil {
		t.Fatal(err)
	}
	writeManifest(t, src, TopicPartition{"orders", 0}, 0, 9)
	dst, err := Create(filepath.Join(root, "dst"))
	if err != nil {
		t.Fatal(err)
	}
	pdir := dst.PartitionDir(TopicPartition{"orders", 0})
	os.MkdirAll(pdir, 0o755)
	fifo(t, filepath.Join(pdir, etagsName))
	var st CopyStats
	bounded(t, "Copy past a FIFO .etags.json", 64<<20, func() { st, err = Copy(context.Background(), src, dst) })
	if err != nil || st.Manifests != 1 || st.Files != 1 {
		t.Fatalf("Copy = %+v, %v", st, err)
	}
}

// A folder named partition=07 is not partition 7's: it is not read as a
// second copy of it.
func TestPartitionFolderNamesAreExact(t *testing.T) {
	d, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeManifest(t, d, TopicPartition{"orders", 7}, 0, 9)
	if err := os.Mkdir(filepath.Join(d.Path, "topic=orders", "partition=07"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(d.Path, "topic=orders", "partition=07", manifestName), []byte("{}"), 0o644)
	tm, err := d.ReadTopic(t.Context(), "orders")
	if err != nil || len(tm.Manifests) != 1 || len(tm.Damaged) != 0 {
		t.Fatalf("ReadTopic = %+v, %v; want partition 7 once", tm, err)
	}
}

// A data file a manifest lists is opened like the metadata: a FIFO in its
// place is refused, not waited on; a link leading out of the folder (to a
// file of this machine, of the size the manifest says) is not copied.
func TestCopyRefusesDataFilesOutsideTheFolder(t *testing.T) {
	tp := TopicPartition{"orders", 0}
	cases := []struct {
		name    string
		replace func(t *testing.T, path string, size int64)
		want    error
	}{
		{"FIFO", func(t *testing.T, path string, _ int64) {
			if err := syscall.Mkfifo(path, 0o644); err != nil {
				t.Fatal(err)
			}
		}, nil},
		{"link out of the folder", func(t *testing.T, path string, size int64) {
			secret := filepath.Join(t.TempDir(), "secret")
			if err := os.WriteFile(secret, make([]byte, size), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(secret, path); err != nil {
				t.Fatal(err)
			}
		}, nil},
		{"link to /dev/zero", func(t *testing.T, path string, _ int64) {
			if err := os.Symlink("/dev/zero", path); err != nil {
				t.Fatal(err)
			}
		}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			src, err := Create(filepath.Join(root, "src"))
			if err != nil {
				t.Fatal(err)
			}
			writeManifest(t, src, tp, 0, 9)
			m, err := src.ReadManifest(t.Context(), tp)
			if err != nil {
				t.Fatal(err)
			}
			path := src.FilePath(tp, m.Files[0].Name)
			os.Remove(path)
			c.replace(t, path, m.Files[0].Bytes)
			dst, err := Create(filepath.Join(root, "dst"))
			if err != nil {
				t.Fatal(err)
			}
			var st CopyStats
			bounded(t, "Copy", 64<<20, func() { st, err = Copy(context.Background(), src, dst) })
			if err == nil || c.want != nil && !errors.Is(err, c.want) || st.Files != 0 {
				t.Fatalf("Copy = %+v, %v; want refused (%v)", st, err, c.want)
			}
			if _, err := os.Stat(dst.FilePath(tp, m.Files[0].Name)); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the file was copied: %v", err)
			}
		})
	}
}

func TestOpenRegular(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ok"), []byte("x"), 0o644)
	syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644)
	outside := filepath.Join(t.TempDir(), "secret")
	os.WriteFile(outside, []byte("x"), 0o600)
	os.Symlink(outside, filepath.Join(dir, "out"))
	os.Symlink("ok", filepath.Join(dir, "in"))
	cases := []struct {
		name   string
		ok     bool
		reason error
	}{{"ok", true, nil}, {"in", true, nil}, {"fifo", false, safefile.ErrNotRegular}, {"out", false, nil}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var f *os.File
			var err error
			bounded(t, "open", 1<<20, func() { f, err = openRegular(dir, c.name) })
			if f != nil {
				f.Close()
			}
			if (err == nil) != c.ok || c.reason != nil && !errors.Is(err, c.reason) {
				t.Fatalf("openRegular(%s) = %v, want ok %v (%v)", c.name, err, c.ok, c.reason)
			}
		})
	}
	if _, err := openRegular("", filepath.Join(dir, "fifo")); !errors.Is(err, safefile.ErrNotRegular) {
		t.Fatalf("openRegular of a FIFO by path = %v", err)
	}
}

// A topic name that is not one (a path, as a user may type) reads as a
// topic the folder does not hold: nothing outside the folder is listed.
func TestReadTopicOfAPathIsEmpty(t *testing.T) {
	root := t.TempDir()
	d, err := Create(filepath.Join(root, "a", "dir"))
	if err != nil {
		t.Fatal(err)
	}
	// What topic=../../x would list if it were joined as a path: the
	// folder "topic=.." and ".." cancel out, leaving DIR/x.
	if err := os.MkdirAll(filepath.Join(d.Path, "x", "partition=0"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(d.Path, "x", "partition=0", manifestName), mustJSON(t, goodManifest(TopicPartition{"orders", 0})), 0o644)
	for _, topic := range []string{"../../x", "/etc", "..", ""} {
		tm, err := d.ReadTopic(t.Context(), topic)
		if err != nil || len(tm.Manifests) != 0 || len(tm.Damaged) != 0 {
			t.Fatalf("ReadTopic(%q) = %+v, %v; want nothing", topic, tm, err)
		}
	}
}

// TestPartitionLinkIsNamed: a partition's folder replaced by a symbolic
// link (out of the folder or not) or by a file is not read, and it is named
// as damaged, by ReadTopic and by Verify, rather than left out in silence
// (the checks then judged the other partitions as the whole topic and said
// ok).
func TestPartitionLinkIsNamed(t *testing.T) {
	for _, c := range []struct {
		name   string
		damage func(t *testing.T, pdir string)
		want   string
	}{
		{"a link out of the folder", func(t *testing.T, pdir string) {
			out := filepath.Join(t.TempDir(), "elsewhere")
			if err := os.Rename(pdir, out); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(out, pdir); err != nil {
				t.Fatal(err)
			}
		}, "symbolic link"},
		{"a file", func(t *testing.T, pdir string) {
			if err := os.RemoveAll(pdir); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(pdir, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "not a folder"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			d, err := Create(dir)
			if err != nil {
				t.Fatal(err)
			}
			for p := range int32(3) {
				tp := TopicPartition{Topic: "t", Partition: p}
				fe, err := d.WriteDataFile(t.Context(), tp, []Row{{Partition: p, Offset: 0, Value: []byte(`{"a":1}`)}}, "s1")
				if err != nil {
					t.Fatal(err)
				}
				if err := d.WriteManifest(t.Context(), &Manifest{Topic: "t", Partition: p, NextOffset: 1, Files: []FileEntry{fe}}); err != nil {
					t.Fatal(err)
				}
			}
			c.damage(t, d.PartitionDir(TopicPartition{Topic: "t", Partition: 1}))
			tm, err := d.ReadTopic(t.Context(), "t")
			if err != nil {
				t.Fatal(err)
			}
			if len(tm.Manifests) != 2 || tm.Manifests[0].Partition != 0 || tm.Manifests[1].Partition != 2 {
				t.Fatalf("readable partitions: %d, want 0 and 2", len(tm.Manifests))
			}
			if len(tm.Damaged) != 1 || tm.Damaged[0].TP.Partition != 1 || !errors.Is(tm.Damaged[0], ErrBadManifest) {
				t.Fatalf("damaged: %v, want partition 1", tm.Damaged)
			}
			if msg := tm.Damaged[0].Error(); !strings.Contains(msg, c.want) || !strings.Contains(msg, "topic=t/partition=1") || strings.Contains(msg, dir) {
				t.Fatalf("damaged partition's message: %s", msg)
			}
			files, problems, err := d.Verify(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if files != 2 || len(problems) != 1 || !strings.Contains(problems[0].Detail, c.want) {
				t.Fatalf("verify: %d files, problems %v", files, problems)
			}
		})
	}
}

// TestVerifyNamesAColumnOfAnotherType: a data file that is valid Parquet
// with every column topicsnap needs, one of them of another type (a value
// column of INT32), fails every read of its topic's views; verify names it
// rather than saying it matches its manifest.
func TestVerifyNamesAColumnOfAnotherType(t *testing.T) {
	type oddRow struct {
		Partition int32    `parquet:"partition"`
		Offset    int64    `parquet:"offset"`
		Timestamp int64    `parquet:"timestamp,timestamp(millisecond)"`
		Key       []byte   `parquet:"key,optional"`
		Value     int32    `parquet:"value"`
		Headers   []Header `parquet:"headers,list"`
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[oddRow](&buf)
	if _, err := w.Write([]oddRow{{Offset: 0, Value: 42}, {Offset: 1, Value: 43}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	err := checkParquet(bytes.NewReader(buf.Bytes()), int64(buf.Len()), FileEntry{Records: 2})
	if err == nil || !strings.Contains(err.Error(), `column "value" is INTEGER, where topicsnap's views read BLOB`) {
		t.Fatalf("a value column of INT32: %v", err)
	}
	// A file as the dump writes it still passes.
	d, err := Create(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tp := TopicPartition{Topic: "t", Partition: 0}
	fe, err := d.WriteDataFile(t.Context(), tp, []Row{{Offset: 0, Value: []byte(`{"a":1}`)}, {Offset: 1}}, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if err := checkDataFile(d.FilePath(tp, fe.Name), fe); err != nil {
		t.Fatalf("a file as written: %v", err)
	}
}
