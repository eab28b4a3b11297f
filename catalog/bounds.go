package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/topicsnap/topicsnap/catalog/store"
)

// Bounds on the folder's metadata. A snapshot folder is often handed over
// from another machine, so every metadata file is read with a cap stated
// here (through internal/safefile: regular files only, opened
// non-blocking, inside the folder) and validated before it is used. The
// writer keeps the same bounds: WriteManifest, WriteClusterSnapshot and
// WriteSchema refuse what a reader would refuse, so a dump never commits a
// file that the next reader rejects.
const (
	// MaxFolderFileBytes caps topicsnap.json (about 60 bytes as written).
	MaxFolderFileBytes = 64 << 10
	// MaxManifestBytes caps a partition's manifest.json. A file entry
	// takes about 0.5 KiB as written (about 1.5 KiB with typed columns and
	// a few untyped field names), a snapshot entry about 0.3 KiB and a lost
	// range 0.2 KiB: 64 MiB holds MaxManifestFiles plain entries, or some
	// 40,000 typed ones beside their snapshots, which at the default 512k
	// records a file is 20 billion records in one partition.
	MaxManifestBytes = 64 << 20
	// MaxManifestFiles, MaxManifestSnapshots and MaxLostRanges bound the
	// lists of one manifest. A lost range is recorded when Kafka had
	// deleted offsets before a dump read them; a partition that lost
	// offsets 10,000 times has a dump schedule that does not keep up with
	// retention, and wants a new snapshot folder.
	MaxManifestFiles     = 100_000
	MaxManifestSnapshots = 100_000
	MaxLostRanges        = 10_000
	// MaxRewrites bounds the divergences one manifest records (a log
	// truncated and rewritten under the dump, see Rewrite).
	MaxRewrites = 1_000
	// MaxSnapshotBytes caps a cluster snapshot (snapshots/ID.json): a
	// partition's state takes about 0.25 KiB, a group's committed offset on
	// one partition about 0.12 KiB, so 64 MiB holds a topic of 10,000
	// partitions read by 500,000 group offsets.
	MaxSnapshotBytes = 64 << 20
	// MaxSchemaBytes caps a stored schema (schemas/ID.json): a registry
	// keeps a schema in one record of its _schemas topic (1 MiB by
	// default), and JSON escaping and a Protobuf schema's imports (kept
	// beside it in Files) can grow it a few times.
	MaxSchemaBytes = 8 << 20
	// MaxETagsBytes caps the .etags.json a copy from a bucket keeps in each
	// local partition folder: about 100 bytes for each of at most
	// MaxManifestFiles files.
	MaxETagsBytes = 16 << 20
	// MaxLockBytes caps a bucket's lock object (about 150 bytes as written).
	MaxLockBytes = 64 << 10
	// MaxPartitionCount bounds a cut's partition count: the checks list a
	// topic's partitions 0..count-1 (a count of 2^31-1 had them ask for
	// 16 GiB), and a cut holds at most MaxSnapshotObjects partition states.
	MaxPartitionCount = 1_000_000
	// MaxCutOffset bounds the offsets a cut records: 2^62, more than a
	// partition takes at a billion records a second for 146 years, and far
	// enough from 2^63 that the checks' differences of two offsets (an end
	// offset less a committed -1) cannot overflow.
	MaxCutOffset = 1 << 62
	// MaxSnapshotIDLen bounds a snapshot id (NewSnapshotID makes 27 bytes).
	MaxSnapshotIDLen = 128

	// A JSON object of two bytes ("{}") decodes into a Go struct of up to
	// some 300 bytes, so the bytes alone do not bound what decoding costs:
	// the objects of a metadata file are counted before it is decoded.
	// MaxManifestObjects is a file entry and its typed columns for each of
	// MaxManifestFiles, a snapshot entry for each of MaxManifestSnapshots
	// and a lost range for each of MaxLostRanges; MaxSnapshotObjects holds
	// a partition state or a group's offset or member for each of a
	// million; MaxSchemaObjects is a schema's references and versions.
	MaxManifestObjects = 1 + 2*MaxManifestFiles + MaxManifestSnapshots + MaxLostRanges + MaxRewrites
	MaxSnapshotObjects = 1_000_000
	MaxSchemaObjects   = 100_000
)

// jsonObjects counts the objects of the JSON text b (a '{' outside a
// string), up to max+1: cheaper than decoding, and without allocating.
func jsonObjects(b []byte, max int) int {
	n, inStr, esc := 0, false, false
	for _, c := range b {
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '{':
			if n++; n > max {
				return n
			}
		}
	}
	return n
}

