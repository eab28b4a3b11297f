package queries

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
)

// catalogTime writes a time of the catalog tables' rows (microseconds,
// which both DuckDB and Spark read as a timestamp).
func catalogTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.999999Z07:00") }

// CatalogTables lists the catalog tables every engine has, in the order
// they are built.
func CatalogTables() []string { return append([]string(nil), metadataTables...) }

// metadataTables are the catalog tables, in the order they are built.
var metadataTables = []string{"files", "rewrites", "lost_ranges", "partition_dumps", "snapshots", "partitions", "topic_configs", "group_offsets", "share_group_offsets", "group_members", "group_history_cuts", "group_history", "group_commits"}

type jsonRows struct {
	table   string
	columns []string // "name TYPE", in order
	rows    any
}

// loadMetadata creates and fills the catalog tables named in only. Each
// table is loaded with one statement from a bound JSON document.
func loadMetadata(ctx context.Context, tx *sql.Tx, tfs []topicFiles, snaps []*catalog.ClusterSnapshot, only map[string]bool) error {
	for _, t := range metadataRows(tfs, snaps) {
		if !only[t.table] {
			continue
		}
		var defs, names, structure []string
		for _, c := range t.columns {
			name, typ, _ := strings.Cut(c, " ")
			defs = append(defs, quoteIdent(name)+" "+typ)
			names = append(names, quoteIdent(name))
			structure = append(structure, fmt.Sprintf("%q:%q", name, typ))
		}
		ddl := fmt.Sprintf("CREATE OR REPLACE TABLE %s (%s)", quoteIdent(t.table), strings.Join(defs, ", "))
		if _, err := tx.ExecContext(ctx, ddl); err != nil {
			return fmt.Errorf("create table %s: %w", t.table, err)
		}
		ins := fmt.Sprintf("INSERT INTO %s SELECT %s FROM (SELECT unnest(from_json(?::JSON, %s), recursive := true))",
			quoteIdent(t.table), strings.Join(names, ", "), quoteString("[{"+strings.Join(structure, ",")+"}]"))
		// In chunks: DuckDB makes the whole document one LIST value before
		// unnesting it, and a cluster snapshot within its caps can list a
		// million group members (one document of them took past 4 GB).
		rows := reflect.ValueOf(t.rows)
		for start := 0; start < rows.Len(); start += metadataChunkRows {
			b, err := json.Marshal(rows.Slice(start, min(start+metadataChunkRows, rows.Len())).Interface())
			if err != nil {
				return fmt.Errorf("encode %s: %w", t.table, err)
			}
			if _, err := tx.ExecContext(ctx, ins, string(b)); err != nil {
				return fmt.Errorf("load table %s: %w", t.table, err)
			}
		}
	}
	return nil
}

// metadataChunkRows is how many rows of a catalog table one statement
// loads.
const metadataChunkRows = 10_000

