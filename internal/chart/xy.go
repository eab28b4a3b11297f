package chart

import (
	"fmt"
	"html/template"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/topicsnap/topicsnap/internal/display"
)

// Limits of an XY chart, past which it is not drawn and says why.
const (
	MaxSeries     = 24
	MaxCategories = 400
)

// palette colours an XY chart's series by fill and stroke attributes
// (presentation attributes, not styles: the CSP allows them).
var palette = []string{"#3366cc", "#dc6b2f", "#2a9d6f", "#c23b56", "#8a63c9", "#b8860b", "#1f9bb4", "#7f7f7f", "#d45db0", "#5b8c2a", "#9c5b2e", "#4a4ab5"}

// layout is the geometry of an XY chart.
type layout struct {
	Kind          string
	Label         string // accessible name
	Width, Height float64
	Left, Top     float64
	Right, Bottom float64 // plot area edges
	YTicks        []tick
	XTicks        []tick
	RotateX       bool
	Bars          []xyBar
	Lines         []xyLine
	Legend        []legendItem
	XLabel        string
	YLabel        string
	Zero          float64
}

type tick struct {
	Pos   float64
	Label string
}

type xyBar struct {
	X, Y, W, H float64
	Color      string
	Tip        string
}

type xyPoint struct {
	X, Y float64
	Tip  string
}

type xyLine struct {
	Path   string
	Color  string
	Points []xyPoint
	Dots   bool
}

type legendItem struct {
	X, Y  float64
	Color string
	Name  string
}

// XYPoint is one row of an XY chart: X a category, a number or a time
// (XText how it reads), Y a number, Series the line or bar group it
// belongs to ("" when there is one).
type XYPoint struct {
	X      any
	XText  string
	Series string
	Y      float64
}

// XYOptions say what an XY chart draws: Kind bar (bars add up the rows
// with the same x and series) or line; X, Y and Series name the columns
// (for the labels); Title, if given, leads the accessible name.
type XYOptions struct {
	Kind         string
	X, Y, Series string
	Title        string
}

// XY draws a bar or line chart of pts, as a notebook's chart cell shows
// it; nothing (and no error) when pts is empty. Past MaxSeries series or
// MaxCategories categories it draws nothing and says why: the cell shows
// its table.
func XY(o XYOptions, pts []XYPoint) (template.HTML, error) {
	l, err := xyLayout(o, pts)
	if err != nil || l == nil {
		return "", err
	}
	return l.draw(), nil
}

