package segments

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/topicsnap/topicsnap/catalog"
)

// LogStartCheckpoint is the file in a broker's log directory where it
// records each partition's log start offset: raised by DeleteRecords or by
// retention, it may lie inside a segment still on disk, whose records
// below it the broker no longer serves.
const LogStartCheckpoint = "log-start-offset-checkpoint"

// MaxCheckpointBytes bounds a checkpoint file read whole (about 100,000
// partitions of long topic names); a larger one is not read, with a
// warning.
const MaxCheckpointBytes = 16 << 20

// logStart is a partition's log start as a checkpoint file recorded it.
type logStart struct {
	offset int64
	file   string
}

// reason is a lost range's reason for the offsets below it.
func (l logStart) reason() string {
	return fmt.Sprintf("deleted: below the log start offset %d the broker recorded in %s (by DeleteRecords or retention); records still on disk below it are not imported", l.offset, l.file)
}

// ParseCheckpoint reads a broker's offset checkpoint file (Kafka's
// CheckpointFile: a version line 0, a count line, then that many lines
// "TOPIC PARTITION OFFSET"), as log-start-offset-checkpoint,
// recovery-point-offset-checkpoint and replication-offset-checkpoint are
// written. Anything else is an error naming the line: the file is read
// whole or not at all.
func ParseCheckpoint(b []byte) (map[catalog.TopicPartition]int64, error) {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) < 2 {
		return nil, errors.New("not a checkpoint file: fewer than its version and count lines")
	}
	if v := strings.TrimSpace(lines[0]); v != "0" {
		return nil, fmt.Errorf("line 1: version %.20q, want 0 (the only version Kafka writes)", v)
	}
	n, err := strconv.Atoi(strings.TrimSpace(lines[1]))
	if err != nil || n < 0 {
		return nil, fmt.Errorf("line 2: %.20q is not a count of entries", lines[1])
	}
	if n != len(lines)-2 {
		return nil, fmt.Errorf("line 2 counts %d entries, the file holds %d lines after it (a checkpoint written half?)", n, len(lines)-2)
	}
	out := make(map[catalog.TopicPartition]int64, n)
	for i, l := range lines[2:] {
		f := strings.Split(strings.TrimSuffix(l, "\r"), " ")
		if len(f) != 3 {
			return nil, fmt.Errorf("line %d: %d fields, want TOPIC PARTITION OFFSET", i+3, len(f))
		}
		p, perr := strconv.ParseInt(f[1], 10, 32)
		o, oerr := strconv.ParseInt(f[2], 10, 64)
		switch {
		case !catalog.ValidTopicName(f[0]):
			return nil, fmt.Errorf("line %d: %.60q is no topic name", i+3, f[0])
		case perr != nil || p < 0:
			return nil, fmt.Errorf("line %d: partition %.20q", i+3, f[1])
		case oerr != nil || o < 0:
			return nil, fmt.Errorf("line %d: offset %.30q", i+3, f[2])
		}
		tp := catalog.TopicPartition{Topic: f[0], Partition: int32(p)}
		if _, dup := out[tp]; dup {
			return nil, fmt.Errorf("line %d: %s twice", i+3, tp)
		}
		out[tp] = o
	}
	return out, nil
}

// readLogStarts finds the log start checkpoint of the log directory each
// partition's segments lie in (the folder above its TOPIC-N folder, on
// the disk or in the bucket the segments are in), and returns the log
// start it records for each partition. A log directory without one, or
// with one that does not read, is a warning: the log start is then the
// first offset present.
func readLogStarts(parts map[catalog.TopicPartition][]segFile, warn func(string)) map[catalog.TopicPartition]logStart {
	files := map[string]map[catalog.TopicPartition]int64{} // log dir -> its checkpoint, nil when none
	out := map[catalog.TopicPartition]logStart{}
	for tp, segs := range parts {
		for _, seg := range segs {
			logDir := seg.fs.dir(seg.fs.dir(seg.path))
			file := seg.fs.join(logDir, LogStartCheckpoint)
			read := func(p string) ([]byte, error) { return seg.fs.readFile(p, MaxCheckpointBytes) }
			cp, ok := files[logDir]
			if !ok {
				b, err := read(file)
				switch {
				case errors.Is(err, os.ErrNotExist) && !isLogDir(seg.fs, logDir):
					// A partition folder copied alone: nothing to say.
				case errors.Is(err, os.ErrNotExist):
					warn(fmt.Sprintf("%s has no %s: the log start of its partitions is their first offset present (records a DeleteRecords left on disk below the broker's log start would be imported as rows)", logDir, LogStartCheckpoint))
				case err != nil:
					warn(fmt.Sprintf("%s: %v; not read: the log start of the partitions beside it is their first offset present", file, err))
				default:
					if cp, err = ParseCheckpoint(bytes.Clone(b)); err != nil {
						warn(fmt.Sprintf("%s: %v; not read: the log start of the partitions beside it is their first offset present", file, err))
					}
				}
				files[logDir] = cp
			}
			if o, ok := cp[tp]; ok && o > out[tp].offset {
				out[tp] = logStart{offset: o, file: file}
			}
		}
	}
	return out
}

// isLogDir says whether dir is a broker's log directory (its
// meta.properties is there), not a folder a partition was copied into.
func isLogDir(fsys fileSystem, dir string) bool {
	_, err := fsys.readFile(fsys.join(dir, "meta.properties"), 64<<10)
	return err == nil
}
