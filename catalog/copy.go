package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/topicsnap/topicsnap/internal/safefile"
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
	var st CopyStats
	topics, err := src.Topics()
	if err != nil {
		return st, err
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
	var damaged []error
	for _, topic := range topics {
		tm, err := src.ReadTopic(topic)
		if err != nil {
			return st, err
		}
		for _, me := range tm.Damaged {
			damaged = append(damaged, me)
		}
		for _, m := range tm.Manifests {
			if err := copyPartition(ctx, src, dst, m, &st); err != nil {
				return st, err
			}
		}
	}
	have := map[string]bool{}
	// A damaged snapshot in dst is not counted as held: the source's
	// replaces it (in a folder; a bucket refuses to overwrite it).
	dsnaps, err := dst.ClusterSnapshots()
	if err != nil && !errors.Is(err, ErrBadManifest) && !errors.Is(err, ErrNewerFormat) {
		return st, err
	}
	for _, s := range dsnaps {
		have[s.ID] = true
	}
	// Each snapshot's id was checked to be its file's name and one path
	// element (ParseSnapshot) before it names a file in dst; the damaged
	// ones are named in the error, after the rest is copied.
	snaps, err := src.ClusterSnapshots()
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
		if err := dst.WriteClusterSnapshot(s); err != nil {
			return st, err
		}
		st.Snapshots++
	}
	if len(damaged) > 0 {
		return st, fmt.Errorf("copy %s: damaged manifests or snapshots not copied: %w", src.Path, errors.Join(damaged...))
	}
	return st, nil
}

// listData lists the objects or files of tp's folder by name.
func (d *Dir) listData(tp TopicPartition) (map[string]object, error) {
	out := map[string]object{}
	if d.s3 != nil {
		_, objs, err := d.s3.list(partitionRel(tp))
		for _, o := range objs {
			out[o.Name] = o
		}
		return out, err
	}
	dir := d.PartitionDir(tp)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	// The ETags are a hint (a file whose ETag is unknown is copied again),
	// so one that cannot be read, or is past its cap, is not an error.
	var etags map[string]string
	if b, err := safefile.ReadFileIn(d.Path, filepath.FromSlash(RelPartitionDir(tp)+"/"+etagsName), MaxETagsBytes); err == nil {
		json.Unmarshal(b, &etags)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".parquet") || strings.HasPrefix(e.Name(), tmpPrefix) {
			continue
		}
		if fi, err := e.Info(); err == nil {
			out[e.Name()] = object{Name: e.Name(), Size: fi.Size(), ETag: etags[e.Name()]}
		}
	}
	return out, nil
}

func copyPartition(ctx context.Context, src, dst *Dir, m *Manifest, st *CopyStats) error {
	tp := m.TP()
	from, err := src.listData(tp)
	if err != nil {
		return err
	}
	to, err := dst.listData(tp)
	if err != nil {
		return err
	}
	etags := map[string]string{}
	for _, fe := range m.AllFiles() {
		if err := ctx.Err(); err != nil {
			return err
		}
		o, ok := from[fe.Name]
		if !ok || o.Size != fe.Bytes {
			return fmt.Errorf("copy %s: %s is missing or not the manifest's size in the source (catalog verify says more)", tp, src.FilePath(tp, fe.Name))
		}
		etags[fe.Name] = o.ETag
		if t, ok := to[fe.Name]; ok && t.Size == fe.Bytes && (src.s3 == nil || dst.s3 != nil || t.ETag == o.ETag) {
			st.Kept++
			continue
		}
		if err := copyFile(ctx, src, dst, tp, fe); err != nil {
			return err
		}
		st.Files++
		st.Bytes += fe.Bytes
	}
	if dst.s3 == nil && src.s3 != nil {
		b, _ := json.Marshal(etags)
		if err := WriteFileAtomic(filepath.Join(dst.PartitionDir(tp), etagsName), func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
			return err
		}
	}
	if _, err := dst.ReadManifest(tp); err != nil { // the version the conditional write replaces
		var me *ManifestError
		if !errors.As(err, &me) {
			return err
		}
	}
	cp := *m
	cp.Retired = nil // not copied: dst's readers never read an older manifest
	if err := dst.WriteManifest(&cp); err != nil {
		return err
	}
	st.Manifests++
	return nil
}

