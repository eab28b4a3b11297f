package catalog

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/topicsnap/topicsnap/catalog/store"
)

// Problem is one thing wrong with a snapshot folder, named by path, with
// what to do about it.
type Problem struct {
	Path   string `json:"path"`
	Detail string `json:"detail"`
	Fix    string `json:"fix"`
}

func (p Problem) String() string { return fmt.Sprintf("%s: %s (%s)", p.Path, p.Detail, p.Fix) }

// Verify re-reads every committed file's footer and row count
// against its manifest, and reports manifests that do not parse, files
// that are missing, truncated or corrupt, and unlisted leftovers. It also
// reads each file's partition and offset columns and holds them to the
// manifest as restore does (CheckRows): every row of the manifest's
// partition, offsets strictly increasing inside the file's stated range,
// as many rows as it states (a bucket's objects by ranged GETs). It reads
// every topic even when one is broken, and stops when ctx ends. Unlisted
// leftovers of an interrupted dump are not problems: no reader reads
// them, and the next dump removes them.
func (d *Dir) Verify(ctx context.Context) (files int, problems []Problem, err error) {
	st := d.store()
	whole := st.Traits().Partition
	topics, err := d.Topics(ctx)
	if err != nil {
		return 0, nil, err
	}
	// damaged is an error that is the object's own, named as a problem;
	// any other (a bucket that cannot be reached) stops the run.
	schemaTopics := map[int]string{} // schema id -> the first topic whose files list it
	for _, topic := range topics {
		trel := "topic=" + topic
		entries, err := st.List(ctx, trel)
		if err != nil {
			if !store.IsDamaged(err) {
				return files, problems, err
			}
			problems = append(problems, Problem{st.Where(trel), err.Error(), "check the folder's permissions"})
			continue
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name, "partition=") {
				continue
			}
			prel := trel + "/" + e.Name
			pdir := st.Where(prel)
			if !e.Dir {
				problems = append(problems, Problem{pdir, notAFolder(e.Mode),
					"replace it with the partition's folder itself, or remove it"})
				continue
			}
			mrel := prel + "/" + manifestName
			mpath := st.Where(mrel)
			// Read as a regular file in its folder, non-blocking: a FIFO is
			// a problem named, not a hang.
			b, _, err := st.Get(ctx, mrel, MaxManifestBytes)
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
					return files, problems, err
				}
				n := 0
				for name := range objs {
					if strings.HasSuffix(name, ".parquet") {
						n++
					}
				}
				if n > 0 {
					problems = append(problems, Problem{pdir, fmt.Sprintf("%d data files but no manifest", n),
						"remove " + whole + " and dump it again"})
				}
				continue
			}
			tp := TopicPartition{Topic: topic, Partition: -1}
			if p, err := strconv.ParseInt(strings.TrimPrefix(e.Name, "partition="), 10, 32); err == nil {
				tp.Partition = int32(p)
			}
			if err != nil {
				me := &ManifestError{TP: tp, Path: mpath, Err: err}
				problems = append(problems, Problem{mpath, strings.Replace(me.Error(), mpath+": ", "", 1),
					"remove " + whole + " and dump it again"})
				continue
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
				problems = append(problems, Problem{mpath, strings.Replace(me.Error(), mpath+": ", "", 1),
					"restore the manifest from a backup, or remove " + whole + " and dump it again"})
				continue
			}
			rowsOf := tp // the folder's partition, which restore produces to
			if rowsOf.Partition < 0 {
				rowsOf = m.TP()
			}
			for _, fe := range m.AllFiles() {
				for _, id := range slices.Concat(fe.SchemaIDs, fe.KeySchemaIDs) {
					if _, ok := schemaTopics[int(id)]; !ok {
						schemaTopics[int(id)] = topic
					}
				}
				files++
				frel := prel + "/" + fe.Name
				path := st.Where(frel)
				fix := fmt.Sprintf("restore the file from a backup, or re-dump offsets %d-%d while Kafka still has them", fe.FirstOffset, fe.LastOffset)
				size, err := st.CheckData(ctx, frel)
				switch {
				case errors.Is(err, os.ErrNotExist):
					problems = append(problems, Problem{path, "missing", fix})
					continue
				case store.IsDamaged(err):
					problems = append(problems, Problem{path, err.Error(), fix})
					continue
				case err != nil:
					return files, problems, err
				}
				if size < 0 { // not known without a request: the listing says
					objs, err := list()
					if err != nil {
						return files, problems, err
					}
					o, ok := objs[fe.Name]
					if !ok || o.Dir {
						problems = append(problems, Problem{path, "missing", fix})
						continue
					}
					size = o.Size
				}
				if size != fe.Bytes {
					problems = append(problems, Problem{path, fmt.Sprintf("size %d bytes, manifest says %d (truncated or rewritten)", size, fe.Bytes), fix})
					continue
				}
				if p := d.verifyFile(ctx, path, frel, rowsOf, fe); p != "" {
					problems = append(problems, Problem{path, p, fix})
				}
				if err := ctx.Err(); err != nil {
					return files, problems, err
				}
			}
		}
	}
	problems = append(problems, d.verifySchemas(ctx, schemaTopics)...)
	return files, problems, nil
}

// verifyFile reads data file frel's footer and its rows against fe; "" if
// it holds them as fe says, else what is wrong.
func (d *Dir) verifyFile(ctx context.Context, path, frel string, tp TopicPartition, fe FileEntry) string {
	f, err := d.store().Open(ctx, frel)
	if err != nil {
		return "missing: " + err.Error()
	}
	defer f.Close()
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

// verifySchemas names the schema ids the data files list that the folder
// lacks (or holds damaged), and the references of those it holds.
func (d *Dir) verifySchemas(ctx context.Context, met map[int]string) []Problem {
	var problems []Problem
	seen := map[int]bool{}
	var check func(id int, by string)
	check = func(id int, by string) {
		if seen[id] {
			return
		}
		seen[id] = true
		s, err := d.ReadSchema(ctx, id)
		if errors.Is(err, os.ErrNotExist) {
			problems = append(problems, Problem{d.SchemaPath(id), fmt.Sprintf("schema id %d (%s) is not in the folder: its values were not decoded", id, by),
				"dump again with the schema registry reachable (it fetches the schemas the folder lacks), or give --schema DIR with the schema as " + strconv.Itoa(id) + ".avsc, .proto or .json"})
			return
		}
		if err != nil {
			problems = append(problems, Problem{d.SchemaPath(id), err.Error(), "remove the file and dump again with the schema registry reachable"})
			return
		}
		for _, r := range s.References {
			check(r.ID, fmt.Sprintf("referenced by schema %d as %s", id, r.Name))
		}
	}
	for _, id := range slices.Sorted(maps.Keys(met)) {
		check(id, "met in topic "+met[id])
	}
	return problems
}
