package catalog

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/topicsnap/topicsnap/internal/exit"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/topicsnap/topicsnap/internal/safefile"
)

// Errors a caller can tell apart with errors.Is.
var (
	ErrNewerFormat = exit.New(exit.BadFolder, "snapshot folder written by a newer topicsnap", "use a newer topicsnap build for this folder")
	ErrLocked      = exit.New(exit.Locked, "partition is locked by another dumper", "wait for the other dump to finish, or give each dumper its own --partitions")
	ErrNotWritable = exit.New(exit.Disk, "snapshot folder is not writable", "choose with --dir a folder you can write (not on a read-only mount, not under a file), or fix its permissions")
	ErrDiskFull    = exit.New(exit.Disk, "no space left on device", "free space in the snapshot folder, then run the same command: it resumes from the last committed file")
	ErrBadManifest = exit.New(exit.BadFolder, "manifest is not valid", "run: topicsnap catalog verify --dir DIR")
	// ErrNoCatalog is a path that holds no snapshot folder: it does not
	// exist, is not a folder, or holds files topicsnap did not write.
	ErrNoCatalog = exit.New(exit.NoCatalog, "no snapshot folder", "point --dir (or TOPICSNAP_DIR) at a snapshot folder, or make one: topicsnap dump --brokers HOST:PORT --topic NAME --dir DIR")
)

const (
	folderFile   = "topicsnap.json"
	manifestName = "manifest.json"
	tmpPrefix    = ".tmp-"
	lockName     = ".lock"
	snapshotsDir = "snapshots"
)

// Dir is a snapshot folder.
type Dir struct {
	// Path is the folder, or s3://bucket/prefix for a bucket.
	Path string
	s3   *s3Store // nil: a local folder
}

type folderInfo struct {
	FormatVersion int    `json:"format_version"`
	CreatedBy     string `json:"created_by"`
}

// Open checks that path is a snapshot folder this build can read: a folder
// with a topicsnap.json, or an empty folder (an empty catalog). A path that
// does not exist, is not a folder, or holds other files is ErrNoCatalog:
// reading it as empty would answer questions about a catalog that is not
// there. Open never writes.
func Open(path string) (*Dir, error) {
	d := &Dir{Path: path}
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		if err := isEmptyFolder(path); err != nil { // names what it is instead
			return nil, err
		}
	}
	b, err := safefile.ReadFileIn(path, folderFile, MaxFolderFileBytes)
	switch {
	case errors.Is(err, os.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		if err := isEmptyFolder(path); err != nil {
			return nil, err
		}
		return d, nil
	case err != nil:
		return nil, fmt.Errorf("open %s: %w", path, readErr(err))
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

// isEmptyFolder accepts a folder without topicsnap.json when it is empty
// (dot files aside) or already holds topic folders, and names what is
// wrong otherwise, with ErrNoCatalog.
func isEmptyFolder(path string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%w: %s does not exist", ErrNoCatalog, path)
	case err != nil:
		return fmt.Errorf("open %s: %w", path, err)
	case !st.IsDir():
		return fmt.Errorf("%w: %s is a file, not a folder", ErrNoCatalog, path)
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return fmt.Errorf("list %s: %w", path, err)
	}
	var other []string
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, "."):
		case e.IsDir() && (strings.HasPrefix(name, "topic=") || name == snapshotsDir):
			return nil // topic folders without a version file: read them
		default:
			other = append(other, name)
		}
	}
	if len(other) == 0 {
		return nil
	}
	shown := other
	if len(shown) > 3 {
		shown = append(shown[:3:3], "...")
	}
	return fmt.Errorf("%w: %s has no %s and holds other files (%s)", ErrNoCatalog, path, folderFile, strings.Join(shown, ", "))
}