// tooManyObjects says why b is not decoded, or nil.
func tooManyObjects(b []byte, max int) error {
	if jsonObjects(b, max) > max {
		return fmt.Errorf("more than %d JSON objects, the bound for this file", max)
	}
	return nil
}

// ErrBadName is a name read from inside a file (a snapshot id, a data
// file's name, a topic) that is not one path element of its expected
// shape: it never becomes a path, here, in a copy or in a bucket.
var ErrBadName = errors.New("name is not one path element of the expected shape")

// ValidSnapshotID reports whether id can name snapshots/ID.json: 1 to
// MaxSnapshotIDLen letters, digits, '.', '_' or '-', not starting with '.'
// (so never "." or "..", a hidden or a temp file).
func ValidSnapshotID(id string) bool {
	if id == "" || len(id) > MaxSnapshotIDLen || id[0] == '.' {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// SnapshotError is one cluster snapshot file that cannot be read: not
// JSON, not valid, past its cap, not a regular file, or written by a newer
// topicsnap. errors.Is finds ErrBadManifest (or ErrNewerFormat, and the
// cause: safefile.ErrTooLarge, safefile.ErrNotRegular, ErrBadName) through it.
type SnapshotError struct {
	// Rel is the file relative to the snapshot folder (or the bucket's
	// prefix): snapshots/NAME.json. Error() names it, never an absolute path.
	Rel string
	Err error
}

func (e *SnapshotError) Error() string {
	what := "cluster snapshot damaged"
	if errors.Is(e.Err, ErrNewerFormat) {
		what = "cluster snapshot written by a newer topicsnap"
	}
	// The kind's own words ("manifest is not valid") would name the wrong
	// file: what is wrong with this one follows them.
	return fmt.Sprintf("%s: %s: %s", what, e.Rel, strings.TrimPrefix(e.Err.Error(), ErrBadManifest.Error()+": "))
}

func (e *SnapshotError) Unwrap() error { return e.Err }

// FolderTopic is the topic whose folder of cuts holds the damaged file
// (snapshots/topic=NAME/ID.json), or "" for a cut of a folder written
// before cuts were kept by topic (snapshots/ID.json), whose topic only its
// content could say.
func (e *SnapshotError) FolderTopic() string {
	rest, ok := strings.CutPrefix(e.Rel, snapshotsDir+"/topic=")
	if !ok {
		return ""
	}
	t, _, _ := strings.Cut(rest, "/")
	return t
}

// ParseSnapshot decodes and validates the cluster snapshot read from
// snapshots/NAME.json, named rel in errors (*SnapshotError): its id must be
// NAME, a valid snapshot id, and its topic a valid topic name.
func ParseSnapshot(rel string, b []byte) (*ClusterSnapshot, error) {
	bad := func(format string, a ...any) error {
		return &SnapshotError{Rel: rel, Err: fmt.Errorf("%w: %s", ErrBadManifest, fmt.Sprintf(format, a...))}
	}
	if err := tooManyObjects(b, MaxSnapshotObjects); err != nil {
		return nil, bad("%v", err)
	}
	var s ClusterSnapshot
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, bad("empty")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&s); err != nil {
		return nil, bad("not JSON: %v", err)
	}
	if err := trailingJSON(dec); err != nil {
		return nil, bad("%v", err)
	}
	if s.FormatVersion > FormatVersion {
		return nil, &SnapshotError{Rel: rel, Err: fmt.Errorf("%w: format version %d, this build reads up to %d", ErrNewerFormat, s.FormatVersion, FormatVersion)}
	}
	if err := s.validate(); err != nil {
		return nil, &SnapshotError{Rel: rel, Err: err}
	}
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	if s.ID+".json" != base {
		return nil, bad("it holds snapshot id %q, its file name says %q", s.ID, strings.TrimSuffix(base, ".json"))
	}
	return &s, nil
}

// validate checks what a snapshot's fields become: its id a file name,
// its topic a folder's name, its partitions numbers.
func (s *ClusterSnapshot) validate() error {
	if !ValidSnapshotID(s.ID) {
		return fmt.Errorf("%w: %w: snapshot id %.200q", ErrBadManifest, ErrBadName, s.ID)
	}
	if !ValidTopicName(s.Topic) {
		return fmt.Errorf("%w: %w: topic %.300q", ErrBadManifest, ErrBadName, s.Topic)
	}
	if s.PartitionCount < 0 || s.PartitionCount > MaxPartitionCount || s.ReplicationFactor < 0 {
		return fmt.Errorf("%w: partition count %d, replication factor %d (want 0 to %d partitions, a factor of 0 or more)",
			ErrBadManifest, s.PartitionCount, s.ReplicationFactor, MaxPartitionCount)
	}
	// Offsets are -1 (not known, no commit) to MaxCutOffset: the checks
	// subtract them from one another (an offset of -2^63, or an end offset
	// of 2^63-1 less a committed -1, overflowed there).
	for _, p := range s.Partitions {
		if p.Partition < 0 {
			return fmt.Errorf("%w: partition %d", ErrBadManifest, p.Partition)
		}
		if !cutOffset(p.LogStart) || !cutOffset(p.HighWatermark) || !cutOffset(p.LastStable) {
			return fmt.Errorf("%w: partition %d has offsets log start %d, high watermark %d, last stable %d (want -1 to 2^62)",
				ErrBadManifest, p.Partition, p.LogStart, p.HighWatermark, p.LastStable)
		}
	}
	for _, g := range s.Groups {
		for _, o := range g.Offsets {
			if o.Partition < 0 || !cutOffset(o.Offset) {
				return fmt.Errorf("%w: group %.300q has offset %d on partition %d (want -1 to 2^62, on partition 0 or more)",
					ErrBadManifest, g.Group, o.Offset, o.Partition)
			}
		}
		for _, o := range g.Share {
			if o.Partition < 0 || !cutOffset(o.StartOffset) || !cutOffset(o.Lag) {
				return fmt.Errorf("%w: share group %.300q has start offset %d and lag %d on partition %d (want -1 to 2^62, on partition 0 or more)",
					ErrBadManifest, g.Group, o.StartOffset, o.Lag, o.Partition)
			}
		}
	}
	for _, p := range s.Dumped {
		if p < 0 {
			return fmt.Errorf("%w: dumped partition %d", ErrBadManifest, p)
		}
	}
	return nil
}

// cutOffset reports whether o is an offset a cut may record: -1 (not
// known, no commit) to MaxCutOffset.
func cutOffset(o int64) bool { return o >= -1 && o <= MaxCutOffset }

// validate checks a decoded manifest's content: a topic and partition that
// can name a folder, file entries named FIRST-LAST.parquet after their own
// offsets, offsets >= 0, in order and not overlapping, counts >= 0 and no
// larger than their range, lost ranges from <= to (both inclusive) in
// order and not overlapping, so that no length or sum of lengths of one
// partition overflows, and lists within their bounds.
func (m *Manifest) validate() error {
	if !ValidTopicName(m.Topic) {
		return fmt.Errorf("%w: bad topic name %.300q", ErrBadName, m.Topic)
	}
	if m.Partition < 0 {
		return fmt.Errorf("bad partition %d", m.Partition)
	}
	if m.NextOffset < -1 {
		return fmt.Errorf("bad next offset %d", m.NextOffset)
	}
	switch {
	case len(m.Files) > MaxManifestFiles:
		return fmt.Errorf("%d files, more than the %d a manifest may list", len(m.Files), MaxManifestFiles)
	case len(m.Snapshots) > MaxManifestSnapshots:
		return fmt.Errorf("%d snapshots, more than the %d a manifest may list", len(m.Snapshots), MaxManifestSnapshots)
	case len(m.Lost) > MaxLostRanges:
		return fmt.Errorf("%d lost ranges, more than the %d a manifest may list (a dump that keeps losing offsets to retention: start a new snapshot folder)", len(m.Lost), MaxLostRanges)
	}
	for i, s := range m.Snapshots {
		if err := s.validate(i); err != nil {
			return err
		}
	}
	history := m.History()
	prev := int64(-1)
	for i, f := range m.Files {
		if err := f.validate(i, history); err != nil {
			return err
		}
		if f.FirstOffset <= prev {
			return fmt.Errorf("file %q overlaps or is out of order", f.Name)
		}
		prev = f.LastOffset
	}
	// The next offset is past every committed file: a dump resumes there
	// (one below would read and store the file's offsets again), and a
	// restore and the catalog's ranges end there (one below would leave
	// the file's later records out without a word).
	if n := len(m.Files); n > 0 && m.NextOffset <= m.Files[n-1].LastOffset {
		return fmt.Errorf("next offset %d is not past its last file %q (offsets %d-%d)",
			m.NextOffset, m.Files[n-1].Name, m.Files[n-1].FirstOffset, m.Files[n-1].LastOffset)
	}
	// Superseded files may overlap one another and the current ones (they
	// are other versions of the same offsets), never share a name.
	names := map[string]bool{}
	for _, f := range m.Files {
		names[f.Name] = true
	}
	for i, f := range m.Superseded {
		if err := f.validate(i, history); err != nil {
			return fmt.Errorf("superseded %w", err)
		}
		if f.History >= history {
			return fmt.Errorf("superseded file %q is of history %d, not older than the current %d", f.Name, f.History, history)
		}
		if names[f.Name] {
			return fmt.Errorf("superseded file %q is listed twice", f.Name)
		}
		names[f.Name] = true
	}
	if err := validateRewrites(m.Rewrites); err != nil {
		return err
	}
	if len(m.Retired) > MaxManifestFiles {
		return fmt.Errorf("%d retired files, more than the %d a manifest may list", len(m.Retired), MaxManifestFiles)
	}
	for _, r := range m.Retired {
		// A retired file is removed by name: it must be a data file's name
		// (one path element of the dump's shape), and not a listed one.
		if !validDataFileName(r.Name) {
			return fmt.Errorf("%w: retired file %.300q is not a data file's name", ErrBadName, r.Name)
		}
		if names[r.Name] {
			return fmt.Errorf("retired file %q is also listed as current or superseded", r.Name)
		}
	}
	prev = -1
	for i, l := range m.Lost {
		if l.From < 0 || l.To < l.From || l.To == math.MaxInt64 {
			return fmt.Errorf("lost range %d is %d-%d (want 0 <= from <= to, both inclusive)", i, l.From, l.To)
		}
		if l.From <= prev {
			return fmt.Errorf("lost range %d-%d overlaps or is out of order", l.From, l.To)
		}
		switch l.Kind {
		case LostBeforeFirst, LostBetween, LostCompacted, LostDamaged, LostNotInFile:
		default:
			return fmt.Errorf("lost range %d-%d has kind %.100q (want %s, %s, %s, %s or %s)", l.From, l.To, l.Kind,
				LostBeforeFirst, LostBetween, LostCompacted, LostDamaged, LostNotInFile)
		}
		prev = l.To
	}
	return nil
}

// trailingJSON says whether dec, having decoded one value, holds more
// than white space after it: a file of two objects (one appended to
// another, a write interleaved with another) is not what any topicsnap
// wrote, and which object holds the truth is not known.
func trailingJSON(dec *json.Decoder) error {
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("more JSON after its object (two objects, or text appended to one)")
	}
	return nil
}

