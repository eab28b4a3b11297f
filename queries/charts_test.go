package queries

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/internal/chart"
)

// Each check that draws charts declares them on its descriptor, and draws
// them from its report alone (and the coverage it is handed): the hook of
// every check is called here with a report of the shape the check writes,
// and must draw an SVG holding the figures the report gave.
func TestChecksDrawTheirCharts(t *testing.T) {
	t0 := time.Date(2026, 7, 16, 11, 0, 0, 0, time.UTC)
	series := []Chart{{Name: "records", Step: time.Minute, Series: []Series{{Name: "p0", Points: []Point{{T: t0, V: 4}, {T: t0.Add(time.Minute), V: 0}}}}}}
	cases := []struct {
		check  string
		rows   []Row
		charts []Chart
		want   []string // in the SVG, or the note when there is none
	}{
		{"gaps", nil, nil, []string{"offset coverage of events", `class="lost"`}},
		{"skew", []Row{*NewRow().Set("kind", "partition").Set("partition", int32(0)).Set("share", 0.75).Set("records", int64(3000)),
			*NewRow().Set("kind", "partition").Set("partition", int32(1)).Set("share", 0.25).Set("records", int64(1000))}, nil,
			[]string{"fair 50.0%", "p0: 75% (3,000)"}},
		{"lag", []Row{*NewRow().Set("kind", "offset").Set("group_id", "watchers").Set("partition", int32(2)).Set("lag_records", int64(12345))}, nil,
			[]string{"watchers · p2", "12,345"}},
		{"lag", nil, nil, []string{"no consumer group has committed offsets on this topic"}},
		{"lag", []Row{*NewRow().Set("kind", "offset").Set("group_id", "g-neg").Set("partition", int32(0)).Set("lag_records", nil)}, nil,
			[]string{"1 partition without a committed offset (Kafka answered -1) not drawn"}},
		{"freshness", []Row{*NewRow().Set("kind", "silence").Set("partition", int32(0)).Set("silent_from", t0.Add(time.Minute)).Set("silent_to", t0.Add(3*time.Minute))}, series,
			[]string{`class="heat h4"`, "partition 0 silent for 2m 0s", "records per minute"}},
		{"duplicates", nil, series, []string{"duplicates over time", "records per minute"}},
	}
	coverage := func(_ context.Context, topic string) ([]chart.Partition, error) {
		return []chart.Partition{{Partition: 0, Covered: []chart.Span{{From: 0, To: 9}}, Lost: []chart.Span{{From: 10, To: 19}}, LogStart: 0, HighWatermark: 30}}, nil
	}
	for _, c := range cases {
		t.Run(c.check, func(t *testing.T) {
			ch, ok := LookupCheck(c.check)
			if !ok || ch.Charts == nil {
				t.Fatalf("%s declares no charts", c.check)
			}
			r := &Report{Check: c.check, Topic: "events", Rows: c.rows, Charts: c.charts}
			got, err := ch.Charts(context.Background(), ChartInput{Report: r, Options: CheckOptions{Topic: "events"}, Coverage: coverage})
			if err != nil {
				t.Fatal(err)
			}
			var all strings.Builder
			for _, g := range got {
				all.WriteString(g.Title + "\n" + g.Note + "\n" + string(g.SVG))
			}
			for _, w := range c.want {
				if !strings.Contains(all.String(), w) {
					t.Errorf("%s's charts lack %q:\n%s", c.check, w, all.String())
				}
			}
		})
	}
}
