package catalog

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/topicsnap/topicsnap/catalog/store"
	"github.com/topicsnap/topicsnap/internal/exit"
	"github.com/topicsnap/topicsnap/internal/safefile"
	"github.com/topicsnap/topicsnap/internal/units"
)

// PartitionDir is the folder of one topic-partition: a path, or the
// partition's s3:// URL in a bucket.
func (d *Dir) PartitionDir(tp TopicPartition) string {
	return d.where(RelPartitionDir(tp))
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

// FilePath is the absolute path of a committed file (its s3:// URL in a
// bucket).
func (d *Dir) FilePath(tp TopicPartition, name string) string {
	return d.where(RelFilePath(tp, name))
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
func (d *Dir) ReadManifest(ctx context.Context, tp TopicPartition) (*Manifest, error) {
	m, _, err := d.readManifestIf(ctx, tp)
	return m, err
}

// readManifestIf is ReadManifest that also says whether the manifest
// exists, and keeps the version read for the next WriteManifest.
func (d *Dir) readManifestIf(ctx context.Context, tp TopicPartition) (*Manifest, bool, error) {
	if !ValidTopicName(tp.Topic) || tp.Partition < 0 {
		return nil, false, fmt.Errorf("read manifest of %s: %w: not a topic-partition", tp, ErrBadName)
	}
	rel := manifestRel(tp)
	path := d.where(rel)
	b, version, err := d.store().Get(ctx, rel, MaxManifestBytes)
	if errors.Is(err, os.ErrNotExist) {
		d.setVersion(tp, "")
		return &Manifest{FormatVersion: FormatVersion, Topic: tp.Topic, Partition: tp.Partition, NextOffset: -1}, false, nil
	}
	if err != nil {
		return nil, false, &ManifestError{TP: tp, Path: path, Rel: rel, Err: readErr(err), Detail: err.Error()}
	}
	m, err := parseManifestAt(tp, path, rel, b)
	if err != nil {
		return nil, true, err
	}
	d.setVersion(tp, version)
	return m, true, nil
}

func (d *Dir) setVersion(tp TopicPartition, v string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.versions == nil {
		d.versions = map[TopicPartition]string{}
	}
	d.versions[tp] = v
}

func (d *Dir) version(tp TopicPartition) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	v, ok := d.versions[tp]
	return v, ok
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
	case errors.Is(e.Err, ErrNotFolder):
		what = "partition folder not read"
	case errors.Is(e.Err, ErrTooManyFiles):
		what = "partition not read"
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
	if err := trailingJSON(dec); err != nil {
		return nil, &ManifestError{Path: path, Err: fmt.Errorf("%w: %w", ErrBadManifest, err), Detail: err.Error()}
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
//
// In a bucket the manifest is replaced only if it is still the version
// this Dir last read or wrote (If-Match on its ETag; If-None-Match: *
// when there was none): of two writers, one commits and the other gets
// ErrConflict and must stop. In a folder the partition's lock keeps
// writers apart, and the rename replaces the manifest atomically.
func (d *Dir) WriteManifest(ctx context.Context, m *Manifest) error {
	m.FormatVersion = FormatVersion
	b, err := encodeManifest(m)
	if err != nil {
		return err
	}
	tp := m.TP()
	cond := store.Cond{Unread: true}
	if v, read := d.version(tp); read {
		cond = store.Cond{IfMatch: v, IfAbsent: v == ""}
	}
	rel := manifestRel(tp)
	next, err := d.store().Put(ctx, rel, b, cond)
	if err != nil {
		if errors.Is(err, ErrConflict) {
			return fmt.Errorf("the manifest changed since this writer read it (another dumper wrote %s); this one stops without overwriting it: %w", d.where(rel), ErrConflict)
		}
		return err
	}
	d.setVersion(tp, next)
	return nil
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
			m.TP(), units.Size(int64(len(b))), units.Size(MaxManifestBytes), safefile.ErrTooLarge)
	}
	return b, nil
}

// Lock is an exclusive hold on one partition's folder: a flock on disk, a
// lock object with an owner and an expiry in a bucket.
type Lock struct {
	h store.Held
}

// LockPartition takes the writer's lock on tp, or fails at once with
// ErrLocked. The kernel drops the lock if the process dies, so a killed
// dumper never leaves a stale lock.
//
// In a bucket the lock is an object created only if absent; its holder
// renews it while ctx lasts, and a holder killed lets it expire
// (S3Config.LockTTL), after which the next dumper takes it over.
func (d *Dir) LockPartition(ctx context.Context, tp TopicPartition) (*Lock, error) {
	h, err := d.store().Lock(ctx, RelPartitionDir(tp)+"/"+lockName, tp.String())
	if err != nil {
		return nil, err
	}
	return &Lock{h: h}, nil
}

// Unlock releases the lock.
func (l *Lock) Unlock() {
	if l != nil && l.h != nil {
		l.h.Unlock()
		l.h = nil
	}
}

// CleanPartition removes leftovers of an interrupted writer: temp files,
// data files the manifest does not list (as a file or as retired: those
// stay for readers of an older manifest until a compact removes them),
// and, in a bucket, multipart uploads never completed (they are not
// objects, so no reader lists them, but they cost storage until aborted).
// Call it only while holding the lock.
//
// In a bucket a lock is a lease: a writer that stalled past it (paused,
// or cut off from the bucket) may still run, its data file uploaded and
// its manifest not yet written, when another takes the lock over. Before
// removing a data file the manifest does not list, CleanPartition writes
// m back (the version read under the lock, If-Match), so that the stalled
// writer's manifest write, conditioned on the version before, fails with
// ErrConflict rather than list a file removed here; if the stalled writer
// committed first, this write is the one that fails, and nothing is
// removed.
func (d *Dir) CleanPartition(ctx context.Context, m *Manifest) (removed []string, err error) {
	st := d.store()
	rel := RelPartitionDir(m.TP())
	entries, err := st.List(ctx, rel)
	if err != nil {
		return nil, err
	}
	listed := m.known()
	var leftovers []string
	fence := false
	for _, e := range entries {
		if e.Dir {
			continue
		}
		name := e.Name
		switch {
		case strings.HasPrefix(name, tmpPrefix):
			leftovers = append(leftovers, name)
		case strings.HasSuffix(name, ".parquet") && !listed[name]:
			leftovers = append(leftovers, name)
			fence = true
		}
	}
	if fence && st.Traits().LeasedLocks {
		// A new token, so a new ETag: a bucket's ETag is its content's
		// hash, and the same bytes written back would match the version
		// the other writer read.
		var tok [8]byte
		rand.Read(tok[:])
		m.Fence = hex.EncodeToString(tok[:])
		if err := d.WriteManifest(ctx, m); err != nil {
			return nil, fmt.Errorf("clean %s: %w", m.TP(), err)
		}
	}
	for _, name := range leftovers {
		if err := st.Delete(ctx, rel+"/"+name); err != nil {
			return removed, fmt.Errorf("remove leftover %s: %w", name, err)
		}
		removed = append(removed, name)
	}
	unfinished, err := st.Unfinished(ctx, rel, true)
	return append(removed, unfinished...), err
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
func (d *Dir) Topics(ctx context.Context) ([]string, error) {
	topics, _, err := d.TopicFolders(ctx)
	return topics, err
}

// TopicFolders lists the topics that have a folder, and the names of
// topics' folders that are not read: a symbolic link (a topic moved to
// another disk and linked back: a link out of the folder is not followed,
// see README "Security") or a file. A reader leaves those out and names
// each (their Error()), so that a topic is never silently missing.
func (d *Dir) TopicFolders(ctx context.Context) (topics []string, unread []*FolderError, err error) {
	entries, err := d.store().List(ctx, "")
	if err != nil {
		return nil, nil, err
	}
	for _, e := range entries {
		name, ok := strings.CutPrefix(e.Name, "topic=")
		if !ok {
			continue
		}
		if !ValidTopicName(name) {
			// No dump wrote it ("topic=orders (copy)", a name a tool
			// mangled): its records were in no answer, and no command
			// said so. Named, not read (its name is no topic's).
			unread = append(unread, &FolderError{Rel: e.Name, Topic: name, Mode: e.Mode, BadName: true,
				Detail: fmt.Sprintf("%q is no topic name Kafka allows (letters, digits, '.', '_' and '-', 1 to 249 of them): no dump wrote it", name)})
			continue
		}
		if !e.Dir {
			unread = append(unread, &FolderError{Rel: e.Name, Topic: name, Mode: e.Mode, Detail: notAFolder(e.Mode, "a topic's folder")})
			continue
		}
		topics = append(topics, name)
	}
	sort.Strings(topics)
	return topics, unread, nil
}

// FolderError is an entry of the folder's layout that is not read: a
// topic's folder that is a symbolic link or a file. errors.Is finds
// ErrNotFolder and ErrBadManifest through it (exit 9).
type FolderError struct {
	// Rel is the entry relative to the snapshot folder (topic=NAME).
	Rel string
	// Topic is the topic whose folder it should be.
	Topic  string
	Mode   os.FileMode // its type bits in a folder (os.ModeSymlink); 0 in a bucket
	Detail string      // what stands there instead (notAFolder)
	// BadName: its name is no topic name Kafka allows (a folder copied
	// or renamed by hand, "topic=orders (copy)"), so no dump wrote it.
	BadName bool
}

// BadNameFix is what to do about a topic's folder whose name is no topic's.
const BadNameFix = "move each such folder out of the snapshot folder (a topic's folder copied or renamed by hand is kept elsewhere; a topic's folder is named topic=NAME, NAME as Kafka names the topic)"

func (e *FolderError) Error() string {
	return fmt.Sprintf("%s: %s, so topic %s is left out", e.Rel, e.Detail, e.Topic)
}

// Is makes errors.Is(err, ErrNotFolder) and errors.Is(err, ErrBadManifest) hold.
func (e *FolderError) Is(target error) bool {
	return target == ErrNotFolder || target == ErrBadManifest
}

// ExitCode is ErrNotFolder's.
func (e *FolderError) ExitCode() exit.Code { return ErrNotFolder.ExitCode() }

// Hint is ErrNotFolder's, or BadNameFix.
func (e *FolderError) Hint() string {
	if e.BadName {
		return BadNameFix
	}
	return ErrNotFolder.Hint()
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

// PartitionFolders lists the partitions of topic that have a folder (as
// ReadTopic names them: partition=N, N as the dump writes it), without
// reading their manifests.
func (d *Dir) PartitionFolders(ctx context.Context, topic string) ([]int32, error) {
	if !ValidTopicName(topic) {
		return nil, nil
	}
	entries, err := d.store().List(ctx, "topic="+topic)
	if err != nil {
		return nil, err
	}
	var out []int32
	for _, e := range entries {
		ps, ok := strings.CutPrefix(e.Name, "partition=")
		if !ok || !e.Dir {
			continue
		}
		if p, err := strconv.Atoi(ps); err == nil && p >= 0 && p <= math.MaxInt32 && strconv.Itoa(p) == ps {
			out = append(out, int32(p))
		}
	}
	return out, nil
}

// ReadTopic reads the manifest of every partition of topic that has one. A
// manifest that cannot be read skips its partition and is named in
// Damaged; the error is for a topic folder that cannot be listed.
func (d *Dir) ReadTopic(ctx context.Context, topic string) (*TopicManifests, error) {
	tm := &TopicManifests{Topic: topic}
	if !ValidTopicName(topic) {
		return tm, nil // no folder can hold it: the folder holds nothing of it
	}
	entries, err := d.store().List(ctx, "topic="+topic)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		ps, ok := strings.CutPrefix(e.Name, "partition=")
		if !ok {
			continue
		}
		p, err := strconv.Atoi(ps)
		if err != nil || p < 0 || p > math.MaxInt32 || strconv.Itoa(p) != ps {
			continue // not a folder the dump writes (partition=07 would read partition=7's)
		}
		tp := TopicPartition{topic, int32(p)}
		if !e.Dir {
			// A partition's name on a link or a file is not read (a link
			// could lead out of the folder), and it is named, not silently
			// left out: the checks would judge the other partitions as if
			// they were the whole topic.
			rel := RelPartitionDir(tp)
			tm.Damaged = append(tm.Damaged, &ManifestError{TP: tp, Path: d.where(rel), Rel: rel,
				Err: fmt.Errorf("%w: %w", ErrBadManifest, notFolderError(notAFolder(e.Mode, "a partition's folder"))), Detail: notAFolder(e.Mode, "a partition's folder")})
			continue
		}
		m, exists, err := d.readManifestIf(ctx, tp)
		var me *ManifestError
		switch {
		case errors.Is(err, ErrTooManyFiles):
			// The process's limit, not the partition's: leaving the
			// partition out would judge the others as the whole topic.
			return nil, fmt.Errorf("read topic %s: %w", topic, err)
		case errors.As(err, &me):
			tm.Damaged = append(tm.Damaged, me)
			continue
		case err != nil:
			return nil, err
		case !exists:
			continue // nothing committed yet (a lock, or a first dump killed before its first file)
		}
		afterManifestRead(tp)
		me = d.checkFiles(ctx, m)
		// A listed file that is gone because a compact (--grace 0)
		// committed a manifest that no longer lists it and removed it is
		// not damage: read the manifest again while it changes.
		for range MaxRereads {
			if me == nil || !errors.Is(me, os.ErrNotExist) {
				break
			}
			m2, exists, err := d.readManifestIf(ctx, tp)
			if err != nil || !exists || slices.EqualFunc(m2.AllFiles(), m.AllFiles(), func(a, b FileEntry) bool { return a.Name == b.Name }) {
				break
			}
			m, me = m2, d.checkFiles(ctx, m2)
		}
		if me != nil && errors.Is(me, ErrTooManyFiles) {
			return nil, fmt.Errorf("read topic %s: %w", topic, me)
		}
		if me != nil {
			tm.Damaged = append(tm.Damaged, me)
			continue
		}
		tm.Manifests = append(tm.Manifests, m)
	}
	sort.Slice(tm.Manifests, func(i, j int) bool { return tm.Manifests[i].Partition < tm.Manifests[j].Partition })
	sort.Slice(tm.Damaged, func(i, j int) bool { return tm.Damaged[i].TP.Partition < tm.Damaged[j].TP.Partition })
	return tm, nil
}

// afterManifestRead runs between ReadTopic's read of a partition's
// manifest and its check of the files listed; a test compacts there.
var afterManifestRead = func(tp TopicPartition) {}

// MaxRereads bounds how many times a reader reads a partition's manifest
// again when a file it lists is missing and the manifest changed meanwhile
// (a compact that removes the files it merged at once, --grace 0, commits
// each merged run on its own).
const MaxRereads = 1000

// notAFolder says what stands where a folder of the layout should be
// (what: "a partition's folder", "a topic's folder of cuts").
func notAFolder(t os.FileMode, what string) string {
	if t&os.ModeSymlink != 0 {
		return "not a folder but a symbolic link (" + what + " is not read through a link)"
	}
	return "not a folder"
}

// notFolderError is notAFolder's text as an error that is ErrNotFolder.
type notFolderError string

func (e notFolderError) Error() string        { return string(e) }
func (e notFolderError) Is(target error) bool { return target == ErrNotFolder }

// checkFiles checks that each data file m lists is a regular file inside
// its partition's folder (CheckDataFileKind: not a link out, a FIFO or a
// device) of the size the manifest recorded: a file missing, replaced or
// cut short would otherwise fail every query on the whole topic. The
// error wraps ErrBadDataFile and names the file by its path in the folder.
// The content is catalog verify's to check. A bucket's objects are plain
// and their sizes are not known without a request: CheckListedSizes (ls)
// and verify check them.
func (d *Dir) checkFiles(ctx context.Context, m *Manifest) *ManifestError {
	tp := m.TP()
	for _, f := range m.AllFiles() {
		size, err := d.checkData(ctx, tp, f.Name)
		if err == nil && f.Bytes > 0 && size >= 0 && size != f.Bytes {
			err = fmt.Errorf("%s: %w: %d bytes where the manifest says %d (cut short or rewritten)", RelFilePath(tp, f.Name), ErrBadDataFile, size, f.Bytes)
		}
		if err != nil {
			rel := manifestRel(tp)
			return &ManifestError{TP: tp, Path: d.where(rel), Rel: rel, Err: err, Detail: err.Error()}
		}
	}
	return nil
}

// CheckListedSizes checks, where the store knows data files' sizes only
// by listing them (a bucket, where ReadTopic asks none), each data file of
// tm.Manifests against one listing of its partition's objects: a file
// missing or not of the size its manifest recorded moves its partition
// from tm.Manifests to tm.Damaged, its error wrapping ErrBadDataFile and
// naming the object, as ReadTopic does for a folder's files. No object is
// read: one that has the right size but wrong bytes is catalog verify's to
// find. In a folder ReadTopic checked the sizes already: nothing is asked.
// The error is for a partition that cannot be listed.
func (d *Dir) CheckListedSizes(ctx context.Context, tm *TopicManifests) error {
	if !d.store().Traits().ETags { // a folder: checkFiles knew each size
		return nil
	}
	kept := tm.Manifests[:0]
	for _, m := range tm.Manifests {
		listed, _, err := d.listData(ctx, m.TP())
		if err != nil {
			return fmt.Errorf("list the data files of %s: %w", m.TP(), err)
		}
		if me := d.listedSizes(m, listed); me != nil {
			tm.Damaged = append(tm.Damaged, me)
			continue
		}
		kept = append(kept, m)
	}
	tm.Manifests = kept
	sort.Slice(tm.Damaged, func(i, j int) bool { return tm.Damaged[i].TP.Partition < tm.Damaged[j].TP.Partition })
	return nil
}

// listedSizes is the first of m's data files that listed lacks or holds at
// another size than the manifest recorded, as a ManifestError.
func (d *Dir) listedSizes(m *Manifest, listed map[string]store.Entry) *ManifestError {
	tp := m.TP()
	for _, f := range m.AllFiles() {
		var err error
		switch e, ok := listed[f.Name]; {
		case !ok:
			err = fmt.Errorf("%s: %w: missing", d.where(RelFilePath(tp, f.Name)), ErrBadDataFile)
		case f.Bytes > 0 && e.Size != f.Bytes:
			err = fmt.Errorf("%s: %w: %d bytes where the manifest says %d (cut short or rewritten)", d.where(RelFilePath(tp, f.Name)), ErrBadDataFile, e.Size, f.Bytes)
		}
		if err != nil {
			rel := manifestRel(tp)
			return &ManifestError{TP: tp, Path: d.where(rel), Rel: rel, Err: err, Detail: err.Error()}
		}
	}
	return nil
}

// Manifests reads the manifests of every partition of topic that has one,
// all or nothing: when one is damaged it returns the others together with
// tm.Err() naming it. Use ReadTopic to read past damaged partitions.
func (d *Dir) Manifests(ctx context.Context, topic string) ([]*Manifest, error) {
	tm, err := d.ReadTopic(ctx, topic)
	if err != nil {
		return nil, err
	}
	return tm.Manifests, tm.Err()
}

// WriteClusterSnapshot commits the cluster state of a snapshot, in its
// topic's folder of cuts (snapshots/topic=NAME/ID.json), so that a reader
// of one topic reads that topic's cuts only. Its id names the file: one
// that is not a valid snapshot id (ValidSnapshotID) is refused with
// ErrBadName, as is a snapshot past MaxSnapshotBytes. In a bucket it is
// created only if no object of its id exists.
func (d *Dir) WriteClusterSnapshot(ctx context.Context, s *ClusterSnapshot) error {
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
			s.ID, units.Size(int64(len(b)+1)), units.Size(MaxSnapshotBytes), safefile.ErrTooLarge)
	}
	_, err = d.store().Put(ctx, snapshotRel(s.Topic, s.ID), append(b, '\n'), store.Cond{IfAbsent: true})
	if errors.Is(err, ErrConflict) {
		return fmt.Errorf("write snapshot %s: an object of that id exists: %w", s.ID, err)
	}
	return err
}

