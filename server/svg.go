package server

import (
	"fmt"
	"html/template"
	"math"
	"strings"
	"time"
)

// The charts are SVG written here, sized by a viewBox so they scale to the
// page. Colours come from classes the stylesheet defines (no inline styles:
// the CSP forbids them). Every text is escaped.

type svg struct{ b strings.Builder }

func newSVG(w, h float64, title string) *svg {
	s := &svg{}
	fmt.Fprintf(&s.b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %g %g" role="img" aria-label="%s" class="chart">`, w, h, esc(title))
	fmt.Fprintf(&s.b, `<title>%s</title>`, esc(title))
	return s
}

func esc(s string) string { return template.HTMLEscapeString(s) }

func (s *svg) rect(x, y, w, h float64, class, title string) {
	if w <= 0 || h <= 0 {
		return
	}
	fmt.Fprintf(&s.b, `<rect x="%.2f" y="%.2f" width="%.2f" height="%.2f" class="%s">`, x, y, w, h, class)
	if title != "" {
		fmt.Fprintf(&s.b, `<title>%s</title>`, esc(title))
	}
	s.b.WriteString(`</rect>`)
}

func (s *svg) text(x, y float64, anchor, class, t string) {
	fmt.Fprintf(&s.b, `<text x="%.2f" y="%.2f" text-anchor="%s" class="%s">%s</text>`, x, y, anchor, class, esc(t))
}

func (s *svg) line(x1, y1, x2, y2 float64, class string) {
	fmt.Fprintf(&s.b, `<line x1="%.2f" y1="%.2f" x2="%.2f" y2="%.2f" class="%s"/>`, x1, y1, x2, y2, class)
}

func (s *svg) polyline(pts []string, class, title string) {
	fmt.Fprintf(&s.b, `<polyline points="%s" class="%s"><title>%s</title></polyline>`, strings.Join(pts, " "), class, esc(title))
}

func (s *svg) html() template.HTML {
	s.b.WriteString(`</svg>`)
	return template.HTML(s.b.String()) // every text above went through esc
}

const (
	chartW   = 720.0
	labelW   = 150.0
	noteW    = 130.0
	rowH     = 22.0
	seriesNo = 8 // colour classes s0..s7
)

// coverageSVG draws one row per partition: snapshotted offset ranges,
// lost ranges in red, over the range the newest snapshot saw.
func coverageSVG(topic string, parts []*partitionCoverage) template.HTML {
	h := rowH*float64(len(parts)) + 30
	s := newSVG(chartW, h, "offset coverage of "+topic)
	plotX, plotW := 50.0, chartW-50-110
	for i, c := range parts {
		y := float64(i)*rowH + 4
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for _, sp := range append(append([]span{}, c.Covered...), c.Lost...) {
			lo, hi = min(lo, sp.from), max(hi, sp.to)
		}
		if c.LogStart >= 0 {
			lo = min(lo, c.LogStart)
		}
		if c.HighWatermark > 0 {
			hi = max(hi, c.HighWatermark-1)
		}
		s.text(plotX-6, y+rowH*0.6, "end", "label", fmt.Sprintf("p%d", c.Partition))
		if lo > hi {
			s.text(plotX, y+rowH*0.6, "start", "muted", "nothing dumped")
			continue
		}
		scale := plotW / float64(hi-lo+1)
		x := func(o int64) float64 { return plotX + float64(o-lo)*scale }
		s.rect(plotX, y+3, plotW, rowH-8, "track", fmt.Sprintf("p%d: offsets %d..%d", c.Partition, lo, hi))
		for _, sp := range c.Covered {
			s.rect(x(sp.from), y+3, math.Max(x(sp.to+1)-x(sp.from), 1), rowH-8, "covered",
				fmt.Sprintf("p%d: snapshotted %d..%d", c.Partition, sp.from, sp.to))
		}
		for _, sp := range c.Lost {
			s.rect(x(sp.from), y+3, math.Max(x(sp.to+1)-x(sp.from), 2), rowH-8, "lost",
				fmt.Sprintf("p%d: lost %d..%d (%d offsets deleted before they were dumped)", c.Partition, sp.from, sp.to, sp.to-sp.from+1))
		}
		s.text(plotX+plotW+6, y+rowH*0.6, "start", "muted", fmt.Sprintf("%s–%s", short(lo), short(hi)))
	}
	ly := rowH*float64(len(parts)) + 18
	s.rect(plotX, ly-9, 12, 10, "covered", "")
	s.text(plotX+16, ly, "start", "muted", "snapshotted")
	s.rect(plotX+110, ly-9, 12, 10, "lost", "")
	s.text(plotX+126, ly, "start", "muted", "lost")
	s.rect(plotX+180, ly-9, 12, 10, "track", "")
	s.text(plotX+196, ly, "start", "muted", "not dumped")
	return s.html()
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

// barsSVG draws horizontal bars, one per row (long label lists read well
// on a phone), with an optional reference line such as the fair share.
func barsSVG(title string, bars []bar, ref float64, refLabel string) template.HTML {
	h := rowH*float64(len(bars)) + 8
	if ref > 0 {
		h += 22 // the reference line's label
	}
	s := newSVG(chartW, h, title)
	plotX, plotW := labelW, chartW-labelW-noteW
	top := ref
	for _, b := range bars {
		top = math.Max(top, b.Value)
	}
	if top <= 0 {
		top = 1
	}
	x := func(v float64) float64 { return plotX + v/top*plotW }
	for i, b := range bars {
		y := float64(i)*rowH + 4
		s.text(plotX-6, y+rowH*0.6, "end", "label", clip(b.Label, 22))
		s.rect(plotX, y+3, x(b.Value)-plotX, rowH-8, "bar", b.Label+": "+b.Note)
		s.text(x(b.Value)+4, y+rowH*0.6, "start", "muted", b.Note)
	}
	bottom := rowH*float64(len(bars)) + 4
	if ref > 0 {
		s.line(x(ref), 2, x(ref), bottom, "ref")
		s.text(x(ref), bottom+14, "middle", "ref-label", refLabel)
	}
	return s.html()
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// timeSVG draws one line per series over time, with a legend.
func timeSVG(title, unit string, ss []series) template.HTML {
	const padL, padR, padT, padB, perRow, shown = 56.0, 12.0, 22.0, 44.0, 8, 24
	legendRows := (min(len(ss), shown+1) + perRow - 1) / perRow
	h := 230 + 14*float64(max(legendRows-1, 0))
	s := newSVG(chartW, h, title)
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
	plotW, plotH := chartW-padL-padR, 230-padT-padB
	if t0.IsZero() {
		s.text(chartW/2, h/2, "middle", "muted", "no records with a timestamp")
		return s.html()
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
	s.line(padL, padT+plotH, padL+plotW, padT+plotH, "axis")
	s.line(padL, padT, padL, padT+plotH, "axis")
	s.text(padL-4, padT+8, "end", "muted", number(top))
	s.text(padL-4, padT+plotH, "end", "muted", "0")
	s.text(padL, padT+plotH+14, "start", "muted", t0.UTC().Format("2006-01-02 15:04"))
	s.text(padL+plotW, padT+plotH+14, "end", "muted", t1.UTC().Format("2006-01-02 15:04 MST"))
	for i, se := range ss {
		class := fmt.Sprintf("line s%d", i%seriesNo)
		pts := make([]string, len(se.Points))
		for j, p := range se.Points {
			pts[j] = fmt.Sprintf("%.1f,%.1f", x(p.T), y(p.V))
		}
		if len(pts) == 1 { // a lone point draws as a short tick
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(se.Points[0].T)+2, y(se.Points[0].V)))
		}
		s.polyline(pts, class, se.Name)
	}
	// Legend, wrapping after a row's worth.
	lx, ly := padL, padT+plotH+32
	for i, se := range ss {
		if i > 0 && i%perRow == 0 {
			lx, ly = padL, ly+14
		}
		if i == shown {
			s.text(lx, ly, "start", "muted", fmt.Sprintf("+%d more", len(ss)-i))
			break
		}
		s.rect(lx, ly-9, 12, 10, fmt.Sprintf("sw s%d", i%seriesNo), "")
		s.text(lx+16, ly, "start", "muted", clip(se.Name, 10))
		lx += 80
	}
	s.text(chartW-padR, 12, "end", "muted", unit)
	return s.html()
}

// silence is a silent stretch of one partition, marked on the heat strip.
type silence struct {
	Series   string // the series' name, e.g. "partition 3"
	From, To time.Time
	Note     string
}

// heatSVG draws a heat strip: one row per series (a partition), one cell
// per time bucket, shaded by how many records the bucket holds against the
// busiest bucket; a bucket with none is drawn as silent, and each silent
// stretch the report found is outlined with its length. It stays readable
// with 6 partitions or 24, where as many lines would be a tangle.
func heatSVG(title, unit string, step time.Duration, ss []series, silences []silence) template.HTML {
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
	plotW, plotH := chartW-padL-padR, rowH*float64(len(ss))
	h := padT + plotH + 44
	s := newSVG(chartW, h, title)
	if t0.IsZero() || step <= 0 {
		s.text(chartW/2, h/2, "middle", "muted", "no records with a timestamp")
		return s.html()
	}
	buckets := int(t1.Sub(t0)/step) + 1
	cellW := plotW / float64(buckets)
	x := func(t time.Time) float64 { return padL + t.Sub(t0).Seconds()/step.Seconds()*cellW }
	rowOf := map[string]int{}
	for i, se := range ss {
		rowOf[se.Name] = i
		y := padT + float64(i)*rowH
		s.text(padL-6, y+rowH*0.75, "end", "label", clip(se.Name, 14))
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
			s.rect(padL+float64(b)*cellW, y+1, cellW+0.05, rowH-2, class,
				fmt.Sprintf("%s, %s: %s %s", se.Name, at.UTC().Format("2006-01-02 15:04"), number(v), unit))
		}
	}
	for _, si := range silences {
		i, ok := rowOf[si.Series]
		if !ok {
			continue
		}
		y := padT + float64(i)*rowH
		x0, x1 := math.Max(x(si.From), padL), math.Min(x(si.To), padL+plotW)
		s.rect(x0, y, math.Max(x1-x0, 2), rowH, "silence", si.Note)
	}
	s.text(padL, padT+plotH+14, "start", "muted", t0.UTC().Format("2006-01-02 15:04"))
	s.text(padL+plotW, padT+plotH+14, "end", "muted", t1.Add(step).UTC().Format("2006-01-02 15:04 MST"))
	ly := padT + plotH + 34
	s.rect(padL, ly-9, 12, 10, "heat silent", "")
	s.text(padL+16, ly, "start", "muted", "no records")
	s.rect(padL+96, ly-9, 12, 10, "silence", "")
	s.text(padL+112, ly, "start", "muted", "silent stretch")
	lx := padL + 220
	s.text(lx, ly, "start", "muted", "fewer")
	for l := 1; l <= levels; l++ {
		s.rect(lx+36+float64(l-1)*14, ly-9, 12, 10, fmt.Sprintf("heat h%d", l), "")
	}
	s.text(lx+40+levels*14, ly, "start", "muted", "more records (up to "+number(top)+" "+unit+")")
	s.text(chartW-padR, 12, "end", "muted", unit)
	return s.html()
}
