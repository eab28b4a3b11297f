package chart

import (
	"fmt"
	"html/template"
	"math"
	"strings"
	"time"

	"github.com/topicsnap/topicsnap/internal/display"
)

// SVG writes one chart, sized by a viewBox so it scales to the page.
// Every text and attribute it is given is escaped.
type SVG struct{ b strings.Builder }

// New starts a chart w by h, named title (its accessible name).
func New(w, h float64, title string) *SVG { return newSVG(w, h, title, false) }

// newSVG starts a chart; sized, it also says its width and height (a
// notebook's chart keeps its size on a wide page).
func newSVG(w, h float64, title string, sized bool) *SVG {
	s := &SVG{}
	size := ""
	if sized {
		size = fmt.Sprintf(` width="%g" height="%g"`, w, h)
	}
	fmt.Fprintf(&s.b, `<svg class="chart" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %g %g"%s role="img" aria-label="%s">`, w, h, size, esc(title))
	fmt.Fprintf(&s.b, `<title>%s</title>`, esc(title))
	return s
}

func esc(s string) string { return template.HTMLEscapeString(s) }

// Rect draws a rectangle of a class with a tooltip (none when empty); an
// empty one is not drawn.
func (s *SVG) Rect(x, y, w, h float64, class, title string) {
	if w <= 0 || h <= 0 {
		return
	}
	fmt.Fprintf(&s.b, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" class="%s">`, x, y, w, h, esc(class))
	if title != "" {
		fmt.Fprintf(&s.b, `<title>%s</title>`, esc(title))
	}
	s.b.WriteString(`</rect>`)
}

// Text writes t at x, y, anchored start, middle or end.
func (s *SVG) Text(x, y float64, anchor, class, t string) {
	fmt.Fprintf(&s.b, `<text x="%.2f" y="%.2f" text-anchor="%s" class="%s">%s</text>`, x, y, esc(anchor), esc(class), esc(t))
}

// Line draws a line of a class.
func (s *SVG) Line(x1, y1, x2, y2 float64, class string) {
	fmt.Fprintf(&s.b, `<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" class="%s"/>`, x1, y1, x2, y2, esc(class))
}

// Polyline draws a line through pts ("x,y" each) with a tooltip.
func (s *SVG) Polyline(pts []string, class, title string) {
	fmt.Fprintf(&s.b, `<polyline points="%s" class="%s"><title>%s</title></polyline>`, esc(strings.Join(pts, " ")), esc(class), esc(title))
}

// filled draws a rectangle of a colour (an XY chart's series).
func (s *SVG) filled(x, y, w, h float64, color, title string) {
	fmt.Fprintf(&s.b, `<rect x="%g" y="%g" width="%g" height="%g" fill="%s">`, x, y, w, h, esc(color))
	if title != "" {
		fmt.Fprintf(&s.b, `<title>%s</title>`, esc(title))
	}
	s.b.WriteString(`</rect>`)
}

// path draws a line of a colour through d (M x y L x y ...).
func (s *SVG) path(d, color string) {
	fmt.Fprintf(&s.b, `<path d="%s" fill="none" stroke="%s" stroke-width="2"/>`, esc(d), esc(color))
}

// dot draws a point of a line with its tooltip.
func (s *SVG) dot(x, y float64, color, title string) {
	fmt.Fprintf(&s.b, `<circle cx="%g" cy="%g" r="3" fill="%s"><title>%s</title></circle>`, x, y, esc(color), esc(title))
}

// rotated writes t at x, y turned by deg, anchored at its end (an x label
// that would not fit level).
func (s *SVG) rotated(x, y, deg float64, t string) {
	fmt.Fprintf(&s.b, `<text x="%g" y="%g" text-anchor="end" transform="rotate(%g %g %g)">%s</text>`, x, y, deg, x, y, esc(t))
}

// HTML ends the chart and returns it for a template.
func (s *SVG) HTML() template.HTML {
	s.b.WriteString(`</svg>`)
	return template.HTML(s.b.String()) // every text above went through esc
}

// Sizes of the pages' charts.
const (
	Width         = 720.0
	labelW        = 150.0
	noteW         = 130.0
	RowH          = 22.0 // a row of a bar chart, a coverage or a timeline
	SeriesClasses = 8    // colour classes s0..s7
)

// Coverage draws one row per partition: snapshotted offset ranges,
// lost ranges in red, over the range the newest snapshot saw.
func Coverage(topic string, parts []Partition) template.HTML {
	h := RowH*float64(len(parts)) + 30
	s := New(Width, h, "offset coverage of "+topic)
	plotX, plotW := 50.0, Width-50-110
	for i, c := range parts {
		y := float64(i)*RowH + 4
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for _, sp := range append(append([]Span{}, c.Covered...), c.Lost...) {
			lo, hi = min(lo, sp.From), max(hi, sp.To)
		}
		if c.LogStart >= 0 {
			lo = min(lo, c.LogStart)
		}
		if c.HighWatermark > 0 {
			hi = max(hi, c.HighWatermark-1)
		}
		s.Text(plotX-6, y+RowH*0.6, "end", "label", fmt.Sprintf("p%d", c.Partition))
		if lo > hi {
			s.Text(plotX, y+RowH*0.6, "start", "muted", "nothing dumped")
			continue
		}
		scale := plotW / float64(hi-lo+1)
		x := func(o int64) float64 { return plotX + float64(o-lo)*scale }
		s.Rect(plotX, y+3, plotW, RowH-8, "track", fmt.Sprintf("p%d: offsets %d..%d", c.Partition, lo, hi))
		for _, sp := range c.Covered {
			s.Rect(x(sp.From), y+3, math.Max(x(sp.To+1)-x(sp.From), 1), RowH-8, "covered",
				fmt.Sprintf("p%d: snapshotted %d..%d", c.Partition, sp.From, sp.To))
		}
		for _, sp := range c.Lost {
			s.Rect(x(sp.From), y+3, math.Max(x(sp.To+1)-x(sp.From), 2), RowH-8, "lost",
				fmt.Sprintf("p%d: lost %d..%d (%d offsets deleted before they were dumped)", c.Partition, sp.From, sp.To, sp.To-sp.From+1))
		}
		s.Text(plotX+plotW+6, y+RowH*0.6, "start", "muted", fmt.Sprintf("%s–%s", short(lo), short(hi)))
	}
	ly := RowH*float64(len(parts)) + 18
	s.Rect(plotX, ly-9, 12, 10, "covered", "")
	s.Text(plotX+16, ly, "start", "muted", "snapshotted")
	s.Rect(plotX+110, ly-9, 12, 10, "lost", "")
	s.Text(plotX+126, ly, "start", "muted", "lost")
	s.Rect(plotX+180, ly-9, 12, 10, "track", "")
	s.Text(plotX+196, ly, "start", "muted", "not dumped")
	return s.HTML()
}

// short writes an offset compactly: 1234567 is 1.23M.
func short(n int64) string {
	f := float64(n)
	switch a := math.Abs(f); {
	case a >= 1e9:
		return fmt.Sprintf("%.3gG", f/1e9)
	case a >= 1e6:
		return fmt.Sprintf("%.3gM", f/1e6)
	case a >= 1e4:
		return fmt.Sprintf("%.3gk", f/1e3)
	}
	return fmt.Sprint(n)
}

// Bars draws horizontal bars, one per row (long label lists read well
// on a phone), with an optional reference line such as the fair share.
func Bars(title string, bars []Bar, ref float64, refLabel string) template.HTML {
	more := 0
	if len(bars) > MaxBars {
		bars, more = bars[:MaxBars], len(bars)-MaxBars
	}
	h := RowH*float64(len(bars)) + 8
	if more > 0 {
		h += RowH
	}
	if ref > 0 {
		h += 22 // the reference line's label
	}
	s := New(Width, h, title)
	plotX, plotW := labelW, Width-labelW-noteW
	top := ref
	for _, b := range bars {
		top = math.Max(top, b.Value)
	}
	if top <= 0 {
		top = 1
	}
	x := func(v float64) float64 { return plotX + v/top*plotW }
	for i, b := range bars {
		y := float64(i)*RowH + 4
		s.Text(plotX-6, y+RowH*0.6, "end", "label", Clip(b.Label, 22))
		s.Rect(plotX, y+3, x(b.Value)-plotX, RowH-8, "bar", b.Label+": "+b.Note)
		s.Text(x(b.Value)+4, y+RowH*0.6, "start", "muted", b.Note)
	}
	bottom := RowH*float64(len(bars)) + 4
	if more > 0 {
		s.Text(plotX, bottom+RowH*0.6, "start", "muted", fmt.Sprintf("+%d more not drawn (a chart draws %d bars)", more, MaxBars))
		bottom += RowH
	}
	if ref > 0 {
		s.Line(x(ref), 2, x(ref), bottom, "ref")
		s.Text(x(ref), bottom+14, "middle", "ref-label", refLabel)
	}
	return s.HTML()
}

// Clip cuts s to n characters, marked with … when cut.
func Clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Time draws one line per series over time, with a legend.
func Time(title, unit string, ss []Series) template.HTML {
	const padL, padR, padT, padB, perRow, shown = 56.0, 12.0, 22.0, 44.0, 8, 24
	ss, stride := thin(ss)
	legendRows := (min(len(ss), shown+1) + perRow - 1) / perRow
	h := 230 + 14*float64(max(legendRows-1, 0))
	s := New(Width, h, title)
	var t0, t1 time.Time
	top := 0.0
	for _, se := range ss {
		for _, p := range se.Points {
			if t0.IsZero() || p.T.Before(t0) {
				t0 = p.T
			}
			if p.T.After(t1) {
				t1 = p.T
			}
			top = math.Max(top, p.V)
		}
	}
	plotW, plotH := Width-padL-padR, 230-padT-padB
	if t0.IsZero() {
		s.Text(Width/2, h/2, "middle", "muted", "no records with a timestamp")
		return s.HTML()
	}
	if top <= 0 {
		top = 1
	}
	span := t1.Sub(t0).Seconds()
	x := func(t time.Time) float64 {
		if span <= 0 {
			return padL + plotW/2
		}
		return padL + t.Sub(t0).Seconds()/span*plotW
	}
	y := func(v float64) float64 { return padT + plotH - v/top*plotH }
	s.Line(padL, padT+plotH, padL+plotW, padT+plotH, "axis")
	s.Line(padL, padT, padL, padT+plotH, "axis")
	s.Text(padL-4, padT+8, "end", "muted", display.Number(top))
	s.Text(padL-4, padT+plotH, "end", "muted", "0")
	s.Text(padL, padT+plotH+14, "start", "muted", t0.UTC().Format("2006-01-02 15:04"))
	s.Text(padL+plotW, padT+plotH+14, "end", "muted", t1.UTC().Format("2006-01-02 15:04 MST"))
	for i, se := range ss {
		class := fmt.Sprintf("line s%d", i%SeriesClasses)
		pts := make([]string, len(se.Points))
		for j, p := range se.Points {
			pts[j] = fmt.Sprintf("%.1f,%.1f", x(p.T), y(p.V))
		}
		if len(pts) == 1 { // a lone point draws as a short tick
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(se.Points[0].T)+2, y(se.Points[0].V)))
		}
		s.Polyline(pts, class, se.Name)
	}
	// Legend, wrapping after a row's worth.
	lx, ly := padL, padT+plotH+32
	for i, se := range ss {
		if i > 0 && i%perRow == 0 {
			lx, ly = padL, ly+14
		}
		if i == shown {
			s.Text(lx, ly, "start", "muted", fmt.Sprintf("+%d more", len(ss)-i))
			break
		}
		s.Rect(lx, ly-9, 12, 10, fmt.Sprintf("sw s%d", i%SeriesClasses), "")
		s.Text(lx+16, ly, "start", "muted", Clip(se.Name, 10))
		lx += 80
	}
	s.Text(Width-padR, 12, "end", "muted", unit)
	if stride > 1 {
		s.Text(padL+4, 12, "start", "muted", fmt.Sprintf("1 point in %d drawn (a chart draws %d)", stride, MaxPoints))
	}
	return s.HTML()
}

