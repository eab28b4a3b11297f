package segments

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/internal/exit"
)

// ErrBadInput marks a PATH or file an import cannot read as Kafka's: not
// there, not a segment, not a partition folder, not a kcat line.
var ErrBadInput = exit.New(exit.BadInput, "not Kafka's log",
	"give a broker's log directory, a partition folder TOPIC-N or its NNNNNNNNNNNNNNNNNNNN.log files (on the disk or s3://BUCKET/PREFIX), or with --kcat a file of kcat -C -J -t TOPIC -e output (or of -f FORMAT, with --kcat-format)")

// segFile is one .log segment file of a partition.
type segFile struct {
	fs   fileSystem
	path string
	base int64 // from its name: the first offset it may hold
	size int64
}

// partitionFolder reads a folder name TOPIC-N into its partition; false
// when it is not one.
func partitionFolder(name string) (catalog.TopicPartition, bool) {
	i := strings.LastIndexByte(name, '-')
	if i <= 0 {
		return catalog.TopicPartition{}, false
	}
	n, err := strconv.ParseInt(name[i+1:], 10, 32)
	if err != nil || n < 0 || name[i+1] == '+' || !catalog.ValidTopicName(name[:i]) {
		return catalog.TopicPartition{}, false
	}
	return catalog.TopicPartition{Topic: name[:i], Partition: int32(n)}, true
}

// segmentBase reads a segment file name (20 digits, .log) into its base
// offset.
func segmentBase(name string) (int64, bool) {
	stem, ok := strings.CutSuffix(name, ".log")
	if !ok || len(stem) != 20 {
		return 0, false
	}
	n, err := strconv.ParseInt(stem, 10, 64)
	return n, err == nil && n >= 0
}