// validate checks one cut entry (the i-th of its manifest's list): an id
// of a cut's shape, offsets of a partition, 0 or more (-1, Kafka's
// "unknown", only in an import's entry: no broker said them; a dump's
// entry holds what the broker answered, or the dump failed), from <=
// until, all within MaxCutOffset.
func (s PartitionSnapshot) validate(i int) error {
	if !ValidSnapshotID(s.ID) {
		return fmt.Errorf("%w: snapshot %d has id %.100q (want 1 to %d letters, digits, '.', '_' or '-')", ErrBadName, i, s.ID, MaxSnapshotIDLen)
	}
	least := int64(0)
	if s.Imported != "" {
		least = -1
	}
	for _, o := range []struct {
		name string
		v    int64
		min  int64
	}{{"log start offset", s.LogStart, least}, {"high watermark", s.HighWatermark, least}, {"last stable offset", s.LastStable, least}, {"from", s.From, 0}, {"until", s.Until, 0}} {
		if o.v < o.min || o.v > MaxCutOffset {
			return fmt.Errorf("snapshot %s has %s %d (want %d to %d)", s.ID, o.name, o.v, o.min, int64(MaxCutOffset))
		}
	}
	if s.Until < s.From {
		return fmt.Errorf("snapshot %s dumped from %d until %d (want from <= until)", s.ID, s.From, s.Until)
	}
	// Not compared with one another: a dump lists the log start, the end
	// and the last stable offset in three requests, and a log truncated
	// (an unclean leader election) or appended to between them moves one
	// past another.
	return nil
}

