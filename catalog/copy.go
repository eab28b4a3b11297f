package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/topicsnap/topicsnap/catalog/store"
)

// etagsName is the file, in a local partition folder copied from a
// bucket, that records the ETag each data file had in the bucket, so a
// second copy knows which files it already holds unchanged.
const etagsName = ".etags.json"

// CopyStats says what Copy did.
type CopyStats struct {
	Files     int   // data files copied
	Bytes     int64 // their bytes
	Kept      int   // data files dst already held, same size (and ETag)
	Manifests int
	Snapshots int
	// Damaged names the data files MirrorCopy mirrored damaged (missing,
	// or not the manifest's size in src), each with what is wrong.
	Damaged []string
}

// Copy copies what src has committed into dst (each a folder or a
// bucket): for every partition, the files its manifest lists, then the
// manifest, so dst never lists a file it does not hold whole; then the
// cluster snapshots. It is resumable: a file dst already holds with the
// manifest's size (and, copied from a bucket, the same ETag) is kept, not
// copied again. Every copied file is checked against the manifest's size.
// A damaged manifest in src is skipped and named in the error, after the
// rest is copied. Copy does not take dst's partition locks: do not run it
// into a prefix a dumper is writing (the manifest's conditional write
// refuses to overwrite one that changed under it, in a bucket). Named
// topics, only those topics and their snapshots are copied.
func Copy(ctx context.Context, src, dst *Dir, only ...string) (CopyStats, error) {
	return copyAll(ctx, src, dst, false, only)
}

// MirrorCopy is Copy into a folder that stands for src, which its readers
// read in src's place (the local cache sql, check, serve, notebooks and
// restore read a bucket through). A data file src holds damaged, missing
// or not of the size its manifest says (an object cut short), does not
// stop the copy, which would cost every reader the whole folder: dst gets
// it as src has it (a shorter object as it is, a longer one cut at the
// manifest's size and a byte, a missing one removed from dst) beside its
// manifest, so that dst's readers find the damage where they look for it
// in a folder (ReadTopic's size check) and it costs that partition alone.
// Each is named in CopyStats.Damaged. A file of the right size whose bytes
// are not Parquet is copied as any other: dst's readers check its ends and
// footer.
func MirrorCopy(ctx context.Context, src, dst *Dir, only ...string) (CopyStats, error) {
	return copyAll(ctx, src, dst, true, only)
}

// sourceGoneError is a copy error of a data file src's manifest listed and
// src no longer holds.
type sourceGoneError struct{ err error }

func (e *sourceGoneError) Error() string { return e.err.Error() }
func (e *sourceGoneError) Unwrap() error { return e.err }

// beforeCopyPartition runs before each partition's copy; a test compacts
// the source there.
var beforeCopyPartition = func(tp TopicPartition) {}

