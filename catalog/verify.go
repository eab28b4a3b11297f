package catalog

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/topicsnap/topicsnap/catalog/store"
	"github.com/topicsnap/topicsnap/internal/safefile"
)

// Problem is one thing wrong with a snapshot folder, named by path, with
// what to do about it.
type Problem struct {
	// Kind is what is damaged: KindDataFile, KindManifest, KindCut,
	// KindFolder, KindSchema or KindStray.
	Kind   string `json:"kind"`
	Path   string `json:"path"`
	Detail string `json:"detail"`
	Fix    string `json:"fix"`
}

// The kinds of Problem.
const (
	KindDataFile = "data file"
	KindManifest = "manifest"
	KindCut      = "cluster snapshot"
	// KindFolder is a topic's or a partition's folder (or a topic's folder
	// of cuts) that is not read: a symbolic link, a file, or unreadable.
	KindFolder = "folder"
	KindSchema = "schema"
	// KindStray is a folder named as a topic's whose name is no topic's
	// (topic=orders (copy)): no dump wrote it, and it is not read.
	KindStray = "stray folder"
)

func (p Problem) String() string { return fmt.Sprintf("%s: %s (%s)", p.Path, p.Detail, p.Fix) }

// VerifyReport is what VerifyAll checked and found.
type VerifyReport struct {
	Files    int // data files checked
	Cuts     int // cluster snapshots checked (those read and those damaged)
	Problems []Problem
	// Notes are what is true of the folder and is no damage (a schema id
	// the registry never had: its values are undecoded, nothing is missing).
	Notes []string
}

// Verify is VerifyAll's count of data files and its problems.
func (d *Dir) Verify(ctx context.Context) (files int, problems []Problem, err error) {
	r, err := d.VerifyAll(ctx)
	return r.Files, r.Problems, err
}

// VerifyAll re-reads every committed file's footer and row count
// against its manifest, and reports manifests that do not parse, files
// that are missing, truncated or corrupt, and unlisted leftovers. It
// reads every page of every column of each file (one page at a time),
// checking the CRC-32 the writer gave each page and decoding it, so a
// file no reader could read whole is named. It also reads each file's
// partition and offset columns and holds them to the manifest as restore
// does (CheckRows): every row of the manifest's partition, offsets
// strictly increasing inside the file's stated range, as many rows as it
// states (a bucket's objects by ranged GETs). It names a topic's or a
// partition's folder that is a symbolic link or a file (not read), and
// reads every cluster snapshot as ls and the checks do, naming each that
// cannot be read. It reads every topic even when one is broken, and stops
// when ctx ends. Unlisted leftovers of an interrupted dump are not
// problems: no reader reads them, and the next dump removes them.
func (d *Dir) VerifyAll(ctx context.Context) (*VerifyReport, error) {
	r := &VerifyReport{}
	files, problems, notes, err := d.verifyTopics(ctx)
	r.Files, r.Problems, r.Notes = files, problems, notes
	if err != nil {
		return r, err
	}
	cuts, cutProblems, err := d.verifyCuts(ctx)
	r.Cuts, r.Problems = cuts, append(r.Problems, cutProblems...)
	return r, err
}

// linkFix is the fix of a folder of the layout (whose: "topic's",
// "partition's") that is a link or a file.
func linkFix(mode os.FileMode, whose string) string {
	if mode&os.ModeSymlink != 0 {
		return "replace the link with the " + whose + " folder it points to (move it back into the snapshot folder), or mount that folder here instead (mount --bind); links are not followed"
	}
	return "replace it with the " + whose + " folder itself, or remove it"
}

