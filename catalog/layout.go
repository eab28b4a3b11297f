package catalog

import (
	"context"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// The folder's layout is spelled here and nowhere else: Hive-style
// topic=NAME/partition=N/FIRST-LAST.parquet beside a manifest.json, and
// each topic's cuts in snapshots/topic=NAME/ID.json (a folder written
// before cuts were kept by topic holds them as snapshots/ID.json, still
// read). Other packages ask for paths; they never build them.

// RelPartitionDir is a partition's folder relative to the snapshot folder,
// with forward slashes (as Hive, Spark and a bucket's keys spell it).
func RelPartitionDir(tp TopicPartition) string {
	return "topic=" + tp.Topic + "/partition=" + strconv.Itoa(int(tp.Partition))
}

// RelFilePath is a data file's path relative to the snapshot folder.
func RelFilePath(tp TopicPartition, name string) string {
	return path.Join(RelPartitionDir(tp), name)
}

// snapshotTopicDir is the folder of topic's cuts, relative to the
// snapshot folder.
func snapshotTopicDir(topic string) string { return snapshotsDir + "/topic=" + topic }

// snapshotRel is where the cut id of topic is written.
func snapshotRel(topic, id string) string { return snapshotTopicDir(topic) + "/" + id + ".json" }

// StateFiles lists the files whose content is the catalog's state: every
// partition manifest and every cluster snapshot. Their sizes and times
// change whenever a dump commits, so a reader can tell it must reload.
func (d *Dir) StateFiles(ctx context.Context) ([]string, error) {
	topics, err := d.Topics(ctx)
	if err != nil {
		return nil, err
	}
	return d.stateFiles(topics, true), nil
}

// StateFilesOf is StateFiles limited to the manifests and cuts of topics
// (and the cuts of a folder written before cuts were kept by topic, whose
// topic only their content says): the version of what an engine limited
// to those topics reads, without a stat of every other partition's
// manifest or cut. A name that is not a valid topic name (a user's typo,
// a glob) is no topic's.
func (d *Dir) StateFilesOf(topics []string) []string {
	var valid []string
	for _, t := range topics {
		if ValidTopicName(t) {
			valid = append(valid, t)
		}
	}
	return d.stateFiles(valid, false)
}

func (d *Dir) stateFiles(topics []string, allCuts bool) []string {
	var out []string
	for _, t := range topics {
		parts, _ := filepath.Glob(filepath.Join(d.Path, "topic="+t, "partition=*", manifestName))
		out = append(out, parts...)
	}
	snaps, _ := filepath.Glob(filepath.Join(d.Path, snapshotsDir, "*.json"))
	if allCuts {
		byTopic, _ := filepath.Glob(filepath.Join(d.Path, snapshotsDir, "topic=*", "*.json"))
		snaps = append(snaps, byTopic...)
	} else {
		for _, t := range topics {
			byTopic, _ := filepath.Glob(filepath.Join(d.Path, filepath.FromSlash(snapshotTopicDir(t)), "*.json"))
			snaps = append(snaps, byTopic...)
		}
	}
	for _, s := range snaps {
		if !strings.HasPrefix(filepath.Base(s), tmpPrefix) {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}