// CheckCreate tells, without writing anything, whether Create(path) could
// make or reuse a snapshot folder there: ErrNotWritable for a path under a
// file or on a folder this process may not write, ErrNoCatalog for a
// folder that holds other files. A dump calls it before it checks its
// other options, so that nothing is written until they all are right.
func CheckCreate(path string) error {
	p := filepath.Clean(path)
	for {
		st, err := os.Stat(p)
		if errors.Is(err, os.ErrNotExist) && filepath.Dir(p) != p {
			p = filepath.Dir(p) // the folder will be created: check its nearest existing parent
			continue
		}
		if errors.Is(err, syscall.ENOTDIR) || err == nil && !st.IsDir() {
			return fmt.Errorf("create %s: %w: %s is a file, not a folder", path, ErrNotWritable, p)
		}
		if err != nil {
			return fmt.Errorf("create %s: %w", path, classify(err))
		}
		break
	}
	if err := syscall.Access(p, 2 /* W_OK */); err != nil {
		return fmt.Errorf("create %s: %w: %s: %w", path, ErrNotWritable, p, err)
	}
	if p == filepath.Clean(path) {
		if _, err := os.Stat(filepath.Join(p, folderFile)); errors.Is(err, os.ErrNotExist) {
			return isEmptyFolder(p)
		}
	}
	return nil
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
	if d.s3 != nil {
		return d.Path + "/" + partitionRel(tp)
	}
	return filepath.Join(d.Path, "topic="+tp.Topic, "partition="+strconv.Itoa(int(tp.Partition)))
}

// FileName is the name of a data file holding offsets first..last.
func FileName(first, last int64) string {
	return fmt.Sprintf("%020d-%020d.parquet", first, last)
}

// FileNameIn is the name of a data file of the given history (see
// FileEntry.History): FileName for history 0, FIRST-LAST.hN.parquet after.
func FileNameIn(first, last int64, history int) string {
	if history == 0 {
		return FileName(first, last)
	}
	return fmt.Sprintf("%020d-%020d.h%d.parquet", first, last, history)
}

// FilePath is the absolute path of a committed file.
func (d *Dir) FilePath(tp TopicPartition, name string) string {
	if d.s3 != nil {
		return d.PartitionDir(tp) + "/" + name
	}
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
// empty manifest with NextOffset -1. A manifest that cannot be read is a
// *ManifestError.
func (d *Dir) ReadManifest(tp TopicPartition) (*Manifest, error) {
	if d.s3 != nil {
		return d.s3.readManifest(tp)
	}
	if !ValidTopicName(tp.Topic) || tp.Partition < 0 {
		return nil, fmt.Errorf("read manifest of %s: %w: not a topic-partition", tp, ErrBadName)
	}
	rel := manifestRel(tp)
	path := filepath.Join(d.Path, filepath.FromSlash(rel))
	b, err := safefile.ReadFileIn(d.Path, filepath.FromSlash(rel), MaxManifestBytes)
	if errors.Is(err, os.ErrNotExist) {
		return &Manifest{FormatVersion: FormatVersion, Topic: tp.Topic, Partition: tp.Partition, NextOffset: -1}, nil
	}
	if err != nil {
		return nil, &ManifestError{TP: tp, Path: path, Rel: rel, Err: readErr(err), Detail: err.Error()}
	}
	return parseManifestAt(tp, path, rel, b)
}

// parseManifestAt decodes and validates the manifest read from tp's
// folder (path, rel relative to the snapshot folder): parseManifest, and
// its topic and partition must be the folder's.
func parseManifestAt(tp TopicPartition, path, rel string, b []byte) (*Manifest, error) {
	m, err := parseManifest(path, b)
	if err == nil {
		if ferr := m.checkFolder(tp); ferr != nil {
			err = &ManifestError{Path: path, Err: ErrBadManifest, Detail: ferr.Error()}
		}
	}
	if err != nil {
		me := err.(*ManifestError)
		me.TP, me.Rel = tp, rel
		return nil, me
	}
	return m, nil
}

// ManifestError is one partition's manifest that cannot be read: not JSON,
// not valid, written by a newer topicsnap, or unreadable. errors.Is finds
// ErrBadManifest or ErrNewerFormat (or the OS error) through it.
type ManifestError struct {
	TP   TopicPartition // the partition whose folder holds it
	Path string         // the manifest file: its absolute path, or its s3:// URL
	// Rel is the manifest's path relative to the snapshot folder (or the
	// bucket's prefix); Error() names it rather than Path when set, so a
	// warning never shows where the folder lies.
	Rel string
	Err error // ErrBadManifest, ErrNewerFormat, or why it could not be read
	// Detail is what is wrong with the manifest's content, if anything.
	Detail string
}

func (e *ManifestError) Error() string {
	what := "manifest damaged"
	switch {
	case errors.Is(e.Err, ErrNewerFormat):
		what = "manifest written by a newer topicsnap"
	case errors.Is(e.Err, ErrBadDataFile):
		what = "data file damaged"
	case !errors.Is(e.Err, ErrBadManifest):
		what = "manifest unreadable"
	}
	detail := e.Detail
	if detail == "" {
		detail = e.Err.Error()
	}
	prefix := ""
	if e.TP.Topic != "" {
		prefix = fmt.Sprintf("topic %s partition %d: ", e.TP.Topic, e.TP.Partition)
	}
	where := e.Path
	if e.Rel != "" {
		where = e.Rel
	}
	return fmt.Sprintf("%s%s: %s: %s", prefix, what, where, detail)
}

func (e *ManifestError) Unwrap() error { return e.Err }

// parseManifest decodes and validates a manifest's bytes; path names it in
// errors, which are *ManifestError.
func parseManifest(path string, b []byte) (*Manifest, error) {
	if err := tooManyObjects(b, MaxManifestObjects); err != nil {
		return nil, &ManifestError{Path: path, Err: fmt.Errorf("%w: %w", ErrBadManifest, err), Detail: err.Error()}
	}
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&m); err != nil {
		return nil, &ManifestError{Path: path, Err: ErrBadManifest, Detail: err.Error()}
	}
	if m.FormatVersion > FormatVersion {
		return nil, &ManifestError{Path: path, Err: ErrNewerFormat,
			Detail: fmt.Sprintf("format version %d, this build reads up to %d", m.FormatVersion, FormatVersion)}
	}
	if err := m.validate(); err != nil {
		return nil, &ManifestError{Path: path, Err: fmt.Errorf("%w: %w", ErrBadManifest, err), Detail: err.Error()}
	}
	return &m, nil
}