// verifyCuts reads every cluster snapshot as ClusterSnapshots does and
// names each it leaves out.
func (d *Dir) verifyCuts(ctx context.Context) (cuts int, problems []Problem, err error) {
	st := d.store()
	snaps, err := d.ClusterSnapshots(ctx)
	cuts = len(snaps)
	switch {
	case err == nil:
		return cuts, nil, nil
	case errors.As(err, new(*SnapshotError)):
	case store.IsDamaged(err) && !errors.Is(err, os.ErrPermission):
		// The folder of cuts itself (a file where it should be).
		return cuts, []Problem{{KindFolder, st.Where(snapshotsDir), err.Error(), "replace it with the folder of cluster snapshots, or remove it"}}, nil
	default:
		return cuts, nil, err
	}
	var one []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		one = j.Unwrap()
	} else {
		one = []error{err}
	}
	for _, e := range one {
		var se *SnapshotError
		if !errors.As(e, &se) {
			return cuts, problems, e
		}
		kind, fix := KindCut, "put the file back from a backup, or move it out of the folder: a cut holds the cluster's state at one dump (offsets, consumer groups, configs), no record, and the checks judge without it once it is gone"
		switch {
		case errors.Is(se, ErrNewerFormat):
			fix = "use a newer topicsnap build for this folder"
		case errors.Is(se, ErrNotFolder):
			kind, fix = KindFolder, "replace the link with the folder of cuts it points to (move it back into the snapshot folder), or mount that folder here instead (mount --bind); links are not followed"
		case errors.Is(se, safefile.ErrNotRegular):
			fix = "replace it with the cut's file itself (a regular file inside the folder: links out of it are not followed), or remove it"
		}
		if kind == KindCut {
			cuts++
		}
		detail := strings.TrimPrefix(se.Err.Error(), ErrBadManifest.Error()+": ")
		problems = append(problems, Problem{kind, st.Where(se.Rel), detail, fix})
	}
	return cuts, problems, nil
}

func (d *Dir) verifyTopics(ctx context.Context) (files int, problems []Problem, notes []string, err error) {
	st := d.store()
	topics, unread, err := d.TopicFolders(ctx)
	if err != nil {
		return 0, nil, nil, err
	}
	for _, u := range unread {
		if u.BadName {
			problems = append(problems, Problem{KindStray, st.Where(u.Rel), u.Detail + ": it is not read", BadNameFix})
			continue
		}
		problems = append(problems, Problem{KindFolder, st.Where(u.Rel), u.Detail + ": topic " + u.Topic + " is not read", linkFix(u.Mode, "topic's")})
	}
	// damaged is an error that is the object's own, named as a problem;
	// any other (a bucket that cannot be reached) stops the run.
	schemaTopics := map[int]*schemaMet{} // schema id -> where the files list it
	for _, topic := range topics {
		trel := "topic=" + topic
		entries, err := st.List(ctx, trel)
		if err != nil {
			if !store.IsDamaged(err) {
				return files, problems, nil, err
			}
			problems = append(problems, Problem{KindFolder, st.Where(trel), err.Error(), "check the folder's permissions"})
			continue
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name, "partition=") {
				continue
			}
			prel := trel + "/" + e.Name
			pdir := st.Where(prel)
			if !e.Dir {
				problems = append(problems, Problem{KindFolder, pdir, notAFolder(e.Mode, "a partition's folder"), linkFix(e.Mode, "partition's")})
				continue
			}
			var pfiles int
			var pproblems []Problem
			// A file a writer removed after it committed a manifest that no
			// longer lists it (a compact with --grace 0, or past its grace)
			// is not damage: when a listed file is missing or unreadable and
			// the manifest changed since it was read, the partition is
			// checked again against the new one (a file still listed keeps
			// what its first check found).
			var read []byte
			checked := map[string]string{}
			for attempt := 0; ; attempt++ {
				var b []byte
				pfiles, pproblems, b, err = d.verifyPartition(ctx, topic, e, prel, read, schemaTopics, checked)
				if err != nil {
					return files, problems, nil, err
				}
				if attempt == verifyRereads || !hasFileProblem(pproblems) {
					break
				}
				now, _, gerr := st.Get(ctx, prel+"/"+manifestName, MaxManifestBytes)
				if gerr != nil || bytes.Equal(now, b) {
					break
				}
				read = now
			}
			files += pfiles
			problems = append(problems, pproblems...)
		}
	}
	sp, notes := d.verifySchemas(ctx, schemaTopics)
	problems = append(problems, sp...)
	return files, problems, notes, nil
}

