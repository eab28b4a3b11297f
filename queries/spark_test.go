package queries

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/internal/seeds"
	"github.com/topicsnap/topicsnap/queries/spark"
)

// sparkRemote connects to the Spark Connect server make test starts
// (scripts/spark.sh), or skips when TOPICSNAP_TEST_SPARK_REMOTE is unset.
func sparkRemote(t *testing.T) *spark.Session {
	t.Helper()
	remote := os.Getenv("TOPICSNAP_TEST_SPARK_REMOTE")
	if remote == "" {
		t.Skip("TOPICSNAP_TEST_SPARK_REMOTE not set (make test starts Spark Connect with scripts/spark.sh)")
	}
	s, err := spark.Connect(context.Background(), remote)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// agreementFolders are the tea shop's and the wind farm's folders with each
// check's options, as TestOneAnswerEverywhere runs them, the folder of
// a topic made again with fewer partitions (fewerPartitionsFolder), and
// the hostile topics (hostileFolder): values whose names differ only in
// case, a topic of one record, a topic of none.
func agreementFolders(t *testing.T) []struct {
	name, dir, topic string
	opts             map[string]CheckOptions
	more             []moreCase
	// superseded: the folder keeps superseded files beside the current
	// ones, so a raw read of its Parquet files is not the views.
	superseded bool
} {
	tea := filepath.Join(t.TempDir(), "teashop")
	if _, err := seeds.WriteTeaShopFolder(t.Context(), tea, seeds.TeaShopConfig{Users: 300, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	wind := filepath.Join(t.TempDir(), "windfarm")
	if _, err := seeds.WriteWindFarmFolder(t.Context(), wind, seeds.WindFarmConfig{Seed: 3}); err != nil {
		t.Fatal(err)
	}
	remade, remadeTopic := fewerPartitionsFolder(t)
	hostile, asOf := hostileFolder(t)
	hostileOpts := map[string]CheckOptions{
		"duplicates": {ID: "value.id", By: "key"},
		"skew":       {WhatIfKey: "value.id"},
		"missing":    {Match: "value.id", AgainstTopic: oneTopic, AgainstMatch: "value.id", Reverse: true},
		"reset":      {Group: "g", ToTime: asOf.Add(-50 * time.Minute)},
		"members":    {Group: "g"},
		"lag":        {Group: "g"},
		"freshness":  {EventTime: "TRY_CAST(value.et AS TIMESTAMP)"},
		"order":      {Time: "TRY_CAST(value.et AS TIMESTAMP)"},
	}
	hostileMore := []moreCase{
		// key and value bytes together: null against empty, not UTF-8.
		{"duplicates", "default id", CheckOptions{}},
		{"duplicates", "key", CheckOptions{ID: "key_raw"}},
		// ids of other types, shown as DuckDB's text of them.
		{"duplicates", "double", CheckOptions{ID: "value.amount"}},
		{"duplicates", "time", CheckOptions{ID: `"timestamp"`}},
		{"duplicates", "float", CheckOptions{ID: "CAST(least(value.amount, 1e30) AS FLOAT)"}},
		{"duplicates", "by bytes", CheckOptions{ID: "value.id", By: "key_raw"}},
		{"reset", "double ids", CheckOptions{Group: "g", ToTime: asOf.Add(-59 * time.Minute), ID: "value.amount"}},
		{"freshness", "no event time", CheckOptions{Silence: 60, Limit: 3}},
		{"reset", "ids", CheckOptions{Group: "g", ToTime: asOf.Add(-50 * time.Minute), ID: "value.id"}},
	}
	return []struct {
		name, dir, topic string
		opts             map[string]CheckOptions
		more             []moreCase
		// superseded: the folder keeps superseded files beside the current
		// ones, so a raw read of its Parquet files is not the views.
		superseded bool
	}{
		{"teashop", tea, seeds.TopicAppEvents, map[string]CheckOptions{
			"duplicates": {ID: "value.event_id", By: "value.event_name"},
			"skew":       {WhatIfKey: "value.city"},
			"missing": {Where: "value.event_name = 'order_completed'", Match: "value.order_id",
				Against: filepath.Join(tea, "orders.csv"), AgainstKey: "order_id", By: "platform", Reverse: true},
			"freshness": {EventTime: "value.ts"},
			"reset":     {Group: "kitchen-display", ToTime: time.Date(2026, 9, 14, 11, 0, 0, 0, time.UTC)},
		}, []moreCase{
			{"duplicates", "default id", CheckOptions{}},
			{"duplicates", "default id, by", CheckOptions{By: "value.platform"}},
			// An id most records lack (NULL: no id, never a copy, never
			// an example) with room for every example (96 ids), and with
			// more duplicated ids than examples: the first 3 by the first
			// copy's partition and offset.
			{"duplicates", "order id", CheckOptions{ID: "value.order_id", Limit: 200}},
			{"duplicates", "order id, 3 examples", CheckOptions{ID: "value.order_id", Limit: 3}},
			// Many silent stretches, and their count past the examples kept.
			{"freshness", "short silence", CheckOptions{Silence: 30, Limit: 7, EventTime: "value.ts", Late: 0.001}},
			{"reset", "ids, partitions", CheckOptions{Group: "kitchen-display", ToTime: time.Date(2026, 9, 14, 11, 0, 0, 0, time.UTC),
				Partitions: []int32{0, 2, 5}, ID: "value.event_id"}},
		}, false},
		{"windfarm", wind, seeds.TopicReadings, map[string]CheckOptions{
			"duplicates": {ID: "value.turbine_id || value.recorded_at"},
			"missing":    {Match: "value.turbine_id", AgainstTopic: seeds.TopicReadings + "-backfill", AgainstMatch: "value.turbine_id"},
			"reset":      {Group: "galewatch-writers", ToTime: seeds.DefaultWindFarmStart},
		}, []moreCase{
			// reset with --partitions and --id: TestSparkAgreesOnTheIncident.
			{"duplicates", "default id", CheckOptions{}},
			{"freshness", "short silence", CheckOptions{Silence: 0.5, Limit: 5}},
		}, false},
		{"remade", remade, remadeTopic, map[string]CheckOptions{}, nil, true},
		{"hostile", hostile, hostileTopic, hostileOpts, hostileMore, false},
		// The value is its JSON text: the checks that read no field.
		{"case apart", hostile, caseTopic, map[string]CheckOptions{
			"duplicates": {ID: "value"},
			"reset":      {Group: "g", ToTime: asOf.Add(-58 * time.Minute), ID: "value"},
			"members":    {Group: "g"},
			"lag":        {Group: "g"},
		}, []moreCase{{"duplicates", "default id", CheckOptions{}}}, false},
		{"one record", hostile, oneTopic, hostileOpts, nil, false},
		// No record: no value type, so no option over the value.
		{"empty", hostile, emptyTopic, map[string]CheckOptions{
			"duplicates": {ID: "key"},
			"missing":    {Match: "key", AgainstTopic: oneTopic, AgainstMatch: "key", Reverse: true},
			"reset":      {Group: "g", ToTime: asOf.Add(-50 * time.Minute)},
			"members":    {Group: "g"},
			"lag":        {Group: "g"},
		}, nil, false},
	}
}

// moreCase is a check run again with other options.
type moreCase struct {
	check, name string
	o           CheckOptions
}

// TestSparkAgreesWithDuckDB: every check, on the tea shop's and the wind
// farm's folders, gives the same JSON document (status, message, summary,
// rows; floats to 1e-9) on DuckDB and on a real Spark Connect server.
func TestSparkAgreesWithDuckDB(t *testing.T) {
	s := sparkRemote(t)
	ctx := context.Background()
	for _, f := range agreementFolders(t) {
		duck, err := Open(ctx, f.dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer duck.Close()
		sp, err := Open(ctx, f.dir, Options{Remote: s})
		if err != nil {
			t.Fatal(err)
		}
		defer sp.Close()
		cases := make([]moreCase, 0, len(CheckNames)+len(f.more))
		for _, name := range CheckNames {
			cases = append(cases, moreCase{name, name, f.opts[name]})
		}
		for _, m := range f.more {
			cases = append(cases, moreCase{m.check, m.check + "/" + m.name, m.o})
		}
		for _, c := range cases {
			name := c.check
			t.Run(f.name+"/"+c.name, func(t *testing.T) {
				o := c.o
				o.Topic = f.topic
				want, err := duck.RunCheck(ctx, name, o)
				if errors.Is(err, ErrUnknownGroup) {
					// The tea shop's cuts record no group: both engines
					// must refuse it the same way.
					if _, serr := sp.RunCheck(ctx, name, o); !errors.Is(serr, ErrUnknownGroup) {
						t.Fatalf("DuckDB: %v; Spark: %v, want the unknown group on both", err, serr)
					}
					return
				}
				if err != nil {
					var ne *NeedsError
					if errors.As(err, &ne) {
						// A check that needs options must need them on
						// Spark too, the same ones: said, never skipped.
						_, serr := sp.RunCheck(ctx, name, o)
						var sne *NeedsError
						if !errors.As(serr, &sne) || serr.Error() != err.Error() {
							t.Fatalf("DuckDB: %v; Spark: %v, want the same options asked on both", err, serr)
						}
						return
					}
					t.Fatal(err)
				}
				got, err := sp.RunCheck(ctx, name, o)
				if c, _ := LookupCheck(name); c.NotOn["spark"] != "" {
					// Not available there: said so, never a different answer.
					if !errors.Is(err, ErrNotOnEngine) {
						t.Fatalf("on spark: %v, want ErrNotOnEngine", err)
					}
					return
				}
				if err != nil {
					t.Fatalf("on spark: %v", err)
				}
				t.Logf("%s: %s", want.Status, want.Message)
				if diff := sameJSON(t, want, got); diff != "" {
					t.Errorf("%s on %s: DuckDB and Spark differ: %s", name, f.name, diff)
				}
			})
		}
	}
}

// sameJSON compares two documents as JSON, numbers to 1e-9 (relative for
// large ones); it returns where they first differ.
func sameJSON(t *testing.T, a, b any) string {
	t.Helper()
	var x, y any
	for _, p := range []struct {
		in  any
		out *any
	}{{a, &x}, {b, &y}} {
		j, err := json.Marshal(p.in)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(j, p.out); err != nil {
			t.Fatal(err)
		}
	}
	return jsonDiff("$", x, y)
}

func jsonDiff(at string, x, y any) string {
	switch xv := x.(type) {
	case float64:
		yv, ok := y.(float64)
		if !ok || math.Abs(xv-yv) > 1e-9*math.Max(1, math.Abs(xv)) {
			return fmt.Sprintf("%s: %v (DuckDB) vs %v (Spark)", at, x, y)
		}
		return ""
	case map[string]any:
		yv, ok := y.(map[string]any)
		if !ok || len(xv) != len(yv) {
			return fmt.Sprintf("%s: %v (DuckDB) vs %v (Spark)", at, x, y)
		}
		for k := range xv {
			if d := jsonDiff(at+"."+k, xv[k], yv[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		yv, ok := y.([]any)
		if !ok || len(xv) != len(yv) {
			return fmt.Sprintf("%s: %d items (DuckDB) vs %v (Spark)", at, len(xv), y)
		}
		for i := range xv {
			if d := jsonDiff(fmt.Sprintf("%s[%d]", at, i), xv[i], yv[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(x, y) {
		return fmt.Sprintf("%s: %v (DuckDB) vs %v (Spark)", at, x, y)
	}
	return ""
}

// TestSparkAgreesOnTheIncident: reset on the wind farm's incident folder
// (a cut a minute, writers and watchers holding partitions in turn), where
// every re-read record is attributed to the member whose commits covered
// it, gives the same JSON on Spark as on DuckDB: the partitions, the
// members (client, partitions, hosts), the ids already read.
func TestSparkAgreesOnTheIncident(t *testing.T) {
	s := sparkRemote(t)
	ctx := context.Background()
	dir := t.TempDir()
	inc, err := seeds.WriteWindFarmIncidentFolder(ctx, dir, seeds.WindFarmConfig{TurbinesPerFarm: 5})
	if err != nil {
		t.Fatal(err)
	}
	duck, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	sp, err := Open(ctx, dir, Options{Remote: s})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	for _, tt := range []struct {
		name string
		o    CheckOptions
	}{
		{"every partition", CheckOptions{ToTime: inc.Start}},
		{"watchers' partitions, ids", CheckOptions{ToTime: inc.Start.Add(5 * time.Minute), Partitions: []int32{17, 18, 19, 20, 21, 22, 23}, ID: "value.turbine_id"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			o := tt.o
			o.Topic, o.Group = seeds.TopicReadings, seeds.IncidentGroup
			want, err := duck.RunCheck(ctx, "reset", o)
			if err != nil {
				t.Fatal(err)
			}
			members := 0
			for _, r := range want.Rows {
				if r.Get("kind") == "member" && r.Get("client_id") != nil {
					members++
				}
			}
			if members < 2 {
				t.Fatalf("%d known members re-read anything: the case proves little (%s)", members, want.Message)
			}
			got, err := sp.RunCheck(ctx, "reset", o)
			if err != nil {
				t.Fatalf("on spark: %v", err)
			}
			t.Logf("%s: %s", want.Status, want.Message)
			if diff := sameJSON(t, want, got); diff != "" {
				t.Errorf("reset on the incident: DuckDB and Spark differ: %s", diff)
			}
		})
	}
}

// TestSparkRelativeFolder: a folder named relative to our working folder
// (check --dir snap) is read by Spark, whose own working folder is another:
// the engine names every file to it by its absolute path. Before, Spark
// answered PATH_NOT_FOUND for the server's ./snap.
func TestSparkRelativeFolder(t *testing.T) {
	s := sparkRemote(t)
	ctx := context.Background()
	parent := t.TempDir()
	if _, err := seeds.WriteWindFarmFolder(ctx, filepath.Join(parent, "windfarm"), seeds.WindFarmConfig{Seed: 3}); err != nil {
		t.Fatal(err)
	}
	t.Chdir(parent)
	duck, err := Open(ctx, "windfarm", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	sp, err := Open(ctx, "windfarm", Options{Remote: s})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	for _, name := range []string{"gaps", "lag"} {
		o := CheckOptions{Topic: seeds.TopicReadings}
		want, err := duck.RunCheck(ctx, name, o)
		if err != nil {
			t.Fatalf("%s on DuckDB: %v", name, err)
		}
		got, err := sp.RunCheck(ctx, name, o)
		if err != nil {
			t.Fatalf("%s on Spark, folder named windfarm: %v", name, err)
		}
		if got.Status != want.Status || got.Message != want.Message {
			t.Errorf("%s: Spark says %s %q, DuckDB %s %q", name, got.Status, got.Message, want.Status, want.Message)
		}
	}
}

// TestSparkRefusesSchemaEncodedTopics: a topic of Avro values (typedFolder)
// cannot be read on Spark, whose views read a JSON topic's value bytes and
// nothing the dump decoded: every check on it, and a query that names it,
// says so (ErrNotOnEngine, exit 2) rather than answer. Before, an Avro
// topic's values were "not JSON" there: check values said 6 of 6 values do
// not decode where DuckDB said every value decodes, duplicates --id value.n
// found no record with an id; with a timestamp field every check failed
// with "a field of type TIMESTAMPTZ has no Spark type here".
func TestSparkRefusesSchemaEncodedTopics(t *testing.T) {
	s := sparkRemote(t)
	ctx := context.Background()
	dir := typedFolder(t, false)
	duck, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	sp, err := Open(ctx, dir, Options{Remote: s})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	for _, name := range CheckNames {
		t.Run(name, func(t *testing.T) {
			o := CheckOptions{Topic: "typed", Match: "value.s", Group: "g", ID: "value.s"}
			_, derr := duck.RunCheck(ctx, name, o)
			_, serr := sp.RunCheck(ctx, name, o)
			var ne *NeedsError
			if errors.As(derr, &ne) || errors.Is(derr, ErrUnknownGroup) {
				if serr == nil || serr.Error() != derr.Error() {
					t.Fatalf("DuckDB: %v; Spark: %v, want the same refusal", derr, serr)
				}
				return
			}
			if c, _ := LookupCheck(name); c.NotOn["spark"] != "" && errors.Is(serr, ErrNotOnEngine) {
				return // not on Spark whatever the topic
			}
			if !errors.Is(serr, ErrNotOnEngine) || !strings.Contains(serr.Error(), "schema-encoded (AVRO)") {
				t.Fatalf("on spark: %v, want ErrNotOnEngine naming the schema-encoded values", serr)
			}
		})
	}
	_, _, err = sp.QueryRemote(ctx, `SELECT count(*) FROM typed`)
	if !errors.Is(err, ErrNotOnEngine) || !strings.Contains(err.Error(), "topic typed cannot be read on spark") {
		t.Fatalf("sql on spark: %v, want ErrNotOnEngine naming the topic", err)
	}
}

// TestSparkRefusesANestedID: duplicates --id of a STRUCT (a JSON topic's
// whole value) on Spark is refused, said: its id is shown as DuckDB's text
// of it ({'id': 1, 'amount': 1.5, ...}), which Spark's CAST does not write
// ({1, 1.5, ...}, as it did before).
func TestSparkRefusesANestedID(t *testing.T) {
	s := sparkRemote(t)
	ctx := context.Background()
	dir, _ := hostileFolder(t)
	sp, err := Open(ctx, dir, Options{Remote: s})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	for _, id := range []string{"value", "headers", "[key, key]", "map([key], [1])"} {
		_, err := sp.RunCheck(ctx, "duplicates", CheckOptions{Topic: hostileTopic, ID: id})
		if !errors.Is(err, ErrNotOnEngine) || !strings.Contains(err.Error(), "give --id a field of it") {
			t.Errorf("--id %s on spark: %v, want ErrNotOnEngine naming the fix", id, err)
		}
	}
	// An expression read as its text (remoteText) of a DOUBLE or a nested
	// type: Spark wrote 1.0E300 for DuckDB's 1e+300 (missing's key), hashed
	// 1.2345678E7 for 12345678.0 (skew put 6 records on a partition where
	// DuckDB put 5).
	for _, c := range []struct {
		check string
		o     CheckOptions
	}{
		{"duplicates", CheckOptions{ID: "value.id", By: "value.amount"}},
		{"skew", CheckOptions{WhatIfKey: "value.amount"}},
		{"missing", CheckOptions{Match: "value.amount", AgainstTopic: oneTopic, AgainstMatch: "value.id"}},
		{"missing", CheckOptions{Match: "value.id", AgainstTopic: hostileTopic, AgainstMatch: "value.amount"}},
		{"skew", CheckOptions{WhatIfKey: "value"}},
	} {
		o := c.o
		o.Topic = hostileTopic
		_, err := sp.RunCheck(ctx, c.check, o)
		if !errors.Is(err, ErrNotOnEngine) || !strings.Contains(err.Error(), "read as DuckDB's text of it") {
			t.Errorf("%s %+v on spark: %v, want ErrNotOnEngine", c.check, c.o, err)
		}
	}
}

// TestSparkExpressionItRefuses: an expression is sent to Spark as DuckDB
// writes it; one Spark reads otherwise (CAST AS TIMESTAMPTZ, written
// TIMESTAMP WITH TIME ZONE; a DuckDB-only function) failed the check's
// whole statement with "[PARSE_SYNTAX_ERROR] Syntax error at or near
// 'TIME'" and a page of topicsnap's SQL, naming no option. It is an
// OptionError naming the option and DuckDB's writing of it now; the same
// expression written for both engines runs.
func TestSparkExpressionItRefuses(t *testing.T) {
	s := sparkRemote(t)
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "tea")
	if _, err := seeds.WriteTeaShopFolder(ctx, dir, seeds.TeaShopConfig{Users: 30, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	sp, err := Open(ctx, dir, Options{Remote: s})
	if err != nil {
		t.Fatal(err)
	}
	defer sp.Close()
	for _, c := range []struct {
		check string
		o     CheckOptions
		want  string
	}{
		{"freshness", CheckOptions{EventTime: "CAST(value.ts AS TIMESTAMPTZ)"}, "TIMESTAMP WITH TIME ZONE"},
		{"duplicates", CheckOptions{ID: "list_value(value.event_id)[1]"}, "list_value"},
	} {
		o := c.o
		o.Topic = "app_events"
		_, err := sp.RunCheck(ctx, c.check, o)
		var oe *OptionError
		if !errors.As(err, &oe) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "which spark refuses") || strings.Contains(err.Error(), "== SQL ==") {
			t.Errorf("%s %+v on spark: %v, want an OptionError naming %q", c.check, c.o, err, c.want)
		}
	}
	r, err := sp.RunCheck(ctx, "freshness", CheckOptions{Topic: "app_events", EventTime: "CAST(value.ts AS TIMESTAMP)"})
	if err != nil || r.Status == "" {
		t.Fatalf("freshness --event-time CAST(value.ts AS TIMESTAMP) on spark: %v", err)
	}
}
