package catalog

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/topicsnap/topicsnap/internal/safefile"
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
// that are missing, truncated or corrupt, and unlisted leftovers. In a
// folder it also reads each file's partition and offset columns and holds
// them to the manifest as restore does (CheckRows): every row of the
// manifest's partition, offsets strictly increasing inside the file's
// stated range, as many rows as it states. It reads every topic even when
// one is broken, and stops when ctx ends.
func (d *Dir) Verify(ctx context.Context) (files int, problems []Problem, err error) {
	if d.s3 != nil {
		return d.s3.verify()
	}
	topics, err := d.Topics()
	if err != nil {
		return 0, nil, err
	}
	schemaTopics := map[int]string{} // schema id -> the first topic whose files list it
	for _, topic := range topics {
		tdir := filepath.Join(d.Path, "topic="+topic)
		entries, err := os.ReadDir(tdir)
		if err != nil {
			problems = append(problems, Problem{tdir, err.Error(), "check the folder's permissions"})
			continue
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), "partition=") {
				continue
			}
			if !e.IsDir() {
				problems = append(problems, Problem{filepath.Join(tdir, e.Name()), notAFolder(e.Type()),
					"replace it with the partition's folder itself, or remove it"})
				continue
			}
			pdir := filepath.Join(tdir, e.Name())
			mpath := filepath.Join(pdir, manifestName)
			b, err := safefile.ReadFileIn(pdir, manifestName, MaxManifestBytes) // read as a regular file in its folder, non-blocking: a FIFO is a problem named, not a hang
			if errors.Is(err, os.ErrNotExist) {
				// Nothing committed yet (a first dump interrupted before its
				// first file): fine, unless data files sit there unlisted.
				if stray, _ := filepath.Glob(filepath.Join(pdir, "*.parquet")); len(stray) > 0 {
					problems = append(problems, Problem{pdir, fmt.Sprintf("%d data files but no manifest", len(stray)),
						"remove the partition folder and dump it again"})
				}
				continue
			}
			tp := TopicPartition{Topic: topic, Partition: -1}
			if p, err := strconv.ParseInt(strings.TrimPrefix(e.Name(), "partition="), 10, 32); err == nil {
				tp.Partition = int32(p)
			}
			if err != nil {
				me := &ManifestError{TP: tp, Path: mpath, Err: err}
				problems = append(problems, Problem{mpath, strings.Replace(me.Error(), mpath+": ", "", 1),
					"remove the partition folder and dump it again"})
				continue
			}
			m, err := parseManifest(mpath, b)
			if err != nil {
				me := err.(*ManifestError)
				me.TP = tp
				problems = append(problems, Problem{mpath, strings.Replace(me.Error(), mpath+": ", "", 1),
					"restore the manifest from a backup, or remove the partition folder and dump it again"})
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
				path := filepath.Join(pdir, fe.Name)
				fix := fmt.Sprintf("restore the file from a backup, or re-dump offsets %d-%d while Kafka still has them", fe.FirstOffset, fe.LastOffset)
				if err := regularIn(pdir, fe.Name); err != nil && !errors.Is(err, os.ErrNotExist) { // a missing one is said below
					problems = append(problems, Problem{path, err.Error(), fix})
					continue
				}
				if err := checkDataFile(path, fe); err != nil {
					problems = append(problems, Problem{path, err.Error(), fix})
					continue
				}
				var re *RowError
				switch err := CheckRows(ctx, path, rowsOf, fe); {
				case errors.As(err, &re):
					problems = append(problems, Problem{path, re.What(), fix})
				case ctx.Err() != nil:
					return files, problems, ctx.Err()
				case err != nil:
					problems = append(problems, Problem{path, err.Error(), fix})
				}
			}
		}
	}
	problems = append(problems, d.verifySchemas(schemaTopics)...)
	return files, problems, nil
}

// verifySchemas names the schema ids the data files list that the folder
// lacks (or holds damaged), and the references of those it holds.
func (d *Dir) verifySchemas(met map[int]string) []Problem {
	var problems []Problem
	seen := map[int]bool{}
	var check func(id int, by string)
	check = func(id int, by string) {
		if seen[id] {
			return
		}
		seen[id] = true
		s, err := d.ReadSchema(id)
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