func xyLayout(o XYOptions, pts []XYPoint) (*layout, error) {
	var seriesNames []string
	seenSeries := map[string]bool{}
	for _, p := range pts {
		if !seenSeries[p.Series] {
			seenSeries[p.Series] = true
			seriesNames = append(seriesNames, p.Series)
		}
	}
	if len(pts) == 0 {
		return nil, nil
	}
	if len(seriesNames) > MaxSeries {
		return nil, fmt.Errorf("chart: %d series, at most %d are drawn: group them in SQL", len(seriesNames), MaxSeries)
	}
	ch := &layout{Kind: o.Kind, Width: 760, Height: 330, Top: 26, XLabel: o.X, YLabel: o.Y}
	ch.Label = fmt.Sprintf("%s chart of %s by %s", o.Kind, o.Y, o.X)
	if o.Series != "" {
		ch.Label += " for each " + o.Series
	}
	if o.Title != "" {
		ch.Label = o.Title + ": " + ch.Label
	}
	color := map[string]string{}
	for i, s := range seriesNames {
		color[s] = palette[i%len(palette)]
	}

	// Categories in order of first appearance.
	var cats []string
	catIndex := map[string]int{}
	for _, p := range pts {
		if _, ok := catIndex[p.XText]; !ok {
			catIndex[p.XText] = len(cats)
			cats = append(cats, p.XText)
		}
	}
	continuous, xNum := false, func(any) float64 { return 0 }
	if o.Kind == "line" {
		continuous, xNum = continuousX(pts)
	}
	if !continuous && len(cats) > MaxCategories {
		return nil, fmt.Errorf("chart: %d distinct values of x=%s, at most %d are drawn: aggregate in SQL", len(cats), o.X, MaxCategories)
	}

	// Values: bars add up rows with the same x and series.
	type key struct {
		cat    int
		series string
	}
	sums := map[key]float64{}
	if o.Kind == "bar" {
		for _, p := range pts {
			sums[key{catIndex[p.XText], p.Series}] += p.Y
		}
	}
	ymin, ymax := 0.0, 0.0
	if o.Kind == "bar" {
		for _, v := range sums {
			ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
		}
	} else {
		for _, p := range pts {
			ymin, ymax = math.Min(ymin, p.Y), math.Max(ymax, p.Y)
		}
	}
	lo, hi, step := niceRange(ymin, ymax)

	// Margins: room for the y tick labels, the legend and the x labels.
	var yticks []float64
	for i, v := 0, lo; v <= hi+step/2 && i < maxTicks; i, v = i+1, v+step {
		yticks = append(yticks, v)
		if v+step == v {
			break // a step a float this large cannot add: one tick says it
		}
	}
	labelW := 0
	for _, v := range yticks {
		labelW = max(labelW, len(formatNum(v, step)))
	}
	ch.Left = float64(labelW*7 + 24)
	ch.Right = ch.Width - 16
	if len(seriesNames) > 1 {
		ch.Right = ch.Width - 150
	}
	ch.RotateX = !continuous && (len(cats) > 12 || longest(cats) > 10)
	ch.Bottom = ch.Height - 40
	if ch.RotateX {
		ch.Height += 50
		ch.Bottom = ch.Height - 90
	}
	plotH := ch.Bottom - ch.Top
	ypos := func(v float64) float64 { return ch.Bottom - (v-lo)/(hi-lo)*plotH }
	for _, v := range yticks {
		ch.YTicks = append(ch.YTicks, tick{Pos: round1(ypos(v)), Label: formatNum(v, step)})
	}
	ch.Zero = round1(ypos(0))
	plotW := ch.Right - ch.Left

	// X: categories evenly spaced, or a true scale.
	catW := plotW / float64(len(cats))
	catCenter := func(i int) float64 { return ch.Left + catW*(float64(i)+0.5) }
	if !continuous {
		every := max(1, int(math.Ceil(float64(len(cats))/40)))
		if !ch.RotateX {
			every = max(1, int(math.Ceil(float64(len(cats))/12)))
		}
		for i, c := range cats {
			if i%every == 0 {
				ch.XTicks = append(ch.XTicks, tick{Pos: round1(catCenter(i)), Label: shorten(c, 18)})
			}
		}
	}
	var xlo, xhi float64
	xpos := func(p XYPoint) float64 { return catCenter(catIndex[p.XText]) }
	if continuous {
		xlo, xhi = math.Inf(1), math.Inf(-1)
		for _, p := range pts {
			v := xNum(p.X)
			xlo, xhi = math.Min(xlo, v), math.Max(xhi, v)
		}
		pad := 0.0
		if xlo == xhi {
			pad = 1
		}
		xpos = func(p XYPoint) float64 {
			return ch.Left + 8 + (xNum(p.X)-xlo+pad)/(xhi-xlo+2*pad)*(plotW-16)
		}
		ch.XTicks = xTicks(pts[0].X, xlo, xhi, func(v float64) float64 {
			return ch.Left + 8 + (v-xlo+pad)/(xhi-xlo+2*pad)*(plotW-16)
		})
	}

	switch o.Kind {
	case "bar":
		n := float64(len(seriesNames))
		bw := math.Min(catW*0.8/n, 56)
		groupW := bw * n
		for ci, cname := range cats {
			for s, sname := range seriesNames {
				v, ok := sums[key{ci, sname}]
				if !ok {
					continue
				}
				x := catCenter(ci) - groupW/2 + float64(s)*bw
				y0, y1 := ypos(0), ypos(v)
				top, h := math.Min(y0, y1), math.Abs(y1-y0)
				tip := fmt.Sprintf("%s = %s, %s = %s", o.X, cname, o.Y, formatNum(v, 0))
				if o.Series != "" {
					tip = fmt.Sprintf("%s = %s, ", o.Series, sname) + tip
				}
				ch.Bars = append(ch.Bars, xyBar{X: round1(x), Y: round1(top), W: round1(math.Max(bw-1, 0.5)), H: round1(math.Max(h, 0.5)), Color: color[sname], Tip: tip})
			}
		}
	case "line":
		bySeries := map[string][]XYPoint{}
		for _, p := range pts {
			bySeries[p.Series] = append(bySeries[p.Series], p)
		}
		for _, sname := range seriesNames {
			sp := bySeries[sname]
			if continuous {
				sort.SliceStable(sp, func(i, j int) bool { return xNum(sp[i].X) < xNum(sp[j].X) })
			}
			var path strings.Builder
			l := xyLine{Color: color[sname], Dots: len(pts) <= 400}
			for i, p := range sp {
				x, y := round1(xpos(p)), round1(ypos(p.Y))
				if i == 0 {
					fmt.Fprintf(&path, "M%g %g", x, y)
				} else {
					fmt.Fprintf(&path, " L%g %g", x, y)
				}
				tip := fmt.Sprintf("%s = %s, %s = %s", o.X, p.XText, o.Y, formatNum(p.Y, 0))
				if o.Series != "" {
					tip = fmt.Sprintf("%s = %s, ", o.Series, sname) + tip
				}
				l.Points = append(l.Points, xyPoint{X: x, Y: y, Tip: tip})
			}
			l.Path = path.String()
			ch.Lines = append(ch.Lines, l)
		}
	}
	if len(seriesNames) > 1 {
		for i, s := range seriesNames {
			ch.Legend = append(ch.Legend, legendItem{X: ch.Right + 16, Y: ch.Top + 6 + float64(i)*18, Color: color[s], Name: o.Series + " " + shorten(s, 16)})
		}
		ch.Height = math.Max(ch.Height, ch.Top+float64(len(seriesNames))*18+20)
	}
	return ch, nil
}

