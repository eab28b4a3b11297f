package queries

import (
	"encoding/json"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/catalog"
	"github.com/topicsnap/topicsnap/queries/spark"
)

// TestTopicNamedAsACheckCTE: a Kafka topic may be named d, s, t, p, cut,
// parts or ranges, names the checks' statements give their CTEs. Such a
// topic was read as the CTE, not its view: check freshness on a topic named
// d failed with 'Referenced column "timestamp" not found' (also s, cut),
// durability and skew on parts, reset on ranges, o, t, p and cut, and the
// freshness chart on t. Every check on a topic named as any CTE of the
// embedded SQL now gives the answer the same records give under another
// name.
func TestTopicNamedAsACheckCTE(t *testing.T) {
	names := map[string]bool{}
	// ofCheck: the CTE names of each check's own files (CHECK*.sql), the
	// ones Spark, slower by far, is held to.
	ofCheck := map[string]map[string]bool{}
	cte := regexp.MustCompile(`(?i)(?:\bWITH|,)\s*([a-z_][a-z0-9_]*)\s+AS\s*\(`)
	files, err := fs.Glob(sqlFS, "sql/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := sqlFS.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		check := strings.FieldsFunc(strings.TrimPrefix(f, "sql/"), func(r rune) bool { return r == '_' || r == '.' })[0]
		if ofCheck[check] == nil {
			ofCheck[check] = map[string]bool{}
		}
		for _, m := range cte.FindAllStringSubmatch(string(b), -1) {
			names[strings.ToLower(m[1])] = true
			ofCheck[check][strings.ToLower(m[1])] = true
		}
	}
	for _, must := range []string{"d", "s", "cut", "parts", "ranges"} {
		if !names[must] {
			t.Fatalf("no CTE named %s found among %d files: the pattern is wrong", must, len(files))
		}
	}
	for _, alias := range []string{"t", "o", "p", "x", "g", "r"} { // table and select aliases too
		names[alias] = true
	}
	topics := slices.Sorted(func(yield func(string) bool) {
		for n := range names {
			if !yield(n) {
				return
			}
		}
	})
	const control = "control-topic"
	dir := t.TempDir()
	d, err := catalog.Create(dir)
	if err != nil {
		t.Fatal(err)
	}
	asOf := time.Now().UTC().Truncate(time.Millisecond)
	base := asOf.Add(-30 * time.Minute).UnixMilli()
	for _, topic := range append([]string{control}, topics...) {
		for p := range int32(2) {
			var rows []catalog.Row
			for i := range int64(6) {
				ts := base + i*60_000 + int64(p)*600_000
				rows = append(rows, catalog.Row{Partition: p, Offset: i, Timestamp: ts, TimestampType: catalog.TimestampCreate,
					Key: []byte{byte('a' + i%3)}, Value: []byte(`{"id":` + string(rune('0'+i%4)) + `,"et":"2026-01-01T00:00:00Z"}`), ProducerID: -1, LeaderEpoch: 0})
			}
			writePartition(t, d, topic, p, "s1", 6, rows)
		}
		if err := d.WriteClusterSnapshot(t.Context(), &catalog.ClusterSnapshot{ID: "s1", Topic: topic, AsOf: asOf, PartitionCount: 2, ReplicationFactor: 1,
			Configs: map[string]string{"cleanup.policy": "delete", "min.insync.replicas": "1", "unclean.leader.election.enable": "false"},
			Partitions: []catalog.PartitionState{{Partition: 0, HighWatermark: 6, Replicas: []int32{1}, ISR: []int32{1}, Leader: 1},
				{Partition: 1, HighWatermark: 6, Replicas: []int32{1}, ISR: []int32{1}, Leader: 1}},
			Groups: []catalog.GroupState{{Group: "g", State: "Stable", Offsets: []catalog.GroupOffset{{Partition: 0, Offset: 5}, {Partition: 1, Offset: 6}},
				Members: []catalog.GroupMember{{MemberID: "m1", ClientID: "c1", Assigned: []int32{0, 1}}}}},
			Dumped: []int32{0, 1}}); err != nil {
			t.Fatal(err)
		}
	}
	engines := []struct {
		name string
		opts Options
	}{{"duckdb", Options{}}}
	if remote := os.Getenv("TOPICSNAP_TEST_SPARK_REMOTE"); remote != "" {
		// Spark's temporary views were read as the CTE too, as DuckDB's
		// were (its statements now name them system.session."T").
		s, err := spark.Connect(t.Context(), remote)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		engines = append(engines, struct {
			name string
			opts Options
		}{"spark", Options{Remote: s}})
	}
	opts := map[string]CheckOptions{
		"duplicates": {ID: "value.id", By: `"partition"`},
		"skew":       {WhatIfKey: "value.id"},
		"missing":    {Match: "value.id", AgainstTopic: control, AgainstMatch: "value.id", Reverse: true},
		"reset":      {Group: "g", ToTime: asOf.Add(-25 * time.Minute)},
		"members":    {Group: "g"},
		"lag":        {Group: "g"},
		"freshness":  {EventTime: "CAST(value.et AS TIMESTAMPTZ)", Charts: true},
		"order":      {Time: "CAST(value.et AS TIMESTAMPTZ)"},
	}
	for _, en := range engines {
		e, err := Open(t.Context(), dir, en.opts)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		answer := func(topic, check string) (string, error) {
			o := opts[check]
			if en.name == "spark" && o.EventTime+o.Time != "" {
				// DuckDB renders TIMESTAMPTZ as TIMESTAMP WITH TIME ZONE,
				// which Spark does not read; its TIMESTAMP is an instant.
				o.EventTime = strings.ReplaceAll(o.EventTime, "TIMESTAMPTZ", "TIMESTAMP")
				o.Time = strings.ReplaceAll(o.Time, "TIMESTAMPTZ", "TIMESTAMP")
			}
			o.Topic = topic
			r, err := e.RunCheck(t.Context(), check, o)
			if err != nil {
				return "", err
			}
			b, err := json.Marshal(r)
			return string(b), err
		}
		for _, c := range Checks() {
			if c.NotOn[en.name] != "" {
				continue // refused there, and said (TestSparkAgreesWithDuckDB)
			}
			t.Run(en.name+"/"+c.Name, func(t *testing.T) {
				want, err := answer(control, c.Name)
				if err != nil {
					t.Fatalf("%s on %s: %v", c.Name, control, err)
				}
				for _, topic := range topics {
					if tp, ok := e.Topic(topic); ok && tp.Apart != "" {
						continue // a catalog table's name: refused by design, and said
					}
					if en.name != "duckdb" && !ofCheck[c.Name][topic] {
						continue
					}
					got, err := answer(topic, c.Name)
					if err != nil {
						t.Errorf("%s on a topic named %s: %v", c.Name, topic, err)
						continue
					}
					// The topic's name, quoted, is the only difference allowed.
					got = strings.ReplaceAll(got, `"topic":"`+topic+`"`, `"topic":"`+control+`"`)
					got = strings.ReplaceAll(got, `\"`+topic+`\"`, `\"`+control+`\"`)
					got = strings.ReplaceAll(got, `--topic `+topic+`:`, `--topic `+control+`:`)
					if got != want {
						t.Errorf("%s on a topic named %s:\n got %.600s\nwant %.600s", c.Name, topic, got, want)
					}
				}
			})
		}
	}
}
