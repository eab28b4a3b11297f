package catalog

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog/store"
	"github.com/topicsnap/topicsnap/internal/safefile"
)

// testBucket returns a fresh s3:// prefix in the bucket of the real S3
// server make test starts (scripts/s3.sh), with its credentials in the
// environment the AWS SDK reads. Without TOPICSNAP_TEST_S3_ENDPOINT the
// test skips.
func testBucket(t *testing.T) (loc string, cfg S3Config) {
	t.Helper()
	ep := os.Getenv("TOPICSNAP_TEST_S3_ENDPOINT")
	if ep == "" {
		t.Skip("TOPICSNAP_TEST_S3_ENDPOINT not set (make test starts scripts/s3.sh and sets it)")
	}
	t.Setenv("AWS_ACCESS_KEY_ID", os.Getenv("TOPICSNAP_TEST_S3_ACCESS_KEY"))
	t.Setenv("AWS_SECRET_ACCESS_KEY", os.Getenv("TOPICSNAP_TEST_S3_SECRET_KEY"))
	t.Setenv("AWS_REGION", "us-east-1")
	var b [4]byte
	rand.Read(b[:])
	loc = "s3://" + os.Getenv("TOPICSNAP_TEST_S3_BUCKET") + "/" + strings.ToLower(t.Name()) + "-" + hex.EncodeToString(b[:])
	return loc, S3Config{Endpoint: ep, Log: func(s string) { t.Log(s) }}
}

// putObject writes rel in d's store as it is, whatever is there.
func putObject(t *testing.T, d *Dir, rel string, b []byte) {
	t.Helper()
	if _, err := d.Store().Put(t.Context(), rel, b, store.Cond{}); err != nil {
		t.Fatal(err)
	}
}

// testLock is a bucket's lock object as catalog/bucket writes it.
type testLock struct {
	Owner   string    `json:"owner"`
	Host    string    `json:"host"`
	PID     int       `json:"pid"`
	Expires time.Time `json:"expires"`
}