// openData opens a committed data file for reading.
func (d *Dir) openData(ctx context.Context, tp TopicPartition, name string) (io.ReadCloser, error) {
	if d.s3 == nil {
		return openRegular(d.Path, filepath.FromSlash(RelFilePath(tp, name)))
	}
	rel := partitionRel(tp) + "/" + name
	out, err := d.s3.cl.GetObject(ctx, &s3.GetObjectInput{Bucket: &d.s3.bucket, Key: aws.String(d.s3.key(rel))})
	if err != nil {
		return nil, d.s3.s3Error("read", rel, err)
	}
	return out.Body, nil
}

// copyFile copies one data file, complete or not at all, and checks its size.
func copyFile(ctx context.Context, src, dst *Dir, tp TopicPartition, fe FileEntry) error {
	r, err := src.openData(ctx, tp, fe.Name)
	if err != nil {
		return err
	}
	defer r.Close()
	short := func(n int64) error {
		return fmt.Errorf("copy %s: %d bytes read, the manifest says %d", src.FilePath(tp, fe.Name), n, fe.Bytes)
	}
	if dst.s3 == nil {
		if err := os.MkdirAll(dst.PartitionDir(tp), 0o755); err != nil {
			return fmt.Errorf("create %s: %w", dst.PartitionDir(tp), classify(err))
		}
		return WriteFileAtomic(dst.FilePath(tp, fe.Name), func(w io.Writer) error {
			n, err := io.Copy(w, io.LimitReader(r, fe.Bytes+1)) // a file that grows stops here
			if err == nil && n != fe.Bytes {
				err = short(n)
			}
			return err
		})
	}
	// Into a bucket: from a local file as it is, else spooled to a temp file.
	f, ok := r.(*os.File)
	if !ok {
		tmp, err := os.CreateTemp("", tmpPrefix+"copy-*.parquet")
		if err != nil {
			return fmt.Errorf("create temp file: %w", err)
		}
		defer os.Remove(tmp.Name())
		defer tmp.Close()
		n, err := io.Copy(tmp, io.LimitReader(r, fe.Bytes+1))
		if err != nil {
			return fmt.Errorf("copy %s: %w", src.FilePath(tp, fe.Name), err)
		}
		if n != fe.Bytes {
			return short(n)
		}
		f = tmp
	}
	if fi, err := f.Stat(); err != nil || fi.Size() != fe.Bytes {
		return short(fi.Size())
	}
	return dst.s3.upload(partitionRel(tp)+"/"+fe.Name, f, fe.Bytes)
}

// Unlisted names what lies in tp's folder (or under its prefix) that m
// does not list: data files a killed writer finished but did not commit,
// temp files, and, in a bucket, incomplete multipart uploads. Readers
// never read them; CleanPartition removes them.
func (d *Dir) Unlisted(m *Manifest) ([]string, error) {
	tp := m.TP()
	listed := m.known()
	var out []string
	if d.s3 == nil {
		entries, err := os.ReadDir(d.PartitionDir(tp))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("list %s: %w", d.PartitionDir(tp), err)
		}
		for _, e := range entries {
			if n := e.Name(); strings.HasPrefix(n, tmpPrefix) || strings.HasSuffix(n, ".parquet") && !listed[n] {
				out = append(out, n)
			}
		}
		return out, nil
	}
	objs, err := d.listData(tp)
	if err != nil {
		return nil, err
	}
	for n := range objs {
		if strings.HasPrefix(n, tmpPrefix) || strings.HasSuffix(n, ".parquet") && !listed[n] {
			out = append(out, n)
		}
	}
	ups, err := d.s3.cl.ListMultipartUploads(d.s3.ctx, &s3.ListMultipartUploadsInput{Bucket: &d.s3.bucket, Prefix: aws.String(d.s3.key(partitionRel(tp)) + "/")})
	if err != nil {
		return out, d.s3.s3Error("list uploads of", partitionRel(tp), err)
	}
	for _, u := range ups.Uploads {
		out = append(out, path.Base(aws.ToString(u.Key))+" (incomplete upload)")
	}
	return out, nil
}
