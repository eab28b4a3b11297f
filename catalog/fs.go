package catalog

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Errors a caller can tell apart with errors.Is.
var (
	ErrNewerFormat = errors.New("snapshot folder written by a newer topicsnap")
	ErrLocked      = errors.New("partition is locked by another dumper")
	ErrNotWritable = errors.New("snapshot folder is not writable")
	ErrDiskFull    = errors.New("no space left on device")
	ErrBadManifest = errors.New("manifest is not valid")
)

const (
	folderFile   = "topicsnap.json"
	manifestName = "manifest.json"
	tmpPrefix    = ".tmp-"
	lockName     = ".lock"
	snapshotsDir = "snapshots"
)

// Dir is a snapshot folder.
type Dir struct{ Path string }

type folderInfo struct {
	FormatVersion int    `json:"format_version"`
	CreatedBy     string `json:"created_by"`
}

// Open checks that path is a snapshot folder this build can read. A folder
// that does not exist reads as empty.
func Open(path string) (*Dir, error) {
	d := &Dir{Path: path}
	b, err := os.ReadFile(filepath.Join(path, folderFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return d, nil
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", filepath.Join(path, folderFile), err)
	}
	var fi folderInfo
	if err := json.Unmarshal(b, &fi); err != nil {
		return nil, fmt.Errorf("read %s: %w: %v", filepath.Join(path, folderFile), ErrBadManifest, err)
	}
	if fi.FormatVersion > FormatVersion {
		return nil, fmt.Errorf("%s has format version %d, this build reads up to %d: %w",
			path, fi.FormatVersion, FormatVersion, ErrNewerFormat)
	}
	return d, nil
}

// Create opens path for writing, creating the folder and its version file.
func Create(path string) (*Dir, error) {
	// First the folder, so that a path that cannot be one (a file on the
	// way) is named as not writable rather than unreadable.
	if err := os.MkdirAll(path, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", path, classify(err))
	}
	d, err := Open(path)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(path, folderFile)); errors.Is(err, os.ErrNotExist) {
		b, _ := json.MarshalIndent(folderInfo{FormatVersion, "topicsnap"}, "", "  ")
		if err := WriteFileAtomic(filepath.Join(path, folderFile), func(w io.Writer) error {
			_, err := w.Write(append(b, '\n'))
			return err
		}); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// classify maps OS errors to the catalog's error kinds.
func classify(err error) error {
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return fmt.Errorf("%w: %w", ErrDiskFull, err)
	case errors.Is(err, os.ErrPermission), errors.Is(err, syscall.EROFS), errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%w: %w", ErrNotWritable, err)
	}
	return err
}

// PartitionDir is the folder of one topic-partition.
func (d *Dir) PartitionDir(tp TopicPartition) string {
	return filepath.Join(d.Path, "topic="+tp.Topic, "partition="+strconv.Itoa(int(tp.Partition)))
}

// FileName is the name of a data file holding offsets first..last.
func FileName(first, last int64) string {
	return fmt.Sprintf("%020d-%020d.parquet", first, last)
}

// FilePath is the absolute path of a committed file.
func (d *Dir) FilePath(tp TopicPartition, name string) string {
	return filepath.Join(d.PartitionDir(tp), name)
}

// WriteFileAtomic writes path through fill: to a temp file in the same folder,
// fsynced, renamed over path, and the folder fsynced. On any error nothing is
// left behind and path is untouched.
func WriteFileAtomic(path string, fill func(w io.Writer) error) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, tmpPrefix+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("create temp file in %s: %w", dir, classify(err))
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err = fill(f); err != nil {
		return fmt.Errorf("write %s: %w", path, classify(err))
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", path, classify(err))
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, classify(err))
	}
	if err = os.Rename(tmp, path); err != nil {
		return fmt.Errorf("rename %s: %w", path, classify(err))
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open folder %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync folder %s: %w", dir, classify(err))
	}
	return nil
}

// NewSnapshotID returns a sortable, unique snapshot id for a cut at t.
func NewSnapshotID(t time.Time) string {
	var b [3]byte
	rand.Read(b[:])
	return t.UTC().Format("20060102T150405.000Z") + "-" + hex.EncodeToString(b[:])
}

// ReadManifest reads the manifest of tp. A partition never dumped has an
// empty manifest with NextOffset -1.
func (d *Dir) ReadManifest(tp TopicPartition) (*Manifest, error) {
	path := filepath.Join(d.PartitionDir(tp), manifestName)
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Manifest{FormatVersion: FormatVersion, Topic: tp.Topic, Partition: tp.Partition, NextOffset: -1}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read manifest %s: %w", path, err)
	}
	return parseManifest(path, b)
}

// ParseManifest decodes and validates a manifest's bytes; path names it in errors.
func parseManifest(path string, b []byte) (*Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("read manifest %s: %w: %v (run: topicsnap catalog verify)", path, ErrBadManifest, err)
	}
	if m.FormatVersion > FormatVersion {
		return nil, fmt.Errorf("read manifest %s: format version %d, this build reads up to %d: %w", path, m.FormatVersion, FormatVersion, ErrNewerFormat)
	}
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("read manifest %s: %w: %v", path, ErrBadManifest, err)
	}
	return &m, nil
}