// metadataRows are the catalog tables' rows, the same for every engine:
// each table's columns (name and DuckDB type) and its rows, as JSON encodes
// them (times in RFC 3339 to the microsecond, as both engines keep them).
func metadataRows(tfs []topicFiles, snaps []*catalog.ClusterSnapshot) []jsonRows {
	type fileRow struct {
		Topic          string `json:"topic"`
		Partition      int32  `json:"partition"`
		File           string `json:"file"`
		Path           string `json:"path"`
		FirstOffset    int64  `json:"first_offset"`
		LastOffset     int64  `json:"last_offset"`
		Records        int64  `json:"records"`
		ControlRecords int64  `json:"control_records"`
		Bytes          int64  `json:"bytes"`
		MinTimestamp   int64  `json:"min_timestamp_ms"`
		MaxTimestamp   int64  `json:"max_timestamp_ms"`
		Snapshot       string `json:"snapshot_id"`
		WrittenAt      string `json:"written_at"`
		History        int    `json:"history"`
		Superseded     bool   `json:"superseded"`
	}
	type rewriteRow struct {
		Topic      string `json:"topic"`
		Partition  int32  `json:"partition"`
		Kind       string `json:"kind"`
		From       int64  `json:"from_offset"`
		To         int64  `json:"to_offset"`
		Offsets    int64  `json:"offsets"`
		Redumped   int64  `json:"redumped_from"`
		OldEpoch   int32  `json:"old_leader_epoch"`
		NewEpoch   int32  `json:"new_leader_epoch"`
		EpochEnd   int64  `json:"epoch_end_offset"`
		History    int    `json:"history"`
		DetectedAt string `json:"detected_at"`
		Snapshot   string `json:"snapshot_id"`
	}
	type lostRow struct {
		Topic      string `json:"topic"`
		Partition  int32  `json:"partition"`
		Kind       string `json:"kind"`
		From       int64  `json:"from_offset"`
		To         int64  `json:"to_offset"`
		Offsets    int64  `json:"offsets"`
		DetectedAt string `json:"detected_at"`
		Snapshot   string `json:"snapshot_id"`
	}
	type dumpRow struct {
		Topic     string `json:"topic"`
		Partition int32  `json:"partition"`
		Snapshot  string `json:"snapshot_id"`
		AsOf      string `json:"as_of"`
		From      int64  `json:"from_offset"`
		Until     int64  `json:"until_offset"`
	}
	type snapRow struct {
		Snapshot          string  `json:"snapshot_id"`
		Topic             string  `json:"topic"`
		AsOf              string  `json:"as_of"`
		PartitionCount    int     `json:"partition_count"`
		ReplicationFactor int     `json:"replication_factor"`
		Dumped            []int32 `json:"dumped_partitions"`
		GroupsError       string  `json:"groups_error"`
		ConfigsError      string  `json:"configs_error"`
		TopicID           *string `json:"topic_id"`
	}
	type partRow struct {
		Snapshot      string  `json:"snapshot_id"`
		Topic         string  `json:"topic"`
		AsOf          string  `json:"as_of"`
		Partition     int32   `json:"partition"`
		LogStart      int64   `json:"log_start_offset"`
		HighWatermark int64   `json:"high_watermark"`
		LastStable    int64   `json:"last_stable_offset"`
		Leader        int32   `json:"leader"`
		LeaderEpoch   int32   `json:"leader_epoch"`
		Replicas      []int32 `json:"replicas"`
		ISR           []int32 `json:"isr"`
	}
	type cfgRow struct {
		Snapshot string `json:"snapshot_id"`
		Topic    string `json:"topic"`
		AsOf     string `json:"as_of"`
		Name     string `json:"name"`
		Value    string `json:"value"`
	}
	type offRow struct {
		Snapshot    string `json:"snapshot_id"`
		Topic       string `json:"topic"`
		AsOf        string `json:"as_of"`
		Group       string `json:"group_id"`
		State       string `json:"state"`
		Partition   int32  `json:"partition"`
		Offset      *int64 `json:"committed_offset"`
		LeaderEpoch int32  `json:"leader_epoch"`
		Metadata    string `json:"metadata"`
	}
	type memRow struct {
		Snapshot   string  `json:"snapshot_id"`
		Topic      string  `json:"topic"`
		AsOf       string  `json:"as_of"`
		Group      string  `json:"group_id"`
		State      string  `json:"state"`
		MemberID   string  `json:"member_id"`
		InstanceID string  `json:"instance_id"`
		ClientID   string  `json:"client_id"`
		Host       string  `json:"host"`
		Assigned   []int32 `json:"assigned_partitions"`
	}
	type shareRow struct {
		Snapshot    string `json:"snapshot_id"`
		Topic       string `json:"topic"`
		AsOf        string `json:"as_of"`
		Group       string `json:"group_id"`
		State       string `json:"state"`
		Partition   int32  `json:"partition"`
		StartOffset *int64 `json:"start_offset"`
		LeaderEpoch int32  `json:"leader_epoch"`
		Lag         *int64 `json:"lag"`
	}
	ts := catalogTime
	files, lost, rewrites, dumps := []fileRow{}, []lostRow{}, []rewriteRow{}, []dumpRow{}
	for _, tf := range tfs {
		for _, m := range tf.manifests {
			for i, f := range m.AllFiles() {
				files = append(files, fileRow{m.Topic, m.Partition, f.Name, catalog.RelFilePath(m.TP(), f.Name),
					f.FirstOffset, f.LastOffset, f.Records, f.ControlRecords, f.Bytes, f.MinTimestamp, f.MaxTimestamp, f.Snapshot, ts(f.WrittenAt),
					f.History, i >= len(m.Files)})
			}
			for _, r := range m.Rewrites {
				rewrites = append(rewrites, rewriteRow{m.Topic, m.Partition, r.Kind, r.First, r.Last, r.Len(), r.Redumped,
					r.OldEpoch, r.NewEpoch, r.EpochEnd, r.History, ts(r.DetectedAt), r.Snapshot})
			}
			for _, l := range m.Lost {
				lost = append(lost, lostRow{m.Topic, m.Partition, l.Kind, l.From, l.To, l.To - l.From + 1, ts(l.DetectedAt), l.Snapshot})
			}
			for _, s := range m.Snapshots {
				dumps = append(dumps, dumpRow{m.Topic, m.Partition, s.ID, ts(s.AsOf), s.From, s.Until})
			}
		}
	}
	sn, parts, cfgs, offs, mems, shares := []snapRow{}, []partRow{}, []cfgRow{}, []offRow{}, []memRow{}, []shareRow{}
	for _, s := range snaps {
		asOf := ts(s.AsOf)
		sn = append(sn, snapRow{s.ID, s.Topic, asOf, s.PartitionCount, s.ReplicationFactor, s.Dumped, s.GroupsError, s.ConfigsError, topicIDText(s.TopicID)})
		for _, p := range s.Partitions {
			parts = append(parts, partRow{s.ID, s.Topic, asOf, p.Partition, p.LogStart, p.HighWatermark, p.LastStable, p.Leader, p.LeaderEpoch, p.Replicas, p.ISR})
		}
		keys := make([]string, 0, len(s.Configs))
		for k := range s.Configs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			cfgs = append(cfgs, cfgRow{s.ID, s.Topic, asOf, k, s.Configs[k]})
		}
		cfgs = append(cfgs, cfgRow{s.ID, s.Topic, asOf, "partition.count", fmt.Sprint(s.PartitionCount)},
			cfgRow{s.ID, s.Topic, asOf, "replication.factor", fmt.Sprint(s.ReplicationFactor)})
		for _, g := range s.Groups {
			for _, o := range g.Offsets {
				// No committed offset (Kafka's -1) is NULL, never a position.
				var committed *int64
				if !o.NoOffset() {
					committed = &o.Offset
				}
				offs = append(offs, offRow{s.ID, s.Topic, asOf, g.Group, g.State, o.Partition, committed, o.LeaderEpoch, o.Metadata})
			}
			for _, o := range g.Share {
				// Kafka's -1 (no start offset yet, a lag it did not
				// say) is NULL, never a number.
				shares = append(shares, shareRow{s.ID, s.Topic, asOf, g.Group, g.State, o.Partition, known(o.StartOffset), o.LeaderEpoch, known(o.Lag)})
			}
			for _, m := range g.Members {
				mems = append(mems, memRow{s.ID, s.Topic, asOf, g.Group, g.State, m.MemberID, m.InstanceID, m.ClientID, m.Host, m.Assigned})
			}
		}
	}
	hist, commits := groupHistory(snaps)
	return []jsonRows{
		{"files", []string{"topic VARCHAR", "partition INTEGER", "file VARCHAR", "path VARCHAR", "first_offset BIGINT", "last_offset BIGINT", "records BIGINT", "control_records BIGINT", "bytes BIGINT", "min_timestamp_ms BIGINT", "max_timestamp_ms BIGINT", "snapshot_id VARCHAR", "written_at TIMESTAMPTZ", "history INTEGER", "superseded BOOLEAN"}, files},
		{"rewrites", []string{"topic VARCHAR", "partition INTEGER", "kind VARCHAR", "from_offset BIGINT", "to_offset BIGINT", "offsets BIGINT", "redumped_from BIGINT",
			"old_leader_epoch INTEGER", "new_leader_epoch INTEGER", "epoch_end_offset BIGINT", "history INTEGER", "detected_at TIMESTAMPTZ", "snapshot_id VARCHAR"}, rewrites},
		{"lost_ranges", []string{"topic VARCHAR", "partition INTEGER", "kind VARCHAR", "from_offset BIGINT", "to_offset BIGINT", "offsets BIGINT", "detected_at TIMESTAMPTZ", "snapshot_id VARCHAR"}, lost},
		{"partition_dumps", []string{"topic VARCHAR", "partition INTEGER", "snapshot_id VARCHAR", "as_of TIMESTAMPTZ", "from_offset BIGINT", "until_offset BIGINT"}, dumps},
		{"snapshots", []string{"snapshot_id VARCHAR", "topic VARCHAR", "as_of TIMESTAMPTZ", "partition_count INTEGER", "replication_factor INTEGER", "dumped_partitions INTEGER[]",
			"groups_error VARCHAR", "configs_error VARCHAR", "topic_id VARCHAR"}, sn},
		{"partitions", []string{"snapshot_id VARCHAR", "topic VARCHAR", "as_of TIMESTAMPTZ", "partition INTEGER", "log_start_offset BIGINT", "high_watermark BIGINT", "last_stable_offset BIGINT", "leader INTEGER", "leader_epoch INTEGER", "replicas INTEGER[]", "isr INTEGER[]"}, parts},
		{"topic_configs", []string{"snapshot_id VARCHAR", "topic VARCHAR", "as_of TIMESTAMPTZ", "name VARCHAR", "value VARCHAR"}, cfgs},
		{"group_offsets", []string{"snapshot_id VARCHAR", "topic VARCHAR", "as_of TIMESTAMPTZ", "group_id VARCHAR", "state VARCHAR", "partition INTEGER", "committed_offset BIGINT", "leader_epoch INTEGER", "metadata VARCHAR"}, offs},
		{"share_group_offsets", []string{"snapshot_id VARCHAR", "topic VARCHAR", "as_of TIMESTAMPTZ", "group_id VARCHAR", "state VARCHAR", "partition INTEGER", "start_offset BIGINT", "leader_epoch INTEGER", "lag BIGINT"}, shares},
		{"group_members", []string{"snapshot_id VARCHAR", "topic VARCHAR", "as_of TIMESTAMPTZ", "group_id VARCHAR", "state VARCHAR", "member_id VARCHAR", "instance_id VARCHAR", "client_id VARCHAR", "host VARCHAR", "assigned_partitions INTEGER[]"}, mems},
		{"group_history_cuts", historyColumns, hist},
		{"group_commits", commitColumns, commits},
	}
}

// topicIDText writes a cut's topic id (base64, as the catalog keeps it) as
// the UUID text the decoded __consumer_offsets uses (8-4-4-4-12 hex), so
// the two join; nil when the cut has none or it is not 16 bytes.
func topicIDText(id string) *string {
	if id == "" {
		return nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(id); err == nil && len(b) == 16 {
			h := hex.EncodeToString(b)
			s := h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
			return &s
		}
	}
	return nil
}

// known is o, or nil for Kafka's "not known" (a negative number).
func known(o int64) *int64 {
	if o < 0 {
		return nil
	}
	return &o
}