// validate checks one file entry (the i-th of its list) of a manifest
// whose current history is history.
func (f FileEntry) validate(i, history int) error {
	if f.FirstOffset < 0 || f.LastOffset < f.FirstOffset || f.LastOffset == math.MaxInt64 {
		return fmt.Errorf("file %d has offsets %d-%d (want 0 <= first <= last)", i, f.FirstOffset, f.LastOffset)
	}
	if f.History < 0 || f.History > history {
		return fmt.Errorf("file %.300q is of history %d (the manifest knows histories 0-%d)", f.Name, f.History, history)
	}
	if want := FileNameIn(f.FirstOffset, f.LastOffset, f.History); f.Name != want {
		return fmt.Errorf("%w: file %.300q does not match its range %d-%d (want %s)", ErrBadName, f.Name, f.FirstOffset, f.LastOffset, want)
	}
	span := f.LastOffset - f.FirstOffset + 1
	if f.Records < 0 || f.Records > span || f.ControlRecords < 0 || f.ControlRecords > f.Records ||
		f.OpenTxnRecords < 0 || f.OpenTxnRecords > f.Records || f.Bytes < 0 ||
		f.Decoded < 0 || f.DecodeErrors < 0 || f.KeysDecoded < 0 || f.KeyDecodeErrors < 0 {
		return fmt.Errorf("file %q has counts out of range (records %d for %d offsets, control %d, open %d, bytes %d)",
			f.Name, f.Records, span, f.ControlRecords, f.OpenTxnRecords, f.Bytes)
	}
	return nil
}

