package notebooks

import (
	"fmt"
	"html/template"
	"math"
	"strings"

	"github.com/topicsnap/topicsnap/internal/chart"
	"github.com/topicsnap/topicsnap/internal/display"
)

// ChartMaxRows is the most rows a chart cell keeps for its chart.
const ChartMaxRows = 5000

func colIndex(c *Cell, name string) int {
	for i, n := range c.Columns {
		if n == name {
			return i
		}
	}
	for i, n := range c.Columns {
		if strings.EqualFold(n, name) {
			return i
		}
	}
	return -1
}

// buildChart draws the cell's chart (package chart's XY). An empty chart
// with a nil error means there is nothing to draw (no rows).
func buildChart(c *Cell, o CellOptions) (template.HTML, error) {
	xi, yi, si := colIndex(c, o.X), colIndex(c, o.Y), -1
	for _, p := range []struct{ opt, name string }{{"x", o.X}, {"y", o.Y}} {
		if colIndex(c, p.name) < 0 {
			return "", fmt.Errorf("chart: %s=%s is not a column of the result (columns: %s)", p.opt, p.name, strings.Join(c.Columns, ", "))
		}
	}
	if o.Series != "" {
		if si = colIndex(c, o.Series); si < 0 {
			return "", fmt.Errorf("chart: series=%s is not a column of the result (columns: %s)", o.Series, strings.Join(c.Columns, ", "))
		}
	}
	var pts []chart.XYPoint
	for _, r := range c.Rows {
		if r[yi] == nil || r[xi] == nil {
			continue
		}
		y, ok := display.Numeric(r[yi])
		if !ok {
			return "", fmt.Errorf("chart: y=%s is not a number (a value is %s)", o.Y, display.Text(r[yi]))
		}
		if math.IsNaN(y) || math.IsInf(y, 0) {
			continue
		}
		s := ""
		if si >= 0 {
			s = display.Text(r[si])
		}
		pts = append(pts, chart.XYPoint{X: r[xi], XText: display.Text(r[xi]), Series: s, Y: y})
	}
	return chart.XY(chart.XYOptions{Kind: o.Chart, X: o.X, Y: o.Y, Series: o.Series, Title: o.Title}, pts)
}