// verifyManifestRead runs after verify read a partition's manifest, before
// it checks the files listed; a test compacts the partition there.
var verifyManifestRead = func(prel string) {}

// verifyOpened runs once verify opened a data file, before it reads it; a
// test removes the file there.
var verifyOpened = func(frel string) {}

// verifyRereads is how many times verify reads a partition's manifest
// again when a file it lists is missing and the manifest changed: a
// compact commits each merged run on its own, so a long one changes it
// many times while verify reads; each time verify reads only the files
// new to the manifest.
const verifyRereads = 1000

// hasFileProblem reports whether a data file has a problem: missing, or
// unreadable part way (in a bucket, an object removed while it was read
// answers 404 to the next range read, which reads as corrupt data).
func hasFileProblem(ps []Problem) bool {
	for _, p := range ps {
		if p.Kind == KindDataFile {
			return true
		}
	}
	return false
}

// verifyPartition checks the partition folder e (prel) of topic: its
// manifest (read from the store, or b when not nil) and every data file
// it lists. It returns the files checked, the problems, and the manifest
// bytes checked against. checked holds what each file read before came to
// (by its entry: a data file is never rewritten under its name), so a
// partition checked again reads only the files new to its manifest.
func (d *Dir) verifyPartition(ctx context.Context, topic string, e store.Entry, prel string, b []byte, schemaTopics map[int]*schemaMet, checked map[string]string) (files int, problems []Problem, _ []byte, err error) {
	st := d.store()
	whole := st.Traits().Partition
	pdir := st.Where(prel)
	mrel := prel + "/" + manifestName
	mpath := st.Where(mrel)
	// Read as a regular file in its folder, non-blocking: a FIFO is
	// a problem named, not a hang.
	if b == nil {
		b, _, err = st.Get(ctx, mrel, MaxManifestBytes)
	}
	verifyManifestRead(prel)
	var listed map[string]store.Entry // the partition's objects, listed once when a size is asked
	list := func() (map[string]store.Entry, error) {
		if listed != nil {
			return listed, nil
		}
		es, err := st.List(ctx, prel)
		if err != nil {
			return nil, err
		}
		listed = map[string]store.Entry{}
		for _, e := range es {
			listed[e.Name] = e
		}
		return listed, nil
	}
	if errors.Is(err, os.ErrNotExist) {
		// Nothing committed yet (a first dump interrupted before its
		// first file): fine, unless data files sit there unlisted.
		objs, err := list()
		if err != nil {
			return files, problems, b, err
		}
		n := 0
		for name := range objs {
			if strings.HasSuffix(name, ".parquet") {
				n++
			}
		}
		if n > 0 {
			problems = append(problems, Problem{KindManifest, pdir, fmt.Sprintf("%d data files but no manifest", n),
				"remove " + whole + " and dump it again"})
		}
		return files, problems, b, nil
	}
	tp := TopicPartition{Topic: topic, Partition: -1}
	if p, err := strconv.ParseInt(strings.TrimPrefix(e.Name, "partition="), 10, 32); err == nil {
		tp.Partition = int32(p)
	}
	if err != nil {
		me := &ManifestError{TP: tp, Path: mpath, Err: err}
		problems = append(problems, Problem{KindManifest, mpath, strings.Replace(me.Error(), mpath+": ", "", 1),
			"remove " + whole + " and dump it again"})
		return files, problems, b, nil
	}
	m, err := parseManifest(mpath, b)
	if err == nil && tp.Partition >= 0 {
		// The manifest must be its folder's, as ReadTopic holds it.
		if ferr := m.checkFolder(tp); ferr != nil {
			err = &ManifestError{Path: mpath, Err: ErrBadManifest, Detail: ferr.Error()}
		}
	}
	if err != nil {
		me := err.(*ManifestError)
		me.TP = tp
		problems = append(problems, Problem{KindManifest, mpath, strings.Replace(me.Error(), mpath+": ", "", 1),
			"restore the manifest from a backup, or remove " + whole + " and dump it again"})
		return files, problems, b, nil
	}
	rowsOf := tp // the folder's partition, which restore produces to
	if rowsOf.Partition < 0 {
		rowsOf = m.TP()
	}
	for _, fe := range m.AllFiles() {
		for _, id := range slices.Concat(fe.SchemaIDs, fe.KeySchemaIDs) {
			sm := schemaTopics[int(id)]
			if sm == nil {
				sm = &schemaMet{topic: topic}
				schemaTopics[int(id)] = sm
			}
			if len(sm.files) < maxSchemaFiles {
				sm.files = append(sm.files, prel+"/"+fe.Name)
				sm.sizes = append(sm.sizes, fe.Bytes)
			}
		}
		files++
		frel := prel + "/" + fe.Name
		path := st.Where(frel)
		fix := fmt.Sprintf("restore the file from a backup, or re-dump offsets %d-%d while Kafka still has them", fe.FirstOffset, fe.LastOffset)
		size, err := st.CheckData(ctx, frel)
		switch {
		case errors.Is(err, os.ErrNotExist):
			problems = append(problems, Problem{KindDataFile, path, "missing", fix})
			continue
		case store.IsDamaged(err):
			problems = append(problems, Problem{KindDataFile, path, err.Error(), fix})
			continue
		case err != nil:
			return files, problems, b, err
		}
		if size < 0 { // not known without a request: the listing says
			objs, err := list()
			if err != nil {
				return files, problems, b, err
			}
			o, ok := objs[fe.Name]
			if !ok || o.Dir {
				problems = append(problems, Problem{KindDataFile, path, "missing", fix})
				continue
			}
			size = o.Size
		}
		if size != fe.Bytes {
			problems = append(problems, Problem{KindDataFile, path, fmt.Sprintf("size %d bytes, manifest says %d (truncated or rewritten)", size, fe.Bytes), fix})
			continue
		}
		key := fmt.Sprintf("%s %d %d-%d %d", fe.Name, fe.Bytes, fe.FirstOffset, fe.LastOffset, fe.Records)
		p, seen := checked[key]
		if !seen {
			p = d.verifyFile(ctx, path, frel, rowsOf, fe)
			checked[key] = p
		}
		if p != "" {
			problems = append(problems, Problem{KindDataFile, path, p, fix})
		}
		if err := ctx.Err(); err != nil {
			return files, problems, b, err
		}
	}
	return files, problems, b, nil
}