// ParseManifest is exported for fuzzing and tools.
func ParseManifest(path string, b []byte) (*Manifest, error) { return parseManifest(path, b) }

func (m *Manifest) validate() error {
	if m.Topic == "" || !ValidTopicName(m.Topic) {
		return fmt.Errorf("bad topic name %q", m.Topic)
	}
	if m.Partition < 0 {
		return fmt.Errorf("bad partition %d", m.Partition)
	}
	prev := int64(-1)
	for _, f := range m.Files {
		if f.Name != FileName(f.FirstOffset, f.LastOffset) {
			return fmt.Errorf("file %q does not match its range %d-%d", f.Name, f.FirstOffset, f.LastOffset)
		}
		if f.FirstOffset <= prev || f.LastOffset < f.FirstOffset || f.Records < 0 {
			return fmt.Errorf("file %q overlaps or is out of order", f.Name)
		}
		prev = f.LastOffset
	}
	return nil
}

// ValidTopicName reports whether name is a legal Kafka topic name, which
// also makes it safe as a path element.
func ValidTopicName(name string) bool {
	if name == "" || len(name) > 249 || name == "." || name == ".." {
		return false
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// WriteManifest commits m atomically.
func (d *Dir) WriteManifest(m *Manifest) error {
	m.FormatVersion = FormatVersion
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("encode manifest %s: %w", m.TP(), err)
	}
	dir := d.PartitionDir(m.TP())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, classify(err))
	}
	return WriteFileAtomic(filepath.Join(dir, manifestName), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// Lock is an exclusive hold on one partition's folder.
type Lock struct{ f *os.File }

// LockPartition takes the writer's lock on tp, or fails at once with
// ErrLocked. The kernel drops the lock if the process dies, so a killed
// dumper never leaves a stale lock.
func (d *Dir) LockPartition(tp TopicPartition) (*Lock, error) {
	dir := d.PartitionDir(tp)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, classify(err))
	}
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open lock of %s: %w", tp, classify(err))
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("lock %s in %s: %w", tp, d.Path, ErrLocked)
		}
		return nil, fmt.Errorf("lock %s: %w", tp, err)
	}
	return &Lock{f}, nil
}

// Unlock releases the lock.
func (l *Lock) Unlock() {
	if l != nil && l.f != nil {
		syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
		l.f.Close()
	}
}

// CleanPartition removes leftovers of an interrupted writer: temp files, and
// data files the manifest does not list. Call it only while holding the lock.
func (d *Dir) CleanPartition(m *Manifest) (removed []string, err error) {
	dir := d.PartitionDir(m.TP())
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	listed := map[string]bool{}
	for _, f := range m.Files {
		listed[f.Name] = true
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, tmpPrefix) || (strings.HasSuffix(name, ".parquet") && !listed[name]) {
			if err := os.Remove(filepath.Join(dir, name)); err != nil {
				return removed, fmt.Errorf("remove leftover %s: %w", name, err)
			}
			removed = append(removed, name)
		}
	}
	return removed, nil
}

// Topics lists the topics that have a folder.
func (d *Dir) Topics() ([]string, error) {
	entries, err := os.ReadDir(d.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", d.Path, err)
	}
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutPrefix(e.Name(), "topic="); ok && e.IsDir() && ValidTopicName(name) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Manifests reads the manifests of every partition of topic that has one.
func (d *Dir) Manifests(topic string) ([]*Manifest, error) {
	tdir := filepath.Join(d.Path, "topic="+topic)
	entries, err := os.ReadDir(tdir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", tdir, err)
	}
	var out []*Manifest
	for _, e := range entries {
		ps, ok := strings.CutPrefix(e.Name(), "partition=")
		if !ok || !e.IsDir() {
			continue
		}
		p, err := strconv.Atoi(ps)
		if err != nil || p < 0 {
			continue
		}
		if _, err := os.Stat(filepath.Join(tdir, e.Name(), manifestName)); errors.Is(err, os.ErrNotExist) {
			continue
		}
		m, err := d.ReadManifest(TopicPartition{topic, int32(p)})
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Partition < out[j].Partition })
	return out, nil
}

// WriteClusterSnapshot commits the cluster state of a snapshot.
func (d *Dir) WriteClusterSnapshot(s *ClusterSnapshot) error {
	s.FormatVersion = FormatVersion
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode snapshot %s: %w", s.ID, err)
	}
	dir := filepath.Join(d.Path, snapshotsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, classify(err))
	}
	return WriteFileAtomic(filepath.Join(dir, s.ID+".json"), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// ClusterSnapshots reads every committed cluster snapshot, oldest first.
func (d *Dir) ClusterSnapshots() ([]*ClusterSnapshot, error) {
	dir := filepath.Join(d.Path, snapshotsDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var out []*ClusterSnapshot
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), tmpPrefix) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("read snapshot %s: %w", path, err)
		}
		var s ClusterSnapshot
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("read snapshot %s: %w: %v", path, ErrBadManifest, err)
		}
		if s.FormatVersion > FormatVersion {
			return nil, fmt.Errorf("read snapshot %s: %w", path, ErrNewerFormat)
		}
		out = append(out, &s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}