// ParseManifest is exported for fuzzing and tools.
func ParseManifest(path string, b []byte) (*Manifest, error) { return parseManifest(path, b) }

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

// WriteManifest commits m atomically. It refuses, with ErrBadManifest, a
// manifest that a reader would refuse (see Manifest.validate and the
// bounds in bounds.go), so that a dump never commits what the next reader
// rejects.
func (d *Dir) WriteManifest(m *Manifest) error {
	m.FormatVersion = FormatVersion
	b, err := encodeManifest(m)
	if err != nil {
		return err
	}
	if d.s3 != nil {
		return d.s3.writeManifest(m, b)
	}
	dir := d.PartitionDir(m.TP())
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, classify(err))
	}
	return WriteFileAtomic(filepath.Join(dir, manifestName), func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// encodeManifest is m as written, once it is known to be valid and within
// MaxManifestBytes.
func encodeManifest(m *Manifest) ([]byte, error) {
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("write manifest of %s: %w: %w", m.TP(), ErrBadManifest, err)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode manifest %s: %w", m.TP(), err)
	}
	b = append(b, '\n')
	if len(b) > MaxManifestBytes {
		return nil, fmt.Errorf("write manifest of %s: %s, past the %s a manifest may take: %w",
			m.TP(), safefile.Size(int64(len(b))), safefile.Size(MaxManifestBytes), safefile.ErrTooLarge)
	}
	return b, nil
}

// Lock is an exclusive hold on one partition's folder: a flock on disk, a
// lock object with an owner and an expiry in a bucket.
type Lock struct {
	f  *os.File
	s3 *s3Lock
}

// LockPartition takes the writer's lock on tp, or fails at once with
// ErrLocked. The kernel drops the lock if the process dies, so a killed
// dumper never leaves a stale lock.
//
// In a bucket the lock is an object created only if absent; its holder
// renews it, and a holder killed lets it expire (S3Config.LockTTL), after
// which the next dumper takes it over.
func (d *Dir) LockPartition(tp TopicPartition) (*Lock, error) {
	if d.s3 != nil {
		return d.s3.lockPartition(tp)
	}
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
	return &Lock{f: f}, nil
}

// Unlock releases the lock.
func (l *Lock) Unlock() {
	if l != nil && l.s3 != nil {
		l.s3.unlock()
		return
	}
	if l != nil && l.f != nil {
		syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
		l.f.Close()
	}
}