func mustCreateAt(t *testing.T, loc string, cfg S3Config) *Dir {
	t.Helper()
	d, err := CreateAt(t.Context(), loc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestS3RoundTrip(t *testing.T) {
	loc, cfg := testBucket(t)
	cfg.PartSize = 5 << 20 // the smallest part S3 allows, so a 6 MB file goes in two parts
	d := mustCreateAt(t, loc, cfg)
	tp := TopicPartition{"orders", 3}
	writeManifest(t, d, tp, 0, 99)

	// A file larger than a part: a multipart upload, complete or absent.
	big := TopicPartition{"orders", 4}
	var rows []Row
	for o := int64(0); o < 100; o++ {
		v := make([]byte, 64<<10)
		rand.Read(v)
		rows = append(rows, Row{Partition: 4, Offset: o, Timestamp: 1700000000000 + o, Value: v})
	}
	fe, err := d.WriteDataFile(t.Context(), big, rows, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if fe.Bytes <= cfg.PartSize {
		t.Fatalf("file of %d bytes is not larger than a part (%d)", fe.Bytes, cfg.PartSize)
	}
	if err := d.WriteManifest(t.Context(), &Manifest{Topic: "orders", Partition: 4, NextOffset: 100, Files: []FileEntry{fe}}); err != nil {
		t.Fatal(err)
	}
	if err := d.WriteClusterSnapshot(t.Context(), &ClusterSnapshot{ID: "s1", Topic: "orders", PartitionCount: 5}); err != nil {
		t.Fatal(err)
	}

	// A second reader, as on another host, sees what was committed.
	r, err := OpenAt(t.Context(), loc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	topics, err := r.Topics(t.Context())
	if err != nil || len(topics) != 1 || topics[0] != "orders" {
		t.Fatalf("topics %v, %v", topics, err)
	}
	ms, err := r.Manifests(t.Context(), "orders")
	if err != nil || len(ms) != 2 || ms[0].Partition != 3 || ms[1].Partition != 4 || ms[1].Files[0].Records != 100 {
		t.Fatalf("manifests %+v, %v", ms, err)
	}
	snaps, err := r.ClusterSnapshots(t.Context())
	if err != nil || len(snaps) != 1 || snaps[0].ID != "s1" {
		t.Fatalf("snapshots %+v, %v", snaps, err)
	}
	files, problems, err := r.Verify(t.Context())
	if err != nil || files != 2 || len(problems) != 0 {
		t.Fatalf("verify: %d files, %v, %v", files, problems, err)
	}

	// Verify finds a truncated file and a missing one, by name.
	putObject(t, r, RelFilePath(tp, ms[0].Files[0].Name), []byte("PAR1"))
	if err := r.Store().Delete(t.Context(), RelFilePath(big, fe.Name)); err != nil {
		t.Fatal(err)
	}
	_, problems, err = r.Verify(t.Context())
	if err != nil || len(problems) != 2 || !strings.Contains(problems[0].Detail, "size 4 bytes") || problems[1].Detail != "missing" {
		t.Fatalf("verify after damage: %v, %v", problems, err)
	}
}

func TestS3OpenRefusesForeignPrefixAndMissingBucket(t *testing.T) {
	loc, cfg := testBucket(t)
	d, err := OpenAt(t.Context(), loc, cfg) // nothing there yet: an empty catalog
	if err != nil {
		t.Fatalf("empty prefix: %v", err)
	}
	putObject(t, d, "notes.txt", []byte("mine"))
	if _, err := OpenAt(t.Context(), loc, cfg); !errors.Is(err, ErrNoCatalog) || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("foreign prefix: %v", err)
	}
	if _, err := OpenAt(t.Context(), "s3://no-such-bucket-topicsnap/x", cfg); !errors.Is(err, ErrNoCatalog) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("missing bucket: %v", err)
	}
	if _, err := OpenAt(t.Context(), "s3:///x", cfg); !errors.Is(err, ErrNoCatalog) {
		t.Fatalf("no bucket: %v", err)
	}
}

func TestS3WrongSecretIsRefused(t *testing.T) {
	loc, cfg := testBucket(t)
	secret := "definitely-not-the-secret"
	t.Setenv("AWS_SECRET_ACCESS_KEY", secret)
	_, err := OpenAt(t.Context(), loc, cfg)
	if !errors.Is(err, ErrDenied) || strings.Contains(err.Error(), secret) {
		t.Fatalf("wrong secret: %v", err)
	}
}

// Two writers that read the same manifest: the first commit wins, the
// second is refused with ErrConflict and the manifest holds the first's.
func TestS3TwoWritersOneCommits(t *testing.T) {
	loc, cfg := testBucket(t)
	a := mustCreateAt(t, loc, cfg)
	b, err := OpenAt(t.Context(), loc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	tp := TopicPartition{"race", 0}
	cases := []struct {
		name string
		next [2]int64
	}{
		{"create (If-None-Match: *)", [2]int64{10, 20}},
		{"replace (If-Match)", [2]int64{30, 40}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ma, err := a.ReadManifest(t.Context(), tp)
			if err != nil {
				t.Fatal(err)
			}
			mb, err := b.ReadManifest(t.Context(), tp)
			if err != nil {
				t.Fatal(err)
			}
			ma.NextOffset, mb.NextOffset = c.next[0], c.next[1]
			var wg sync.WaitGroup
			errs := make([]error, 2)
			for i, w := range []struct {
				d *Dir
				m *Manifest
			}{{a, ma}, {b, mb}} {
				wg.Add(1)
				go func() { defer wg.Done(); errs[i] = w.d.WriteManifest(t.Context(), w.m) }()
			}
			wg.Wait()
			won := -1
			for i, err := range errs {
				switch {
				case err == nil && won < 0:
					won = i
				case err == nil:
					t.Fatal("both writers committed")
				case !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "stops without overwriting"):
					t.Fatalf("writer %d: %v", i, err)
				}
			}
			if won < 0 {
				t.Fatalf("no writer committed: %v", errs)
			}
			c2, err := OpenAt(t.Context(), loc, cfg)
			if err != nil {
				t.Fatal(err)
			}
			m, err := c2.ReadManifest(t.Context(), tp)
			if err != nil || m.NextOffset != c.next[won] {
				t.Fatalf("manifest next %d, want the winner's %d (%v)", m.NextOffset, c.next[won], err)
			}
			// The loser's next write is refused too until it reads again.
			loser, lm := []*Dir{a, b}[1-won], []*Manifest{ma, mb}[1-won]
			lm.NextOffset = 999
			if err := loser.WriteManifest(t.Context(), lm); !errors.Is(err, ErrConflict) {
				t.Fatalf("loser wrote again: %v", err)
			}
		})
	}
}

// A lock whose holder died expires and is taken over; a lock whose holder
// lives is renewed and is not.
func TestS3StaleLockExpires(t *testing.T) {
	loc, cfg := testBucket(t)
	cfg.LockTTL = 1500 * time.Millisecond
	d := mustCreateAt(t, loc, cfg)
	tp := TopicPartition{"locks", 0}
	// A holder killed with kill -9 leaves its lock object as it was.
	dead, _ := json.Marshal(testLock{Owner: "otherhost pid 42 dead", Expires: time.Now().Add(cfg.LockTTL).UTC()})
	putObject(t, d, RelPartitionDir(tp)+"/"+lockName, dead)
	if _, err := d.LockPartition(t.Context(), tp); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "otherhost pid 42") {
		t.Fatalf("lock held by a live-looking owner: %v", err)
	}
	time.Sleep(cfg.LockTTL + 200*time.Millisecond)
	l, err := d.LockPartition(t.Context(), tp)
	if err != nil {
		t.Fatalf("expired lock not taken over: %v", err)
	}
	// Held and renewed: another dumper is refused even after the TTL.
	time.Sleep(2 * cfg.LockTTL)
	other, err := OpenAt(t.Context(), loc, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.LockPartition(t.Context(), tp); !errors.Is(err, ErrLocked) {
		t.Fatalf("renewed lock taken: %v", err)
	}
	l.Unlock()
	l2, err := other.LockPartition(t.Context(), tp)
	if err != nil {
		t.Fatalf("released lock: %v", err)
	}
	l2.Unlock()

	// A holder on this host whose process is gone is noticed at once,
	// long before its lock would expire.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	tp2 := TopicPartition{"locks", 1}
	dead, _ = json.Marshal(testLock{Owner: "a killed dumper", Host: host, PID: gone.Process.Pid, Expires: time.Now().Add(time.Hour).UTC()})
	putObject(t, d, RelPartitionDir(tp2)+"/"+lockName, dead)
	l3, err := d.LockPartition(t.Context(), tp2)
	if err != nil {
		t.Fatalf("lock of a dead process on this host: %v", err)
	}
	l3.Unlock()
}

// A server that does not answer is retried with backoff, said on the
// log, until the context ends.
func TestS3DownIsRetriedAndSaid(t *testing.T) {
	_, cfg := testBucket(t)
	var mu sync.Mutex
	var said []string
	cfg.Endpoint = "http://127.0.0.1:1" // nothing listens there
	cfg.Log = func(s string) { mu.Lock(); said = append(said, s); mu.Unlock() }
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	_, err := OpenAt(ctx, "s3://b/p", cfg)
	if err == nil {
		t.Fatal("opened a bucket on a server that is down")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(said) == 0 || !strings.Contains(said[0], "retrying in") {
		t.Fatalf("retries not said: %v (err %v)", said, err)
	}
}

// TestS3HostileObjects: a bucket's metadata objects are read as a folder's
// files are: a manifest object past MaxManifestBytes is refused without
// being read whole, a manifest of another partition costs its own, both
// named by their key under the prefix; a snapshot whose id is a path is
// refused by name, and a copy into the local cache writes nothing outside
// it.
func TestS3HostileObjects(t *testing.T) {
	loc, cfg := testBucket(t)
	d := mustCreateAt(t, loc, cfg)
	for p := int32(0); p < 4; p++ {
		writeManifest(t, d, TopicPartition{"orders", p}, 0, 9)
	}
	if err := d.WriteClusterSnapshot(t.Context(), &ClusterSnapshot{ID: "s1", Topic: "orders", PartitionCount: 4}); err != nil {
		t.Fatal(err)
	}
	other := goodManifest(TopicPartition{"orders", 2})
	putObject(t, d, manifestRel(TopicPartition{"orders", 1}), mustJSON(t, other))
	big := bytes.Repeat([]byte(" "), MaxManifestBytes+1)
	putObject(t, d, manifestRel(TopicPartition{"orders", 3}), big)
	evil := mustJSON(t, ClusterSnapshot{FormatVersion: 1, ID: "../../x", Topic: "orders"})
	putObject(t, d, snapshotsDir+"/x.json", evil)
	big = nil

	var tm *TopicManifests
	var err error
	bounded(t, "ReadTopic", 64<<20, func() { tm, err = d.ReadTopic(t.Context(), "orders") })
	if err != nil || len(tm.Manifests) != 2 || len(tm.Damaged) != 2 {
		t.Fatalf("ReadTopic = %+v, %v; want partitions 0 and 2, 1 and 3 damaged", tm, err)
	}
	for i, want := range []error{ErrBadManifest, safefile.ErrTooLarge} {
		me := tm.Damaged[i]
		if !errors.Is(me, want) || me.Rel != manifestRel(me.TP) || !strings.Contains(me.Error(), me.Rel) {
			t.Errorf("damaged %v: %v, want %v naming %s", me.TP, me, want, manifestRel(me.TP))
		}
	}
	snaps, err := d.ClusterSnapshots(t.Context())
	var se *SnapshotError
	if !errors.As(err, &se) || !errors.Is(err, ErrBadName) || se.Rel != "snapshots/x.json" || len(snaps) != 1 {
		t.Fatalf("ClusterSnapshots = %v, %v; want s1 and x.json named", snaps, err)
	}

	root := t.TempDir()
	cache, err := Create(filepath.Join(root, "a", "cache"))
	if err != nil {
		t.Fatal(err)
	}
	before := snapshotOf(t, root)
	st, err := Copy(t.Context(), d, cache)
	if err == nil || st.Manifests != 2 || st.Snapshots != 1 {
		t.Fatalf("Copy = %+v, %v; want two manifests, s1, and the damaged named", st, err)
	}
	for _, p := range snapshotOf(t, root) {
		if !slices.Contains(before, p) && !strings.HasPrefix(p, cache.Path) {
			t.Fatalf("Copy wrote %s, outside %s", p, cache.Path)
		}
	}
}