// resolve turns the PATHs given (a broker's log directory, partition
// folders, single .log files, on the disk or s3://) into each partition's
// segment files, in offset order; with topics, only theirs (the others are
// left out without a word). What it leaves out otherwise and why goes to
// warn.
func resolve(ctx context.Context, paths, topics []string, openBucket OpenBucket, warn func(string)) (map[catalog.TopicPartition][]segFile, error) {
	out := map[catalog.TopicPartition][]segFile{}
	seen := map[string]bool{}
	wanted := func(tp catalog.TopicPartition) bool { return len(topics) == 0 || slices.Contains(topics, tp.Topic) }
	addFile := func(fsys fileSystem, tp catalog.TopicPartition, path string, base int64) error {
		if !wanted(tp) {
			return nil
		}
		fi, err := fsys.stat(path)
		if err != nil {
			return exit.Errorf(ErrBadInput, "%v", err)
		}
		if !fi.regular {
			return exit.Errorf(ErrBadInput, "%s is not a regular file", path)
		}
		if seen[path] {
			return nil
		}
		seen[path] = true
		out[tp] = append(out[tp], segFile{fs: fsys, path: path, base: base, size: fi.size})
		return nil
	}
	addFolder := func(fsys fileSystem, tp catalog.TopicPartition, dir string, explicit bool) error {
		if !wanted(tp) {
			return nil
		}
		ents, err := fsys.readDir(dir)
		if err != nil {
			return exit.Errorf(ErrBadInput, "%v", err)
		}
		logs := map[string]bool{}
		for _, e := range ents {
			base, ok := segmentBase(e.name)
			switch {
			case ok && e.regular:
				logs[strings.TrimSuffix(e.name, ".log")] = true
				if err := addFile(fsys, tp, fsys.join(dir, e.name), base); err != nil {
					return err
				}
			case !ok && strings.HasSuffix(e.name, ".log") && !e.dir:
				// A .log whose name is not a base offset (renamed, copied
				// as "segment.log", 19 or 21 digits): its offsets are
				// unknown, so it is not read, never without a word.
				warn(fmt.Sprintf("%s: not a segment's name (20 digits and .log, its base offset): not imported, so partition %s lacks the offsets it may hold; give it its base offset's name", fsys.join(dir, e.name), tp))
			case ok:
				// Left out, never without a word: its offsets would read
				// as compacted holes, or not be there at all.
				what := e.other
				if e.dir {
					what = "a folder"
				}
				warn(fmt.Sprintf("%s is %s, not a regular file: not imported, so partition %s lacks the offsets it may hold; give the file it stands for as a PATH", fsys.join(dir, e.name), what, tp))
			}
		}
		for _, e := range ents {
			name := e.name
			for _, ext := range []string{".index", ".timeindex", ".txnindex"} {
				if stem, ok := strings.CutSuffix(name, ext); ok && !logs[stem] {
					warn(fmt.Sprintf("%s: an index without its log (%s.log); nothing to import from it", fsys.join(dir, name), stem))
				}
			}
			if strings.HasSuffix(name, ".deleted") || strings.HasSuffix(name, ".cleaned") || strings.HasSuffix(name, ".swap") {
				warn(fmt.Sprintf("%s: a file the broker was deleting or cleaning; not imported (the segment it stands for is)", fsys.join(dir, name)))
			}
		}
		if len(logs) == 0 && explicit {
			return exit.Errorf(ErrBadInput, "%s holds no segment file (NNNNNNNNNNNNNNNNNNNN.log)", dir)
		}
		if len(logs) == 0 {
			warn(fmt.Sprintf("%s: no segment file; partition %s not imported", dir, tp))
		}
		return nil
	}
	for _, p := range paths {
		var fsys fileSystem = osFS{}
		if strings.HasPrefix(p, "s3://") {
			bfs, bp, err := newBucketFS(ctx, p, openBucket)
			if err != nil {
				return nil, err
			}
			fsys, p = bfs, bp
		}
		p = fsys.clean(p)
		fi, err := fsys.stat(p)
		if err != nil {
			return nil, exit.Errorf(ErrBadInput, "%v", err)
		}
		name := fsys.base(p)
		switch {
		case fi.regular:
			base, ok := segmentBase(name)
			if !ok {
				return nil, exit.Errorf(ErrBadInput, "%s is not a segment file (its name is 20 digits and .log, such as 00000000000000000000.log; an index is read with its log)", p)
			}
			tp, ok := partitionFolder(fsys.base(fsys.dir(p)))
			if !ok {
				return nil, exit.Errorf(ErrBadInput, "%s is not in a partition folder (TOPIC-N), so its topic and partition are unknown", p)
			}
			if err := addFile(fsys, tp, p, base); err != nil {
				return nil, err
			}
		case !fi.dir:
			return nil, exit.Errorf(ErrBadInput, "%s is neither a folder nor a regular file", p)
		default:
			if tp, ok := partitionFolder(name); ok {
				if err := addFolder(fsys, tp, p, true); err != nil {
					return nil, err
				}
				continue
			}
			// A broker's log directory: its partition folders.
			ents, err := fsys.readDir(p)
			if err != nil {
				return nil, exit.Errorf(ErrBadInput, "%v", err)
			}
			n := 0
			for _, e := range ents {
				if !e.dir {
					if tp, ok := partitionFolder(e.name); ok && e.other != "" && wanted(tp) {
						// A partition folder moved to another disk and linked
						// back, or a FIFO in its place: left out, with a word
						// (a link is not followed out of the log directory).
						warn(fmt.Sprintf("%s is %s, not a folder: partition %s not imported; give the folder it stands for as a PATH", fsys.join(p, e.name), e.other, tp))
					}
					continue
				}
				tp, ok := partitionFolder(e.name)
				switch {
				case ok && !wanted(tp):
					n++
					continue
				case !ok && (strings.HasSuffix(e.name, "-delete") || strings.HasSuffix(e.name, "-future") || strings.HasSuffix(e.name, "-stray")):
					warn(fmt.Sprintf("%s: a partition folder the broker was deleting or moving; not imported", fsys.join(p, e.name)))
					continue
				case !ok:
					continue
				case tp.Topic == "__cluster_metadata":
					warn(fmt.Sprintf("%s: KRaft's metadata log, not a topic; not imported", fsys.join(p, e.name)))
					continue
				}
				n++
				if err := addFolder(fsys, tp, fsys.join(p, e.name), false); err != nil {
					return nil, err
				}
			}
			if n == 0 {
				return nil, exit.Errorf(ErrBadInput, "%s is neither a partition folder (TOPIC-N) nor a log directory holding some", p)
			}
		}
	}
	for tp, fs := range out {
		slices.SortFunc(fs, func(a, b segFile) int {
			if c := cmpInt(a.base, b.base); c != 0 {
				return c
			}
			return strings.Compare(a.path, b.path)
		})
		out[tp] = fs
		warnSkipped(fs, warn)
		warnReplicas(tp, fs, warn)
	}
	return out, nil
}

// warnReplicas warns of a partition whose segments lie in more than one
// folder (the log directories of two brokers holding replicas of it):
// they are read in offset order, and an offset two of them hold is taken
// from the first read; what the other holds there is not compared.
func warnReplicas(tp catalog.TopicPartition, fs []segFile, warn func(string)) {
	var dirs []string
	for _, f := range fs {
		if d := f.fs.dir(f.path); !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	if len(dirs) > 1 {
		warn(fmt.Sprintf("partition %s is in %d folders (%s): their segments are read in offset order, and an offset two of them hold is taken from the first read, what the other holds there not compared (import one replica's folder to read it alone)",
			tp, len(dirs), strings.Join(dirs, ", ")))
	}
}

// warnSkipped warns of segment files beside those given, between the first
// and the last of them, that were not given: the offsets they hold are
// recorded as holes (compacted), which they are not.
func warnSkipped(fs []segFile, warn func(string)) {
	given := map[string]bool{}
	dirs := map[string]fileSystem{}
	for _, f := range fs {
		given[f.path] = true
		dirs[f.fs.dir(f.path)] = f.fs
	}
	for d, fsys := range dirs {
		ents, err := fsys.readDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			base, ok := segmentBase(e.name)
			p := fsys.join(d, e.name)
			if ok && !given[p] && base > fs[0].base && base < fs[len(fs)-1].base {
				warn(fmt.Sprintf("%s was not given: the offsets it holds will be recorded as compacted holes; give the partition folder instead", p))
			}
		}
	}
}