// validateRewrites checks a manifest's rewrites: a known kind, offsets
// 0 <= redumped <= first <= last (so that no length overflows), epochs of
// -1 or more, and histories 1, 2, ... in order.
func validateRewrites(rs []Rewrite) error {
	if len(rs) > MaxRewrites {
		return fmt.Errorf("%d rewrites, more than the %d a manifest may list (a log rewritten that often wants a new snapshot folder)", len(rs), MaxRewrites)
	}
	for i, r := range rs {
		switch {
		case r.Kind != RewriteTruncated && r.Kind != RewriteEndBack && r.Kind != RewriteRecreated:
			return fmt.Errorf("rewrite %d has kind %.100q (want %s, %s or %s)", i, r.Kind, RewriteTruncated, RewriteEndBack, RewriteRecreated)
		case r.Redumped < 0 || r.First < r.Redumped || r.Last < r.First || r.Last == math.MaxInt64:
			return fmt.Errorf("rewrite %d covers offsets %d-%d re-read from %d (want 0 <= redumped <= first <= last)", i, r.First, r.Last, r.Redumped)
		case r.History != i+1:
			return fmt.Errorf("rewrite %d starts history %d (want %d)", i, r.History, i+1)
		case r.OldEpoch < -1 || r.NewEpoch < -1 || r.EpochEnd < -1:
			return fmt.Errorf("rewrite %d has leader epochs %d, %d and epoch end %d (want -1 or more)", i, r.OldEpoch, r.NewEpoch, r.EpochEnd)
		case len(r.SupersededLost) > MaxLostRanges:
			return fmt.Errorf("rewrite %d keeps %d lost ranges, more than %d", i, len(r.SupersededLost), MaxLostRanges)
		}
		for _, l := range r.SupersededLost {
			if l.From < 0 || l.To < l.From || l.To == math.MaxInt64 {
				return fmt.Errorf("rewrite %d keeps lost range %d-%d (want 0 <= from <= to)", i, l.From, l.To)
			}
		}
	}
	return nil
}

// checkFolder says whether m belongs to the folder of tp it was read from.
func (m *Manifest) checkFolder(tp TopicPartition) error {
	if m.Topic != tp.Topic || m.Partition != tp.Partition {
		return fmt.Errorf("it is the manifest of topic %.300q partition %d, not of the folder's", m.Topic, m.Partition)
	}
	return nil
}

// manifestRel is a manifest's path relative to the snapshot folder.
func manifestRel(tp TopicPartition) string { return RelPartitionDir(tp) + "/" + manifestName }

// readErr is why a metadata object could not be read: a damaged folder
// (ErrBadManifest, with the cause: safefile.ErrNotRegular,
// safefile.ErrTooLarge, a link leading out of the folder) when the store
// marked it the object's own (store.Damaged), unless this process may not
// read it, which is said as it is, as is a request that failed.
func readErr(err error) error {
	if errors.Is(err, os.ErrPermission) || !store.IsDamaged(err) {
		return err
	}
	return fmt.Errorf("%w: %w", ErrBadManifest, err)
}

// validDataFileName reports whether name is a data file's name as
// FileNameIn spells it (FIRST-LAST.parquet, or FIRST-LAST.hN.parquet).
func validDataFileName(name string) bool {
	var a, b int64
	var h int
	if n, err := fmt.Sscanf(name, "%020d-%020d.parquet", &a, &b); err == nil && n == 2 {
		return a >= 0 && b >= a && FileName(a, b) == name
	}
	if n, err := fmt.Sscanf(name, "%020d-%020d.h%d.parquet", &a, &b, &h); err == nil && n == 3 {
		return a >= 0 && b >= a && h > 0 && FileNameIn(a, b, h) == name
	}
	return false
}
