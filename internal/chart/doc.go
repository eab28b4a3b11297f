// Package chart draws the charts of topicsnap's pages as inline SVG: the
// check pages and the overview (bars, lines over time, a heat strip, offset
// coverage), a group's history, and the notebooks' bar and line cells
// (XY). One writer (SVG) draws them all, so every text in a chart goes
// through one escape, and every chart is bounded: past MaxBars bars or
// MaxPoints points a chart draws a sample and says so in the chart.
//
// Colours come from classes the stylesheet defines (s0..s7, bar, heat
// h1..h4, ...): no inline styles, which the server's CSP forbids. The
// notebooks' pages, which are also written as standalone files, carry the
// same classes in their own stylesheet.
//
// A check declares its charts in its own file (queries.Check.Charts),
// returning Charts drawn here; the server shows them, never naming a check.
package chart

import (
	"html/template"
	"time"
)

// Chart is a drawn chart as a page shows it: a title, a note read with it,
// and the SVG (empty when there is nothing to draw: the note says why).
type Chart struct {
	Title string
	Note  string
	SVG   template.HTML
}

// Bar is one bar of a bar chart.
type Bar struct {
	Label string
	Value float64
	Note  string // shown after the bar
}

// Point is one point of a time series.
type Point struct {
	T time.Time
	V float64
}

// Series is one line of a time chart (or one row of a heat strip).
type Series struct {
	Name   string
	Points []Point
}

// Span is an inclusive offset range.
type Span struct{ From, To int64 }

// Partition is what a snapshot folder holds of one partition: the offset
// ranges its files cover, those Kafka deleted before they were dumped,
// and the log's start and end at the newest snapshot (-1: unknown).
type Partition struct {
	Partition     int32
	Covered, Lost []Span
	LogStart      int64
	HighWatermark int64
}

// The bounds of a chart: past them a chart draws a sample and says so.
const (
	MaxBars   = 400
	MaxPoints = 20000
)