func copyAll(ctx context.Context, src, dst *Dir, mirror bool, only []string) (CopyStats, error) {
	var st CopyStats
	topics, unread, err := src.TopicFolders(ctx)
	if err != nil {
		return st, err
	}
	var damaged []error
	if !mirror {
		// A topic's folder that is not read (a link, a file, a name no
		// topic has) is not copied: named, after the rest is copied, where
		// catalog copy said "copied 3 files" of a folder whose copy of a
		// topic by hand it left behind without a word. (A mirror is read
		// in its source's place, and its readers name what they skip.)
		for _, u := range unread {
			if len(only) == 0 || slices.Contains(only, u.Topic) {
				damaged = append(damaged, u)
			}
		}
	}
	if len(only) > 0 {
		want := map[string]bool{}
		for _, t := range only {
			want[t] = true
		}
		var some []string
		for _, t := range topics {
			if want[t] {
				some = append(some, t)
			}
		}
		topics = some
	}
	copied := map[string]bool{}
	for _, t := range topics {
		copied[t] = true
	}
	for _, topic := range topics {
		tm, err := src.ReadTopic(ctx, topic)
		if err != nil {
			return st, err
		}
		ms := tm.Manifests
		for _, me := range tm.Damaged {
			// Mirrored, a partition whose manifest reads but whose data
			// files are damaged (a folder's sizes are checked as it is
			// read) is copied with its damage.
			if mirror && errors.Is(me, ErrBadDataFile) {
				if m, err := src.ReadManifest(ctx, me.TP); err == nil {
					ms = append(ms, m)
					continue
				}
			}
			damaged = append(damaged, me)
		}
		for _, m := range ms {
			// A file a compact (--grace 0) removed from src after the
			// manifest was read is not src's damage: the partition is
			// copied again from its new manifest, while it changes.
			for attempt := 0; ; attempt++ {
				beforeCopyPartition(m.TP())
				err := copyPartition(ctx, src, dst, m, mirror, &st)
				if err == nil {
					break
				}
				var gone *sourceGoneError
				if !errors.As(err, &gone) || attempt == MaxRereads {
					return st, err
				}
				m2, rerr := src.ReadManifest(ctx, m.TP())
				if rerr != nil || slices.EqualFunc(m2.AllFiles(), m.AllFiles(), func(a, b FileEntry) bool { return a.Name == b.Name }) {
					return st, err
				}
				m = m2
			}
		}
	}
	have := map[string]bool{}
	// A damaged snapshot in dst is not counted as held: the source's
	// replaces it (in a folder; a bucket refuses to overwrite it).
	dsnaps, err := dst.ClusterSnapshots(ctx)
	if err != nil && !errors.Is(err, ErrBadManifest) && !errors.Is(err, ErrNewerFormat) {
		return st, err
	}
	for _, s := range dsnaps {
		have[s.ID] = true
	}
	// Each snapshot's id was checked to be its file's name and one path
	// element (ParseSnapshot) before it names a file in dst; the damaged
	// ones are named in the error, after the rest is copied.
	snaps, err := src.ClusterSnapshots(ctx)
	switch {
	case errors.Is(err, ErrBadManifest), errors.Is(err, ErrNewerFormat):
		damaged = append(damaged, err)
	case err != nil:
		return st, err
	}
	for _, s := range snaps {
		if have[s.ID] || len(only) > 0 && !copied[s.Topic] {
			continue
		}
		if err := dst.WriteClusterSnapshot(ctx, s); err != nil {
			return st, err
		}
		st.Snapshots++
	}
	if len(damaged) > 0 {
		return st, fmt.Errorf("copy %s: damaged manifests, snapshots or folders not copied: %w", src.Path, errors.Join(damaged...))
	}
	return st, nil
}

// listData lists the data files of tp's folder (or under its prefix) by
// name. hinted says the store lists no ETags of its own (a folder): the
// ETags given are those a copy from a bucket recorded in .etags.json.
func (d *Dir) listData(ctx context.Context, tp TopicPartition) (out map[string]store.Entry, hinted bool, err error) {
	out = map[string]store.Entry{}
	rel := RelPartitionDir(tp)
	entries, err := d.store().List(ctx, rel)
	if err != nil {
		return nil, false, err
	}
	hinted = !d.store().Traits().ETags
	for _, e := range entries {
		if e.Dir || !strings.HasSuffix(e.Name, ".parquet") || strings.HasPrefix(e.Name, tmpPrefix) {
			continue
		}
		out[e.Name] = e
	}
	if !hinted || len(out) == 0 {
		return out, hinted, nil
	}
	// The ETags are a hint (a file whose ETag is unknown is copied again),
	// so one that cannot be read, or is past its cap, is not an error.
	var etags map[string]string
	if b, _, err := d.store().Get(ctx, rel+"/"+etagsName, MaxETagsBytes); err == nil {
		json.Unmarshal(b, &etags)
	}
	for name, e := range out {
		e.ETag = etags[name]
		out[name] = e
	}
	return out, true, nil
}