// CleanPartition removes leftovers of an interrupted writer: temp files, and
// data files the manifest does not list (as a file or as retired: those
// stay for readers of an older manifest until a compact removes them).
// Call it only while holding the lock.
func (d *Dir) CleanPartition(m *Manifest) (removed []string, err error) {
	if d.s3 != nil {
		return d.s3.cleanPartition(m)
	}
	dir := d.PartitionDir(m.TP())
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	listed := m.known()
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

// known is the set of data file names m lists (current or superseded) or
// keeps as retired.
func (m *Manifest) known() map[string]bool {
	out := make(map[string]bool, len(m.Files)+len(m.Superseded)+len(m.Retired))
	for _, f := range m.AllFiles() {
		out[f.Name] = true
	}
	for _, r := range m.Retired {
		out[r.Name] = true
	}
	return out
}

// Topics lists the topics that have a folder.
func (d *Dir) Topics() ([]string, error) {
	if d.s3 != nil {
		return d.s3.topics()
	}
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

// TopicManifests is what ReadTopic found for one topic: the manifests it
// could read and, for each partition whose manifest it could not, why.
// Partial success is data: a damaged partition costs itself, not the topic.
type TopicManifests struct {
	Topic string
	// Manifests are the readable partitions' manifests, by partition.
	Manifests []*Manifest
	// Damaged are the partitions left out of Manifests, by partition. A
	// caller that skips them should name each (its Error() does).
	Damaged []*ManifestError
}

// Err is nil when every partition was read, else an error naming the
// damaged partitions; errors.Is(err, ErrBadManifest) holds when one is.
func (tm *TopicManifests) Err() error {
	switch len(tm.Damaged) {
	case 0:
		return nil
	case 1:
		return tm.Damaged[0]
	}
	return fmt.Errorf("%w (and %d more damaged partitions of topic %s)", tm.Damaged[0], len(tm.Damaged)-1, tm.Topic)
}

// ReadTopic reads the manifest of every partition of topic that has one. A
// manifest that cannot be read skips its partition and is named in
// Damaged; the error is for a topic folder that cannot be listed.
func (d *Dir) ReadTopic(topic string) (*TopicManifests, error) {
	tm := &TopicManifests{Topic: topic}
	if !ValidTopicName(topic) {
		return tm, nil // no folder can hold it: the folder holds nothing of it
	}
	if d.s3 != nil {
		return d.s3.readTopic(topic)
	}
	tdir := filepath.Join(d.Path, "topic="+topic)
	entries, err := os.ReadDir(tdir)
	if errors.Is(err, os.ErrNotExist) {
		return tm, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", tdir, err)
	}
	for _, e := range entries {
		ps, ok := strings.CutPrefix(e.Name(), "partition=")
		if !ok {
			continue
		}
		p, err := strconv.Atoi(ps)
		if err != nil || p < 0 || p > math.MaxInt32 || strconv.Itoa(p) != ps {
			continue // not a folder the dump writes (partition=07 would read partition=7's)
		}
		if !e.IsDir() {
			// A partition's name on a link or a file is not read (a link
			// could lead out of the folder), and it is named, not silently
			// left out: the checks would judge the other partitions as if
			// they were the whole topic.
			tp := TopicPartition{topic, int32(p)}
			rel := RelPartitionDir(tp)
			tm.Damaged = append(tm.Damaged, &ManifestError{TP: tp, Path: filepath.Join(tdir, e.Name()), Rel: rel,
				Err: ErrBadManifest, Detail: notAFolder(e.Type())})
			continue
		}
		if _, err := os.Stat(filepath.Join(tdir, e.Name(), manifestName)); errors.Is(err, os.ErrNotExist) {
			continue
		}
		m, err := d.ReadManifest(TopicPartition{topic, int32(p)})
		var me *ManifestError
		switch {
		case errors.As(err, &me):
			tm.Damaged = append(tm.Damaged, me)
			continue
		case err != nil:
			return nil, err
		}
		if me := d.checkFiles(m); me != nil {
			tm.Damaged = append(tm.Damaged, me)
			continue
		}
		tm.Manifests = append(tm.Manifests, m)
	}
	sort.Slice(tm.Manifests, func(i, j int) bool { return tm.Manifests[i].Partition < tm.Manifests[j].Partition })
	sort.Slice(tm.Damaged, func(i, j int) bool { return tm.Damaged[i].TP.Partition < tm.Damaged[j].TP.Partition })
	return tm, nil
}

// notAFolder says what stands where a partition's folder should be.
func notAFolder(t os.FileMode) string {
	if t&os.ModeSymlink != 0 {
		return "not a folder but a symbolic link (a partition's folder is not read through a link)"
	}
	return "not a folder"
}

// checkFiles checks that each data file m lists is a regular file inside
// its partition's folder (CheckDataFileKind: not a link out, a FIFO or a
// device) of the size the manifest recorded: a file missing, replaced or
// cut short would otherwise fail every query on the whole topic. The
// error wraps ErrBadDataFile and names the file by its path in the folder.
// The content is catalog verify's to check.
func (d *Dir) checkFiles(m *Manifest) *ManifestError {
	tp := m.TP()
	for _, f := range m.AllFiles() {
		err := d.CheckDataFileKind(tp, f.Name)
		if err == nil && f.Bytes > 0 {
			if st, serr := os.Stat(d.FilePath(tp, f.Name)); serr == nil && st.Size() != f.Bytes {
				err = fmt.Errorf("%s: %w: %d bytes where the manifest says %d (cut short or rewritten)", RelFilePath(tp, f.Name), ErrBadDataFile, st.Size(), f.Bytes)
			}
		}
		if err != nil {
			rel := manifestRel(tp)
			return &ManifestError{TP: tp, Path: filepath.Join(d.Path, filepath.FromSlash(rel)), Rel: rel, Err: err, Detail: err.Error()}
		}
	}
	return nil
}

// Manifests reads the manifests of every partition of topic that has one,
// all or nothing: when one is damaged it returns the others together with
// tm.Err() naming it. Use ReadTopic to read past damaged partitions.
func (d *Dir) Manifests(topic string) ([]*Manifest, error) {
	tm, err := d.ReadTopic(topic)
	if err != nil {
		return nil, err
	}
	return tm.Manifests, tm.Err()
}

// WriteClusterSnapshot commits the cluster state of a snapshot. Its id
// names the file: one that is not a valid snapshot id (ValidSnapshotID) is
// refused with ErrBadName, as is a snapshot past MaxSnapshotBytes.
func (d *Dir) WriteClusterSnapshot(s *ClusterSnapshot) error {
	s.FormatVersion = FormatVersion
	if err := s.validate(); err != nil {
		return fmt.Errorf("write snapshot %.200q: %w", s.ID, err)
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("encode snapshot %s: %w", s.ID, err)
	}
	if len(b)+1 > MaxSnapshotBytes {
		return fmt.Errorf("write snapshot %s: %s, past the %s a snapshot may take: %w",
			s.ID, safefile.Size(int64(len(b)+1)), safefile.Size(MaxSnapshotBytes), safefile.ErrTooLarge)
	}
	if d.s3 != nil {
		return d.s3.writeClusterSnapshot(s, append(b, '\n'))
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
// A damaged one (not a regular file, past MaxSnapshotBytes, not valid, or
// its id not its file's name) is left out and named in the error, a join
// of *SnapshotError (errors.Is(err, ErrBadManifest)), returned beside the
// snapshots that could be read: a caller may go on with those and warn.
func (d *Dir) ClusterSnapshots() ([]*ClusterSnapshot, error) {
	if d.s3 != nil {
		return d.s3.clusterSnapshots()
	}
	dir := filepath.Join(d.Path, snapshotsDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	var out []*ClusterSnapshot
	var damaged []error
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		rel := snapshotsDir + "/" + e.Name()
		b, err := safefile.ReadFileIn(d.Path, filepath.FromSlash(rel), MaxSnapshotBytes)
		if errors.Is(err, os.ErrNotExist) {
			continue // removed since listed
		}
		if err != nil {
			damaged = append(damaged, &SnapshotError{Rel: rel, Err: readErr(err)})
			continue
		}
		s, err := ParseSnapshot(rel, b)
		if err != nil {
			damaged = append(damaged, err)
			continue
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, errors.Join(damaged...)
}