// thin keeps every stride-th point of each series (and its last) when the
// series hold more than MaxPoints in all; stride 1 keeps them all.
func thin(ss []Series) ([]Series, int) {
	n := 0
	for _, se := range ss {
		n += len(se.Points)
	}
	if n <= MaxPoints {
		return ss, 1
	}
	stride := (n + MaxPoints - 1) / MaxPoints
	out := make([]Series, len(ss))
	for i, se := range ss {
		out[i].Name = se.Name
		for j, p := range se.Points {
			if j%stride == 0 || j == len(se.Points)-1 {
				out[i].Points = append(out[i].Points, p)
			}
		}
	}
	return out, stride
}

// Silence is a silent stretch of one partition, marked on the heat strip.
type Silence struct {
	Series   string // the series' name, e.g. "partition 3"
	From, To time.Time
	Note     string
}

// Heat draws a heat strip: one row per series (a partition), one cell
// per time bucket, shaded by how many records the bucket holds against the
// busiest bucket; a bucket with none is drawn as silent, and each silent
// stretch the report found is outlined with its length. It stays readable
// with 6 partitions or 24, where as many lines would be a tangle.
func Heat(title, unit string, step time.Duration, ss []Series, silences []Silence) template.HTML {
	const padL, padR, padT, rowH, levels = 84.0, 12.0, 22.0, 14.0, 4
	var t0, t1 time.Time
	top := 0.0
	for _, se := range ss {
		for _, p := range se.Points {
			if t0.IsZero() || p.T.Before(t0) {
				t0 = p.T
			}
			if p.T.After(t1) {
				t1 = p.T
			}
			top = math.Max(top, p.V)
		}
	}
	plotW, plotH := Width-padL-padR, rowH*float64(len(ss))
	h := padT + plotH + 44
	s := New(Width, h, title)
	if t0.IsZero() || step <= 0 {
		s.Text(Width/2, h/2, "middle", "muted", "no records with a timestamp")
		return s.HTML()
	}
	buckets := int(t1.Sub(t0)/step) + 1
	merged := time.Duration(1)
	for len(ss)*buckets > MaxPoints && buckets > 1 { // bounded: wider buckets
		step, merged = step*2, merged*2
		buckets = int(t1.Sub(t0)/step) + 1
	}
	cellW := plotW / float64(buckets)
	x := func(t time.Time) float64 { return padL + t.Sub(t0).Seconds()/step.Seconds()*cellW }
	rowOf := map[string]int{}
	for i, se := range ss {
		rowOf[se.Name] = i
		y := padT + float64(i)*rowH
		s.Text(padL-6, y+rowH*0.75, "end", "label", Clip(se.Name, 14))
		vals := make([]float64, buckets)
		for _, p := range se.Points {
			if b := int(p.T.Sub(t0) / step); b >= 0 && b < buckets {
				vals[b] += p.V
			}
		}
		for b, v := range vals {
			class := "heat silent"
			if v > 0 {
				class = fmt.Sprintf("heat h%d", min(levels, 1+int(v/top*levels)))
				if v >= top {
					class = fmt.Sprintf("heat h%d", levels)
				}
			}
			at := t0.Add(time.Duration(b) * step)
			s.Rect(padL+float64(b)*cellW, y+1, cellW+0.05, rowH-2, class,
				fmt.Sprintf("%s, %s: %s %s", se.Name, at.UTC().Format("2006-01-02 15:04"), display.Number(v), unit))
		}
	}
	for _, si := range silences {
		i, ok := rowOf[si.Series]
		if !ok {
			continue
		}
		y := padT + float64(i)*rowH
		x0, x1 := math.Max(x(si.From), padL), math.Min(x(si.To), padL+plotW)
		s.Rect(x0, y, math.Max(x1-x0, 2), rowH, "silence", si.Note)
	}
	s.Text(padL, padT+plotH+14, "start", "muted", t0.UTC().Format("2006-01-02 15:04"))
	s.Text(padL+plotW, padT+plotH+14, "end", "muted", t1.Add(step).UTC().Format("2006-01-02 15:04 MST"))
	ly := padT + plotH + 34
	s.Rect(padL, ly-9, 12, 10, "heat silent", "")
	s.Text(padL+16, ly, "start", "muted", "no records")
	s.Rect(padL+96, ly-9, 12, 10, "silence", "")
	s.Text(padL+112, ly, "start", "muted", "silent stretch")
	lx := padL + 220
	s.Text(lx, ly, "start", "muted", "fewer")
	for l := 1; l <= levels; l++ {
		s.Rect(lx+36+float64(l-1)*14, ly-9, 12, 10, fmt.Sprintf("heat h%d", l), "")
	}
	s.Text(lx+40+levels*14, ly, "start", "muted", "more records (up to "+display.Number(top)+" "+unit+")")
	s.Text(Width-padR, 12, "end", "muted", unit)
	if merged > 1 {
		s.Text(padL, 12, "start", "muted", fmt.Sprintf("%d buckets to a cell (a chart draws %d cells)", merged, MaxPoints))
	}
	return s.HTML()
}