func copyPartition(ctx context.Context, src, dst *Dir, m *Manifest, mirror bool, st *CopyStats) error {
	tp := m.TP()
	from, srcHinted, err := src.listData(ctx, tp)
	if err != nil {
		return err
	}
	to, dstHinted, err := dst.listData(ctx, tp)
	if err != nil {
		return err
	}
	// Copied from a bucket into a folder, a file is kept only with the
	// bucket's ETag, which the folder records as a hint.
	byETag := !srcHinted && dstHinted
	etags := map[string]string{}
	for _, fe := range m.AllFiles() {
		if err := ctx.Err(); err != nil {
			return err
		}
		o, ok := from[fe.Name]
		want := fe.Bytes // the bytes dst gets
		switch {
		case (!ok || o.Size != fe.Bytes) && !mirror:
			err := fmt.Errorf("copy %s: %s is missing or not the manifest's size in the source (catalog verify says more)", tp, src.FilePath(tp, fe.Name))
			if !ok {
				return &sourceGoneError{err}
			}
			return err
		case !ok:
			st.Damaged = append(st.Damaged, src.FilePath(tp, fe.Name)+": missing")
			if err := dst.removeData(ctx, tp, fe.Name); err != nil {
				return err
			}
			continue
		case o.Size != fe.Bytes:
			st.Damaged = append(st.Damaged, fmt.Sprintf("%s: %d bytes where the manifest says %d (cut short or rewritten)", src.FilePath(tp, fe.Name), o.Size, fe.Bytes))
			want = min(o.Size, fe.Bytes+1)
		}
		etags[fe.Name] = o.ETag
		if t, ok := to[fe.Name]; ok && t.Size == want && (!byETag || t.ETag == o.ETag) {
			st.Kept++
			continue
		}
		if err := copyFile(ctx, src, dst, tp, fe, want); err != nil {
			return err
		}
		st.Files++
		st.Bytes += want
	}
	if byETag {
		b, _ := json.Marshal(etags)
		if _, err := dst.store().Put(ctx, RelPartitionDir(tp)+"/"+etagsName, b, store.Cond{}); err != nil {
			return err
		}
	}
	if _, err := dst.ReadManifest(ctx, tp); err != nil { // the version the conditional write replaces
		var me *ManifestError
		if !errors.As(err, &me) {
			return err
		}
	}
	cp := *m
	cp.Retired = nil // not copied: dst's readers never read an older manifest
	if err := dst.WriteManifest(ctx, &cp); err != nil {
		return err
	}
	st.Manifests++
	return nil
}

// copyFile copies one data file, complete or not at all, and checks its
// size: want bytes (the manifest's, or what MirrorCopy mirrors of a
// damaged one; an object longer than want is cut there).
func copyFile(ctx context.Context, src, dst *Dir, tp TopicPartition, fe FileEntry, want int64) error {
	rel := RelFilePath(tp, fe.Name)
	r, err := src.store().Open(ctx, rel)
	if errors.Is(err, os.ErrNotExist) {
		return &sourceGoneError{fmt.Errorf("read %s: %w", src.FilePath(tp, fe.Name), err)}
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", src.FilePath(tp, fe.Name), err)
	}
	defer r.Close()
	short := func(n int64) error {
		return fmt.Errorf("copy %s: %d bytes read, the manifest says %d", src.FilePath(tp, fe.Name), n, fe.Bytes)
	}
	limit := want + 1 // a file that grows is refused
	if want != fe.Bytes {
		limit = want // a damaged one is mirrored up to want
	}
	// A local file goes as it is (a bucket uploads it without a copy),
	// once its size is the manifest's; anything else is read through a
	// reader that holds it to that size.
	if f, ok := r.(*os.File); ok {
		fi, err := f.Stat()
		if err != nil {
			return fmt.Errorf("copy %s: %w", src.FilePath(tp, fe.Name), err)
		}
		if fi.Size() == want {
			return dst.store().Upload(ctx, rel, f, want)
		}
		if want == fe.Bytes {
			return short(fi.Size())
		}
	}
	return dst.store().Upload(ctx, rel, &exactReader{r: io.LimitReader(r, limit), want: want, short: short}, want)
}

// exactReader reads r, which must yield want bytes: fewer or more is the
// error short says, in place of io.EOF (a file that grows stops at want+1).
type exactReader struct {
	r     io.Reader
	n     int64
	want  int64
	short func(n int64) error
}

func (e *exactReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	e.n += int64(n)
	if e.n > e.want || err == io.EOF && e.n != e.want {
		return n, e.short(e.n)
	}
	return n, err
}

// Unlisted names what lies in tp's folder (or under its prefix) that m
// does not list: data files a killed writer finished but did not commit,
// temp files, and, in a bucket, incomplete multipart uploads. Readers
// never read them; CleanPartition removes them.
func (d *Dir) Unlisted(ctx context.Context, m *Manifest) ([]string, error) {
	st := d.store()
	rel := RelPartitionDir(m.TP())
	listed := m.known()
	entries, err := st.List(ctx, rel)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if n := e.Name; !e.Dir && (strings.HasPrefix(n, tmpPrefix) || strings.HasSuffix(n, ".parquet") && !listed[n]) {
			out = append(out, n)
		}
	}
	unfinished, err := st.Unfinished(ctx, rel, false)
	return append(out, unfinished...), err
}