// continuousX tells whether every x is a time, or every x a number, and
// returns how to place one.
func continuousX(pts []XYPoint) (bool, func(any) float64) {
	allTime, allNum := true, true
	for _, p := range pts {
		if _, ok := display.AsTime(p.X); !ok {
			allTime = false
		}
		if _, ok := display.Numeric(p.X); !ok {
			allNum = false
		}
	}
	switch {
	case allTime:
		return true, func(v any) float64 { t, _ := display.AsTime(v); return float64(t.UnixMilli()) }
	case allNum:
		return true, func(v any) float64 { f, _ := display.Numeric(v); return f }
	}
	return false, nil
}

// maxTicks bounds the ticks of an axis whatever its values: a step that a
// float cannot add to its start (1e16 + 0.5) or a span past what a step
// list foresaw must not loop or allocate without end.
const maxTicks = 64

func xTicks(sample any, lo, hi float64, pos func(float64) float64) []tick {
	var out []tick
	if _, isTime := display.AsTime(sample); isTime {
		// In milliseconds, as floats: a time.Duration holds ~292 years, and
		// Kafka's timestamps span more (1816 to year 58000 are legal).
		span := hi - lo
		layout := "2006-01-02 15:04:05"
		if hi == lo {
			return []tick{{Pos: round1(pos(lo)), Label: time.UnixMilli(int64(lo)).UTC().Format(layout)}}
		}
		const ms, sec, min, hour, day = 1.0, 1e3, 60e3, 3600e3, 86400e3
		// A round step giving four to eight ticks.
		steps := []float64{ms, 10 * ms, 100 * ms, sec, 2 * sec, 5 * sec, 10 * sec, 15 * sec, 30 * sec, min, 2 * min, 5 * min,
			10 * min, 15 * min, 30 * min, hour, 2 * hour, 3 * hour, 6 * hour, 12 * hour, day}
		step := steps[len(steps)-1]
		for _, s := range steps {
			if span/s <= 7 {
				step = s
				break
			}
		}
		for span/step > 7 {
			step *= 2
		}
		if step >= 365*day {
			// Years: ticks on the 1st of January of round years (1, 2, 5
			// times a power of ten apart), as far apart as the span needs.
			years := span / (365.2425 * day)
			ystep := 1.0
		round:
			for p := 1.0; p < 1e9; p *= 10 {
				for _, m := range []float64{1, 2, 5} {
					if ystep = m * p; years/ystep <= 7 {
						break round
					}
				}
			}
			first := time.UnixMilli(int64(lo)).UTC().Year()
			y := int(math.Ceil(float64(first)/ystep) * ystep)
			for i := 0; i < maxTicks; i, y = i+1, y+int(ystep) {
				v := float64(time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli())
				if v > hi {
					break
				}
				if v >= lo {
					out = append(out, tick{Pos: round1(pos(v)), Label: strconv.Itoa(y)})
				}
			}
			return out
		}
		switch {
		case step >= day:
			layout = "2006-01-02"
		case span > 12*hour:
			layout = "01-02 15:04"
		case step >= min:
			layout = "15:04"
		case step >= sec:
			layout = "15:04:05"
		default:
			layout = "15:04:05.000"
		}
		for i, v := 0, math.Ceil(lo/step)*step; v <= hi && i < maxTicks; i, v = i+1, v+step {
			out = append(out, tick{Pos: round1(pos(v)), Label: time.UnixMilli(int64(v)).UTC().Format(layout)})
		}
		return out
	}
	tlo, thi, step := niceRange(lo, hi)
	if lo == hi {
		return []tick{{Pos: round1(pos(lo)), Label: formatNum(lo, 0)}}
	}
	for i, v := 0, tlo; v <= thi+step/2 && i < maxTicks; i, v = i+1, v+step {
		if v >= lo-step/1e6 && v <= hi+step/1e6 {
			out = append(out, tick{Pos: round1(pos(v)), Label: formatNum(v, step)})
		}
		if v+step == v {
			break // a step a float this large cannot add: one tick says it
		}
	}
	return out
}

