package chart

import (
	"encoding/xml"
	"fmt"
	"html/template"
	"io"
	"math"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/topicsnap/topicsnap/internal/display"
)

const hostile = `</text><script>alert(1)</script>"'&<x y="`

// elements parses an SVG and counts its elements by name: it fails on
// anything that is not well-formed.
func elements(t *testing.T, h template.HTML) map[string]int {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(string(h)))
	n := map[string]int{}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return n
		}
		if err != nil {
			t.Fatalf("not well-formed: %v\n%s", err, h)
		}
		if se, ok := tok.(xml.StartElement); ok {
			n[se.Name.Local]++
		}
	}
}

// Every text a chart is given, from a title to a series name or a tooltip,
// is escaped: no element comes from it, in every kind of chart.
func TestEveryTextIsEscaped(t *testing.T) {
	t0 := time.Date(2026, 7, 16, 11, 0, 0, 0, time.UTC)
	ss := []Series{{Name: hostile, Points: []Point{{t0, 1}, {t0.Add(time.Minute), 3}}}}
	xy, err := XY(XYOptions{Kind: "line", X: hostile, Y: hostile, Series: hostile, Title: hostile},
		[]XYPoint{{X: hostile, XText: hostile, Series: hostile, Y: 1}, {X: "b", XText: "b", Series: "s2", Y: 2}})
	if err != nil {
		t.Fatal(err)
	}
	bar, err := XY(XYOptions{Kind: "bar", X: hostile, Y: "y"}, []XYPoint{{X: hostile, XText: hostile, Y: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for name, h := range map[string]template.HTML{
		"bars":     Bars(hostile, []Bar{{Label: hostile, Value: 1, Note: hostile}}, 0.5, hostile),
		"time":     Time(hostile, hostile, ss),
		"heat":     Heat(hostile, hostile, time.Minute, ss, []Silence{{Series: hostile, From: t0, To: t0.Add(time.Minute), Note: hostile}}),
		"coverage": Coverage(hostile, []Partition{{Partition: 0, Covered: []Span{{0, 9}}, Lost: []Span{{10, 12}}, LogStart: 0, HighWatermark: 20}}),
		"xy line":  xy,
		"xy bar":   bar,
	} {
		t.Run(name, func(t *testing.T) {
			n := elements(t, h)
			if n["script"] > 0 || n["x"] > 0 {
				t.Errorf("an element came from a text: %v\n%s", n, h)
			}
			if n["svg"] != 1 {
				t.Errorf("%d svg elements", n["svg"])
			}
		})
	}
}

// A chart past its bounds draws a sample and says so.
func TestChartsAreBounded(t *testing.T) {
	var bars []Bar
	for i := range MaxBars + 50 {
		bars = append(bars, Bar{Label: fmt.Sprint(i), Value: float64(i + 1)})
	}
	h := Bars("many", bars, 0, "")
	if n := elements(t, h)["rect"]; n != MaxBars {
		t.Errorf("%d bars drawn, bound %d", n, MaxBars)
	}
	if !strings.Contains(string(h), "+50 more not drawn") {
		t.Error("the bars not drawn are not named")
	}

	t0 := time.Date(2026, 7, 16, 0, 0, 0, 0, time.UTC)
	var ss []Series
	for p := range 10 {
		se := Series{Name: fmt.Sprint("p", p)}
		for i := range MaxPoints / 4 {
			se.Points = append(se.Points, Point{t0.Add(time.Duration(i) * time.Second), float64(i % 7)})
		}
		ss = append(ss, se)
	}
	h = Time("many", "records", ss)
	points := strings.Count(string(h), ",") // one comma a point
	if points > MaxPoints+len(ss) {
		t.Errorf("%d points drawn, bound %d", points, MaxPoints)
	}
	if !strings.Contains(string(h), "1 point in 3 drawn") {
		t.Errorf("the thinning is not said:\n%.400s", h)
	}
	h = Heat("many", "records per second", time.Second, ss, nil)
	if n := elements(t, h)["rect"]; n > MaxPoints+20 {
		t.Errorf("%d cells drawn, bound %d", n, MaxPoints)
	}
	if !strings.Contains(string(h), "buckets to a cell") {
		t.Error("the wider buckets are not said")
	}
}

// XY refuses what it cannot draw legibly, naming the bound.
func TestXYBounds(t *testing.T) {
	var pts []XYPoint
	for i := range MaxSeries + 1 {
		pts = append(pts, XYPoint{X: "a", XText: "a", Series: fmt.Sprint(i), Y: 1})
	}
	if _, err := XY(XYOptions{Kind: "bar", X: "x", Y: "y"}, pts); err == nil || !strings.Contains(err.Error(), "at most 24 are drawn") {
		t.Errorf("%d series: %v", MaxSeries+1, err)
	}
	h, err := XY(XYOptions{Kind: "bar", X: "x", Y: "y"}, nil)
	if h != "" || err != nil {
		t.Errorf("no points: %q, %v", h, err)
	}
}

// TestXYAxesOfAnyValues: an axis is drawn with a bounded number of ticks
// whatever its values: times spanning more than a time.Duration holds
// (1816 to year 58000, Kafka-legal timestamps: the span overflowed, a 1 ms
// step was chosen and the tick loop allocated without end), numbers a
// float step cannot advance (1e16 and 1e16+2: v += 0.5 left v where it
// was), and the extremes of a float.
func TestXYAxesOfAnyValues(t *testing.T) {
	at := func(year int) time.Time { return time.Date(year, 3, 1, 0, 0, 0, 0, time.UTC) }
	cases := []struct {
		name string
		pts  []XYPoint
		want string // a label the chart shows
	}{
		{"1816 to 58000", []XYPoint{{X: at(1816), Y: 1}, {X: at(2026), Y: 2}, {X: at(58000), Y: 3}}, ">20000<"},
		{"1816 to 2250", []XYPoint{{X: at(1816), Y: 1}, {X: at(2250), Y: 2}}, ">1900<"},
		{"a day", []XYPoint{{X: at(2026), Y: 1}, {X: at(2026).Add(24 * time.Hour), Y: 2}}, "03-01 12:00"},
		// DATEs (display.Date since a DATE reads as its day) stay a time axis.
		{"dates", []XYPoint{{X: display.Date(at(2026)), Y: 1}, {X: display.Date(at(2026).Add(24 * time.Hour)), Y: 2}}, "03-01 12:00"},
		{"x a float cannot step", []XYPoint{{X: 1e16, Y: 1}, {X: 1e16 + 2, Y: 2}}, "<svg"},
		{"y a float cannot step", []XYPoint{{X: 1.0, Y: 1e16}, {X: 2.0, Y: 1e16 + 2}}, "<svg"},
		{"float extremes", []XYPoint{{X: -math.MaxFloat64, Y: -math.MaxFloat64}, {X: math.MaxFloat64, Y: math.MaxFloat64}}, "<svg"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			done := make(chan struct{})
			var h template.HTML
			var err error
			go func() {
				defer close(done)
				h, err = XY(XYOptions{Kind: "line", X: "x", Y: "y"}, c.pts)
			}()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatal("no chart after 10 s")
			}
			if err != nil || !strings.Contains(string(h), c.want) {
				t.Fatalf("%v, want %q in:\n%.2000s", err, c.want, h)
			}
			if testing.Verbose() {
				t.Log(regexp.MustCompile(`>[0-9:. -]+<`).FindAllString(string(h), -1))
			}
			if n := strings.Count(string(h), "<text"); n > 3*maxTicks {
				t.Errorf("%d labels", n)
			}
		})
	}
}
