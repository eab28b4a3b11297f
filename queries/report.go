package queries

import (
	"fmt"
	"time"

	"github.com/topicsnap/topicsnap/internal/chart"
	"github.com/topicsnap/topicsnap/internal/display"
)

// Statuses of a check.
const (
	StatusOK   = "ok"
	StatusWarn = "warn"
	StatusFail = "fail"
)

// Worse is the graver of two statuses (fail, then warn, then ok).
func Worse(a, b string) string {
	rank := map[string]int{StatusOK: 0, StatusWarn: 1, StatusFail: 2}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// CheckOptions are a check's options. Expressions (ID, By, Where, Match,
// Time, EventTime, WhatIfKey) are SQL expressions over the topic view.
type CheckOptions struct {
	Topic string

	ID string // duplicates: the id expression; default key plus value bytes
	By string // duplicates, missing: break down by this expression / column

	Hot              float64 // skew: hot threshold as a multiple of the fair share (1.5)
	WhatIfKey        string  // skew: expression to re-key by
	WhatIfPartitions int     // skew: partition count for the what-if

	Where        string // missing: filter over the topic
	Match        string // missing: expression matched against the expected key
	Against      string // missing: CSV, Parquet or JSON-lines file of expected keys
	AgainstKey   string // missing: the column of Against holding the key
	AgainstTopic string // missing: expected set from another topic
	AgainstWhere string
	AgainstMatch string
	Reverse      bool // missing: list events whose key is not expected

	Time      string  // order: time expression (default timestamp)
	Silence   float64 // freshness: seconds of silence that count (300)
	EventTime string  // freshness: event time expression
	Late      float64 // freshness: seconds behind the broker time that count as late (60)
	Stale     float64 // freshness: seconds between a partition's newest record and the cut that count as stale (3600)

	Group      string    // reset: the consumer group; lag: only this group
	ToTime     time.Time // reset: the time the group would be reset to
	Partitions []int32   // reset: the partitions to reset (none: every partition the group committed on)

	Limit int // example rows kept (default 50)

	// Charts asks the checks that draw time series (freshness, duplicates)
	// to compute them with the report (Report.Charts).
	Charts bool
}

// Report is the stable result of a check: the document `check --format
// json` prints and GET /api/checks/{name} returns.
type Report struct {
	Check   string   `json:"check"`
	Topic   string   `json:"topic"`
	Status  string   `json:"status"`
	Message string   `json:"message"`
	Summary *Summary `json:"summary"`
	Rows    []Row    `json:"rows"`
	Tables  []Table  `json:"-"` // for people: named tables shown under the verdict
	// Charts are the check's time series, computed with the report when
	// CheckOptions.Charts asks (the pages draw them); for people, as Tables.
	Charts []Chart `json:"-"`
}

// Chart is a check's named time series over buckets of Step.
type Chart struct {
	Name   string // what is counted, e.g. "records per partition"
	Step   time.Duration
	Series []Series
}

// Series is one line of a chart.
type Series struct {
	Name   string
	Points []Point
}

// Point is one bucket of a series.
type Point struct {
	T time.Time
	V float64
}

// Row is one row of a report: ordered column names and values.
type Row = orderedMap

// Table is a titled table for people.
type Table struct {
	Title   string
	Columns []string
	Rows    [][]any
}

// Summary holds a report's named numbers in a fixed order.
type Summary = orderedMap

type orderedMap struct {
	Keys []string
	Vals map[string]any
}

// NewRow makes an empty ordered map.
func NewRow() *orderedMap { return &orderedMap{Vals: map[string]any{}} }

// Set adds or replaces key.
func (m *orderedMap) Set(k string, v any) *orderedMap {
	if _, ok := m.Vals[k]; !ok {
		m.Keys = append(m.Keys, k)
	}
	m.Vals[k] = v
	return m
}

// Get returns key's value.
func (m *orderedMap) Get(k string) any { return m.Vals[k] }

// MarshalJSON writes keys in order.
func (m orderedMap) MarshalJSON() ([]byte, error) {
	o := display.Object{Keys: m.Keys, Vals: make([]any, len(m.Keys))}
	for i, k := range m.Keys {
		o.Vals[i] = display.JSON(m.Vals[k])
	}
	return o.MarshalJSON()
}

// drawn is the chart's series as package chart draws them.
func (c Chart) drawn() []chart.Series {
	out := make([]chart.Series, len(c.Series))
	for i, x := range c.Series {
		out[i].Name = x.Name
		for _, p := range x.Points {
			out[i].Points = append(out[i].Points, chart.Point{T: p.T, V: p.V})
		}
	}
	return out
}

// stepName says a chart's bucket: minute, hour, 6 hours, 15 minutes.
func stepName(d time.Duration) string {
	if d == time.Minute {
		return "minute"
	}
	if d%time.Hour == 0 {
		if d == time.Hour {
			return "hour"
		}
		return fmt.Sprintf("%d hours", int(d.Hours()))
	}
	return fmt.Sprintf("%d minutes", int(d.Minutes()))
}