// ClusterSnapshots reads every committed cluster snapshot, oldest first:
// those kept by topic (snapshots/topic=NAME/ID.json) and those of a
// folder written before cuts were kept by topic (snapshots/ID.json).
// A damaged one (not a regular file, past MaxSnapshotBytes, not valid, its
// id not its file's name, or its topic not its folder's) is left out and
// named in the error, a join of *SnapshotError (errors.Is(err,
// ErrBadManifest)), returned beside the snapshots that could be read: a
// caller may go on with those and warn.
func (d *Dir) ClusterSnapshots(ctx context.Context) ([]*ClusterSnapshot, error) {
	return d.clusterSnapshots(ctx, nil, true)
}

// ClusterSnapshotsOf is ClusterSnapshots limited to the cuts of topics:
// it reads their folders of cuts and no other topic's. The cuts of a folder
// written before cuts were kept by topic (snapshots/ID.json) say their
// topic only inside: each is read, kept when it is of topics, and named in
// the error when damaged, whatever its topic. A name that is not a valid
// topic name is no topic's.
func (d *Dir) ClusterSnapshotsOf(ctx context.Context, topics []string) ([]*ClusterSnapshot, error) {
	return d.clusterSnapshots(ctx, topics, false)
}

func (d *Dir) clusterSnapshots(ctx context.Context, topics []string, all bool) ([]*ClusterSnapshot, error) {
	st := d.store()
	entries, err := st.List(ctx, snapshotsDir)
	if err != nil {
		return nil, err
	}
	var out []*ClusterSnapshot
	var damaged []error
	// read reads the cuts of the folder rel (snapshots, or a topic's
	// folder of cuts when topic is set).
	read := func(rel, topic string, entries []store.Entry) error {
		for _, e := range entries {
			if e.Dir || !strings.HasSuffix(e.Name, ".json") || strings.HasPrefix(e.Name, ".") {
				continue
			}
			frel := rel + "/" + e.Name
			b, _, err := st.Get(ctx, frel, MaxSnapshotBytes)
			switch {
			case errors.Is(err, os.ErrNotExist):
				continue // removed since listed
			case store.IsDamaged(err):
				damaged = append(damaged, &SnapshotError{Rel: frel, Err: readErr(err)})
				continue
			case err != nil:
				return fmt.Errorf("read snapshot %s: %w", st.Where(frel), err)
			}
			s, err := ParseSnapshot(frel, b)
			if err != nil {
				damaged = append(damaged, err)
				continue
			}
			if topic != "" && s.Topic != topic {
				damaged = append(damaged, &SnapshotError{Rel: frel, Err: fmt.Errorf("%w: it holds a cut of topic %q, its folder says %q", ErrBadManifest, s.Topic, topic)})
				continue
			}
			if all || slices.Contains(topics, s.Topic) {
				out = append(out, s)
			}
		}
		return nil
	}
	if err := read(snapshotsDir, "", entries); err != nil {
		return nil, err
	}
	var folders []string
	if all {
		for _, e := range entries {
			if t, ok := strings.CutPrefix(e.Name, "topic="); ok && ValidTopicName(t) {
				if !e.Dir {
					// A topic's cuts behind a link are not read, and said.
					damaged = append(damaged, &SnapshotError{Rel: snapshotTopicDir(t),
						Err: fmt.Errorf("%w: %w", ErrBadManifest, notFolderError(notAFolder(e.Mode, "a topic's folder of cuts")))})
					continue
				}
				folders = append(folders, t)
			}
		}
	} else {
		for _, t := range topics {
			if ValidTopicName(t) && !slices.Contains(folders, t) {
				folders = append(folders, t)
			}
		}
	}
	for _, t := range folders {
		rel := snapshotTopicDir(t)
		es, err := st.List(ctx, rel)
		if err != nil {
			if store.IsDamaged(err) {
				damaged = append(damaged, &SnapshotError{Rel: rel, Err: readErr(err)})
				continue
			}
			return nil, err
		}
		if err := read(rel, t, es); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, errors.Join(damaged...)
}