// niceRange widens [lo, hi] to round ticks about five apart.
func niceRange(lo, hi float64) (float64, float64, float64) {
	if hi <= lo {
		hi = lo + 1
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag * 10
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if raw <= m*mag {
			step = m * mag
			break
		}
	}
	return math.Floor(lo/step+1e-9) * step, math.Ceil(hi/step-1e-9) * step, step
}

// formatNum formats a tick or a value; step gives the precision (0: as is).
func formatNum(v, step float64) string {
	if math.Abs(v) < 1e-12 {
		return "0"
	}
	a := math.Abs(v)
	if step >= 1 || (step == 0 && v == math.Trunc(v)) {
		switch {
		case a >= 1e9 && step >= 1e7:
			return trimZeros(strconv.FormatFloat(v/1e9, 'f', 2, 64)) + "G"
		case a >= 1e6 && step >= 1e4:
			return trimZeros(strconv.FormatFloat(v/1e6, 'f', 2, 64)) + "M"
		case a >= 1e4 && step >= 100:
			return trimZeros(strconv.FormatFloat(v/1e3, 'f', 1, 64)) + "k"
		}
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	if step == 0 {
		return display.Float(v)
	}
	dec := max(0, int(math.Ceil(-math.Log10(step)+1e-9)))
	return strconv.FormatFloat(v, 'f', dec, 64)
}

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

func longest(ss []string) int {
	n := 0
	for _, s := range ss {
		n = max(n, len([]rune(s)))
	}
	return n
}

func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// draw writes the layout as the notebooks' template did: grid and ticks,
// axes, bars or lines (with dots and tooltips), the legend and the labels.
func (c *layout) draw() template.HTML {
	s := newSVG(c.Width, c.Height, c.Label, true)
	for _, t := range c.YTicks {
		s.Line(c.Left, t.Pos, c.Right, t.Pos, "grid")
		s.Text(c.Left-6, t.Pos+4, "end", "", t.Label)
	}
	s.Line(c.Left, c.Zero, c.Right, c.Zero, "axis")
	s.Line(c.Left, c.Top, c.Left, c.Bottom, "axis")
	for _, t := range c.XTicks {
		s.Line(t.Pos, c.Bottom, t.Pos, c.Bottom+4, "axis")
		if c.RotateX {
			s.rotated(t.Pos, c.Bottom+12, -45, t.Label)
		} else {
			s.Text(t.Pos, c.Bottom+16, "middle", "", t.Label)
		}
	}
	for _, b := range c.Bars {
		s.filled(b.X, b.Y, b.W, b.H, b.Color, b.Tip)
	}
	for _, l := range c.Lines {
		s.path(l.Path, l.Color)
		if l.Dots {
			for _, p := range l.Points {
				s.dot(p.X, p.Y, l.Color, p.Tip)
			}
		}
	}
	for _, g := range c.Legend {
		s.filled(g.X, g.Y, 10, 10, g.Color, "")
		s.Text(g.X+14, g.Y+9, "start", "", g.Name)
	}
	s.Text(c.Left, c.Top-14, "start", "", c.YLabel)
	s.Text(c.Right, c.Height-4, "end", "", c.XLabel)
	return s.HTML()
}
