package queries

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/topicsnap/topicsnap/catalog"
)

// TestSparkFreshnessSilencesAcrossBuckets: freshness's Spark SQL finds each
// record's next in its partition's time order within time buckets of the
// topic's span and across them (freshness_silence.spark.sql). On topics
// made to stress that: stretches inside a bucket and across many, equal
// times in one partition and across partitions, partitions with one
// record or none in a stretch of the others, and a record stamped -1 (a
// producer that set no time) that stretches the span over 56 years, so
// nearly every record falls in one bucket. The silences, their other
// records and their count must be DuckDB's, every one of them.
func TestSparkFreshnessSilencesAcrossBuckets(t *testing.T) {
	s := sparkRemote(t)
	ctx := context.Background()
	const t0 = int64(1_780_000_000_000) // ms
	cases := []struct {
		name    string
		outlier bool
	}{{"spread", false}, {"outlier at -1", true}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "f")
			d, err := catalog.Create(dir)
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(11, 17))
			const topic = "ticks"
			for p := int32(0); p < 4; p++ {
				var rows []catalog.Row
				ts := t0 + int64(p)*7
				n := 1500
				if p == 3 {
					n = 1 // one record: no stretch of its own
				}
				for i := 0; i < n; i++ {
					if i == 0 && p == 1 && c.outlier {
						rows = append(rows, catalog.Row{Partition: p, Offset: 0, Timestamp: -1, TimestampType: catalog.TimestampCreate, Value: []byte(`{}`)})
						continue
					}
					switch r := rng.IntN(10); {
					case r < 2: // the same time again
					case r < 8:
						ts += rng.Int64N(2_000) // up to 2 s
					default:
						ts += 1_000 + rng.Int64N(120_000) // a silence of up to 2 minutes
					}
					if p == 2 && i == 700 {
						ts += 6 * 3_600_000 // six hours: a stretch over many buckets
					}
					rows = append(rows, catalog.Row{Partition: p, Offset: int64(i), Timestamp: ts, TimestampType: catalog.TimestampCreate,
						Value: []byte(fmt.Sprintf(`{"i":%d}`, i))})
				}
				writePartition(t, d, topic, p, "s1", int64(n), rows)
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
			for _, silence := range []float64{0.5, 30, 90} {
				o := CheckOptions{Topic: topic, Silence: silence, Limit: MaxLimit}
				want, err := duck.RunCheck(ctx, "freshness", o)
				if err != nil {
					t.Fatal(err)
				}
				got, err := sp.RunCheck(ctx, "freshness", o)
				if err != nil {
					t.Fatalf("on spark: %v", err)
				}
				n := want.Summary.Get("silent_stretches")
				t.Logf("silence %gs: %v stretches", silence, n)
				if asInt(n) < 3 {
					t.Fatalf("silence %gs: %v stretches on DuckDB; the topic was made to have many", silence, n)
				}
				if diff := sameJSON(t, want, got); diff != "" {
					t.Errorf("silence %gs: DuckDB and Spark differ: %s", silence, diff)
				}
			}
		})
	}
}