// verifyFile reads data file frel's footer and its rows against fe; "" if
// it holds them as fe says, else what is wrong.
func (d *Dir) verifyFile(ctx context.Context, path, frel string, tp TopicPartition, fe FileEntry) string {
	f, err := d.store().Open(ctx, frel)
	if err != nil {
		return "missing: " + err.Error()
	}
	defer f.Close()
	verifyOpened(frel)
	if err := checkParquet(f, fe.Bytes, fe); err != nil {
		return err.Error()
	}
	// Every page of every column: a page whose bytes changed (its CRC-32)
	// or that does not decode fails every query that reads it.
	if err := checkPages(ctx, f, fe.Bytes); err != nil && ctx.Err() == nil {
		return err.Error()
	}
	// Each row against the manifest, as restore checks it.
	var re *RowError
	switch err := checkRowsAt(ctx, path, f, fe.Bytes, tp, fe); {
	case errors.As(err, &re):
		return re.What()
	case err != nil && ctx.Err() == nil:
		return err.Error()
	}
	return ""
}

// schemaMet is where the data files list a schema id: the first topic, and
// the first files (relative paths and sizes).
type schemaMet struct {
	topic string
	files []string
	sizes []int64
}

// maxSchemaFiles bounds the files of a schema id the folder lacks that
// verify reads for why its values were not decoded.
const maxSchemaFiles = 8

// unknownToRegistry is the reason a value is given when the registry
// answered that it has no schema of its id (schemas.Resolver: HTTP 404).
const unknownToRegistry = "is unknown to the registry"

// verifySchemas names the schema ids the data files list that the folder
// lacks (or holds damaged), and the references of those it holds. An id
// the registry said it did not know (HTTP 404, the reason of one of its
// values, even if earlier values found the registry down) is no damage and
// no schema a dump could fetch: it is a note, not a problem (it was reported as missing, exit 9, with the
// advice to dump again with the registry reachable, which cannot help).
func (d *Dir) verifySchemas(ctx context.Context, met map[int]*schemaMet) ([]Problem, []string) {
	var problems []Problem
	var notes []string
	seen := map[int]bool{}
	var check func(id int, by string, sm *schemaMet)
	check = func(id int, by string, sm *schemaMet) {
		if seen[id] {
			return
		}
		seen[id] = true
		s, err := d.ReadSchema(ctx, id)
		if errors.Is(err, os.ErrNotExist) {
			var why []string
			if sm != nil {
				why = d.undecodedReasons(ctx, id, sm)
			}
			if i := slices.IndexFunc(why, func(w string) bool { return strings.Contains(w, unknownToRegistry) }); i >= 0 {
				notes = append(notes, fmt.Sprintf("schema id %d (%s) was unknown to the schema registry when its values were dumped (%q): they are kept undecoded, value_error says why; the folder lacks nothing a dump could fetch (if the registry has it now, give --schema DIR with it as %d.avsc, .proto or .json to dump new values)", id, by, why[i], id))
				return
			}
			detail := fmt.Sprintf("schema id %d (%s) is not in the folder: its values were not decoded", id, by)
			if len(why) > 0 {
				detail += fmt.Sprintf(" (%q)", why[0])
			}
			problems = append(problems, Problem{KindSchema, d.SchemaPath(id), detail,
				"dump again with the schema registry reachable (it fetches the schemas the folder lacks), or give --schema DIR with the schema as " + strconv.Itoa(id) + ".avsc, .proto or .json"})
			return
		}
		if err != nil {
			problems = append(problems, Problem{KindSchema, d.SchemaPath(id), err.Error(), "remove the file and dump again with the schema registry reachable"})
			return
		}
		for _, r := range s.References {
			check(r.ID, fmt.Sprintf("referenced by schema %d as %s", id, r.Name), nil)
		}
	}
	for _, id := range slices.Sorted(maps.Keys(met)) {
		check(id, "met in topic "+met[id].topic, met[id])
	}
	return problems, notes
}

// undecodedReasons reads the decode errors of the values (and keys) of
// schema id in the first files that list it: each distinct reason, at
// most 4; nil when none was read (a file that does not read is the data
// file check's problem) or a value of id was decoded.
func (d *Dir) undecodedReasons(ctx context.Context, id int, sm *schemaMet) []string {
	want := make([]bool, len(rowLeafPaths))
	for i, p := range rowLeafPaths {
		switch p[0] {
		case "schema_id", "value_decoded", "value_decode_error", "key_schema_id", "key_decoded", "key_decode_error":
			want[i] = true
		}
	}
	var why []string
	decoded := false
	add := func(r *string) {
		if r != nil && len(why) < 4 && !slices.Contains(why, *r) {
			why = append(why, *r)
		}
	}
	for i, frel := range sm.files {
		f, err := d.store().Open(ctx, frel)
		if err != nil {
			return nil
		}
		err = scanReader(ctx, frel, f, sm.sizes[i], 8192, want, true, nil, func(rows []Row) error {
			for j := range rows {
				r := &rows[j]
				if r.SchemaID != nil && int(*r.SchemaID) == id {
					decoded = decoded || r.ValueDecoded != nil
					add(r.ValueDecodeError)
				}
				if r.KeySchemaID != nil && int(*r.KeySchemaID) == id {
					decoded = decoded || r.KeyDecoded != nil
					add(r.KeyDecodeError)
				}
			}
			return nil
		})
		f.Close()
		if err != nil || decoded {
			return nil
		}
	}
	return why
}
