package html

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// This file holds the chart primitives of the HTML report: scales, ticks,
// line and area charts and horizontal bar charts, rendered as inline SVG.
// Every text that reaches the SVG (names, labels, titles) goes through
// template.HTMLEscapeString; numbers are formatted here.

// Okabe-Ito colours: told apart with every common colour-vision deficiency.
const (
	palBlack     = "#000000"
	palOrange    = "#E69F00"
	palSky       = "#56B4E9"
	palGreen     = "#009E73"
	palBlue      = "#0072B2"
	palVermilion = "#D55E00"
	palPurple    = "#CC79A7"
	palGrey      = "#999999"
)

// chartColours are given to series in turn (yellow is left out: too
// pale on white).
var chartColours = []string{palBlue, palOrange, palGreen, palPurple, palSky, palVermilion, palBlack, palGrey}

// chartDashes tell series apart without colour: solid, dashed, dotted, ...
var chartDashes = []string{"", "6 3", "2 2", "8 3 2 3", "1 3"}

// chartOutcomeColours are the outcomes' colours, in checks.Outcomes order (ok,
// conflict, throttled, error, unknown).
var chartOutcomeColours = []string{palGreen, palBlue, palOrange, palVermilion, palPurple}

// chartTick is one axis mark.
type chartTick struct {
	v     float64
	label string
}

// chartAxis is one axis' domain. With log set, values are drawn on a log10
// scale (min must then be positive). Ticks, when given, replace the
// automatic ones.
type chartAxis struct {
	label    string
	min, max float64
	log      bool
	ticks    []chartTick
}

// chartLine is one series of a line chart: a polyline, or with fill an
// area between base (zero when nil) and y.
type chartLine struct {
	name  string
	color string
	dash  string
	width float64
	fill  bool
	x, y  []float64
	base  []float64
	// tip is the hover text of the series (its name when empty).
	tip string
	// vals are the values the tooltip shows at each point (y when nil; a
	// stacked layer's own values).
	vals []float64
}

// chartRefLine is a horizontal reference line across the plot (a target).
type chartRefLine struct {
	y     float64
	label string
	color string
	dash  string
}

// lineChart is a chart of series over a shared x axis.
type lineChart struct {
	id    string
	title string
	// width and height are the drawing's size in pixels (the page scales it
	// down to fit).
	width, height float64
	x, y          chartAxis
	lines         []chartLine
	refs          []chartRefLine
	// bands shade stretches of the x axis (fault windows, html_faults.go).
	bands []chartBand
	// empty is the text shown when no series has a point.
	empty string
	// unit follows each value in the tooltip ("/s", " ms", "%"); xfmt
	// says how the tooltip names a point's x: "time" (seconds since time
	// zero: the charts over time share one axis and one crosshair), "pct"
	// (decades of a percentile spectrum), "logms" (log10 of ms).
	unit, xfmt string
}

// chartRefReach is how far above the data a reference line (a target) may
// be and still set the axis: the data must reach 1/chartRefReach of it.
// A target further up is drawn as a labelled marker at the plot's top
// edge, so the data keep the plot's height.
const chartRefReach = 2.0

const (
	// chartFullWidth is the width of a chart across the page; the page's
	// two-column grids take charts about half as wide, so text keeps about
	// the same size everywhere.
	chartFullWidth    = 1150.0
	chartFont         = 12.0 // px
	chartCharWidth    = 6.8  // a rough average glyph width at chartFont
	chartLegendRowH   = 18.0
	chartMarginLeft   = 64.0
	chartMarginRight  = 24.0
	chartMarginBottom = 44.0
)

// svgWriter builds an SVG document; every attribute value and text passes
// through svgEsc.
type svgWriter struct{ b strings.Builder }

func svgEsc(s string) string { return template.HTMLEscapeString(s) }

func (w *svgWriter) printf(format string, a ...any) { fmt.Fprintf(&w.b, format, a...) }

// svgNum formats a coordinate with at most two decimals.
func svgNum(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "0"
	}
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}

func (w *svgWriter) open(id, title string, width, height float64) {
	w.printf(`<svg class="chart" id="%s" viewBox="0 0 %s %s" width="%s" height="%s" role="img" aria-label="%s" font-size="%s">`,
		svgEsc(id), svgNum(width), svgNum(height), svgNum(width), svgNum(height), svgEsc(title), svgNum(chartFont))
	w.printf(`<title>%s</title>`, svgEsc(title))
}

// openChart is open with what the page's script reads: the plot's box and
// x domain, the tooltip's unit and how it names x.
func (w *svgWriter) openChart(c *lineChart, width, height, plotL, plotT, plotR, plotB float64, xa chartAxis) {
	w.printf(`<svg class="chart" id="%s" viewBox="0 0 %s %s" width="%s" height="%s" role="img" aria-label="%s" font-size="%s" data-plot="%s %s %s %s" data-x="%s %s" data-unit="%s" data-xfmt="%s">`,
		svgEsc(c.id), svgNum(width), svgNum(height), svgNum(width), svgNum(height), svgEsc(c.title), svgNum(chartFont),
		svgNum(plotL), svgNum(plotT), svgNum(plotR), svgNum(plotB), svgNum(xa.min), svgNum(xa.max), svgEsc(c.unit), svgEsc(c.xfmt))
	w.printf(`<title>%s</title>`, svgEsc(c.title))
}

func (w *svgWriter) close() template.HTML {
	w.b.WriteString(`</svg>`)
	return template.HTML(w.b.String()) // every piece was escaped as it was written
}

func (w *svgWriter) text(x, y float64, anchor, class, s string) {
	w.printf(`<text x="%s" y="%s" text-anchor="%s"`, svgNum(x), svgNum(y), anchor)
	if class != "" {
		w.printf(` class="%s"`, class)
	}
	w.printf(`>%s</text>`, svgEsc(s))
}

func (w *svgWriter) line(x1, y1, x2, y2 float64, stroke, dash string, width float64) {
	w.printf(`<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="%s"`, svgNum(x1), svgNum(y1), svgNum(x2), svgNum(y2), svgEsc(stroke), svgNum(width))
	if dash != "" {
		w.printf(` stroke-dasharray="%s"`, svgEsc(dash))
	}
	w.b.WriteString(`/>`)
}

// chartScale maps a domain onto a pixel range.
type chartScale struct {
	min, max float64
	lo, hi   float64 // pixels for min and max
	log      bool
}

func (s chartScale) at(v float64) float64 {
	mn, mx := s.min, s.max
	if s.log {
		v, mn, mx = math.Log10(math.Max(v, s.min)), math.Log10(mn), math.Log10(mx)
	}
	if mx == mn {
		return (s.lo + s.hi) / 2
	}
	p := s.lo + (v-mn)/(mx-mn)*(s.hi-s.lo)
	// keep wild values near the plot so the path stays drawable
	return math.Max(math.Min(p, math.Max(s.lo, s.hi)+2), math.Min(s.lo, s.hi)-2)
}

// chartNiceStep is a 1, 2 or 5 times a power of ten step that cuts span into
// about n parts.
func chartNiceStep(span float64, n int) float64 {
	if span <= 0 || n <= 0 {
		return 1
	}
	raw := span / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*p {
			return m * p
		}
	}
	return 10 * p
}

// chartLinearTicks returns round ticks covering [min, max].
func chartLinearTicks(min, max float64, n int) []chartTick {
	step := chartNiceStep(max-min, n)
	var out []chartTick
	first := math.Ceil(min/step - 1e-9)
	for i := 0.0; (first+i)*step <= max+step*1e-9 && i < 1000; i++ {
		v := (first + i) * step
		out = append(out, chartTick{v, chartTickLabel(v, step)})
	}
	return out
}

// chartNiceMax rounds max up to a tick of a scale from 0 with about n ticks.
func chartNiceMax(max float64, n int) float64 {
	if max <= 0 {
		return 1
	}
	step := chartNiceStep(max, n)
	return math.Ceil(max/step-1e-9) * step
}

// chartTickLabel formats a tick value with the decimals its step needs, and
// thousands as k.
func chartTickLabel(v, step float64) string {
	if math.Abs(v) < step*1e-6 {
		return "0"
	}
	if math.Abs(v) >= 10000 && math.Mod(v, 1000) == 0 {
		return strconv.FormatFloat(v/1000, 'f', -1, 64) + "k"
	}
	dec := 0
	if step < 1 {
		dec = int(math.Ceil(-math.Log10(step) - 1e-9))
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

// chartLogTicks returns 1-2-5 ticks over [min, max] (decades only when they
// span many of them).
func chartLogTicks(min, max float64) []chartTick {
	if min <= 0 || max <= min {
		return nil
	}
	lo, hi := math.Floor(math.Log10(min)), math.Ceil(math.Log10(max))
	mults := []float64{1, 2, 5}
	if hi-lo > 4 {
		mults = []float64{1}
	}
	var out []chartTick
	for e := lo; e <= hi; e++ {
		for _, m := range mults {
			v := m * math.Pow(10, e)
			if v < min*(1-1e-9) || v > max*(1+1e-9) {
				continue
			}
			out = append(out, chartTick{v, chartTickLabel(v, math.Min(v, math.Pow(10, e)))})
		}
	}
	return out
}

// chartLogRange widens [min, max] to whole 1-2-5 steps for a log axis.
func chartLogRange(min, max float64) (float64, float64) {
	down := func(v float64) float64 {
		p := math.Pow(10, math.Floor(math.Log10(v)))
		for _, m := range []float64{5, 2, 1} {
			if m*p <= v*(1+1e-9) {
				return m * p
			}
		}
		return p
	}
	up := func(v float64) float64 {
		p := math.Pow(10, math.Floor(math.Log10(v)))
		for _, m := range []float64{1, 2, 5, 10} {
			if m*p >= v*(1-1e-9) {
				return m * p
			}
		}
		return 10 * p
	}
	return down(min), up(max)
}

// chartLegendItem is one entry of a legend.
type chartLegendItem struct {
	name, color, dash string
	fill              bool
}

// chartLegendLayout places legend items in rows across width; it returns each
// item's position and the rows' total height.
func chartLegendLayout(items []chartLegendItem, left, width float64) ([][2]float64, float64) {
	pos := make([][2]float64, len(items))
	x, row := left, 0
	for i, it := range items {
		w := 26 + float64(len([]rune(it.name)))*chartCharWidth + 16
		if x > left && x+w > left+width {
			x, row = left, row+1
		}
		pos[i] = [2]float64{x, 6 + float64(row)*chartLegendRowH}
		x += w
	}
	if len(items) == 0 {
		return pos, 0
	}
	return pos, float64(row+1)*chartLegendRowH + 6
}

func (w *svgWriter) legend(items []chartLegendItem, pos [][2]float64, series int) {
	w.b.WriteString(`<g class="legend">`)
	for i, it := range items {
		x, y := pos[i][0], pos[i][1]
		if i < series { // a series' entry toggles it
			w.printf(`<g class="li" data-s="%d" role="button" tabindex="0" aria-label="show or hide %s"><rect x="%s" y="%s" width="%s" height="%s" fill="transparent"/>`, i, svgEsc(it.name), svgNum(x-2), svgNum(y), svgNum(26+float64(len([]rune(it.name)))*chartCharWidth), svgNum(chartLegendRowH-2))
		}
		if it.fill {
			w.printf(`<rect x="%s" y="%s" width="18" height="10" fill="%s" fill-opacity="0.75"/>`, svgNum(x), svgNum(y+2), svgEsc(it.color))
		} else {
			w.line(x, y+7, x+18, y+7, it.color, it.dash, 2.5)
		}
		w.text(x+24, y+11, "start", "", it.name)
		if i < series {
			w.b.WriteString(`</g>`)
		}
	}
	w.b.WriteString(`</g>`)
}

// render draws the chart.
func (c *lineChart) render() template.HTML {
	width, height := c.width, c.height
	if width == 0 {
		width = chartFullWidth
	}
	if height == 0 {
		height = 320
	}
	var items []chartLegendItem
	for _, l := range c.lines {
		items = append(items, chartLegendItem{l.name, l.color, l.dash, l.fill})
	}
	for _, r := range c.refs {
		items = append(items, chartLegendItem{r.label, r.color, r.dash, false})
	}
	if len(c.bands) > 0 {
		items = append(items, chartLegendItem{"fault windows", palFault, "", true})
	}
	pos, legendH := chartLegendLayout(items, chartMarginLeft, width-chartMarginLeft-chartMarginRight)
	top := legendH + 10
	plotL, plotR, plotT, plotB := chartMarginLeft, width-chartMarginRight, top, height-chartMarginBottom
	if plotB-plotT < 80 { // a long legend makes the chart taller, not the plot smaller
		height += 80 - (plotB - plotT)
		plotB = height - chartMarginBottom
	}

	xa, ya, ok := c.domains()
	w := &svgWriter{}
	w.openChart(c, width, height, plotL, plotT, plotR, plotB, xa)
	w.legend(items, pos, len(c.lines))
	if !ok {
		w.printf(`<rect x="%s" y="%s" width="%s" height="%s" fill="#f6f6f6" stroke="#ccc"/>`, svgNum(plotL), svgNum(plotT), svgNum(plotR-plotL), svgNum(plotB-plotT))
		empty := c.empty
		if empty == "" {
			empty = "no data"
		}
		w.text((plotL+plotR)/2, (plotT+plotB)/2, "middle", "muted", empty)
		return w.close()
	}
	xs := chartScale{xa.min, xa.max, plotL, plotR, xa.log}
	ys := chartScale{ya.min, ya.max, plotB, plotT, ya.log}

	// grid and y ticks
	yt := ya.ticks
	if yt == nil {
		if ya.log {
			yt = chartLogTicks(ya.min, ya.max)
		} else {
			yt = chartLinearTicks(ya.min, ya.max, 5)
		}
	}
	w.bands(c, xs, plotT, plotB)
	w.b.WriteString(`<g class="grid">`)
	for _, t := range yt {
		y := ys.at(t.v)
		w.line(plotL, y, plotR, y, "#e3e3e3", "", 1)
		w.text(plotL-6, y+4, "end", "", t.label)
	}
	xt := xa.ticks
	if xt == nil {
		xt = chartLinearTicks(xa.min, xa.max, int(math.Max(2, math.Min(10, (plotR-plotL)/80))))
	}
	for _, t := range xt {
		x := xs.at(t.v)
		w.line(x, plotT, x, plotB, "#efefef", "", 1)
		w.line(x, plotB, x, plotB+4, "#333", "", 1)
		w.text(x, plotB+17, "middle", "", t.label)
	}
	w.b.WriteString(`</g>`)

	// series: areas first, then lines on top
	w.b.WriteString(`<g class="series">`)
	for i, l := range c.lines {
		if l.fill {
			w.series(i, l, xs, ys)
		}
	}
	for i, l := range c.lines {
		if !l.fill {
			w.series(i, l, xs, ys)
		}
	}
	w.b.WriteString(`</g><g class="refs">`)
	offScale := 0
	for _, r := range c.refs {
		if !ya.log && r.y > ya.max {
			// far above the data: a marker at the top edge, not the axis
			y := plotT + 14 + 16*float64(offScale)
			offScale++
			x := plotR - 8
			w.printf(`<path class="offscale" d="M%s %s l-5 8 h10 z" fill="%s"/>`, svgNum(x), svgNum(y-12), svgEsc(r.color))
			w.line(x, y-4, x, y+2, r.color, "", 2)
			w.text(x-10, y, "end", "ref", r.label+" ↑ off scale")
			continue
		}
		y := ys.at(r.y)
		w.line(plotL, y, plotR, y, r.color, r.dash, 2)
		w.text(plotR-4, y-5, "end", "ref", r.label)
	}
	w.b.WriteString(`</g>`)

	// axes and their labels
	w.line(plotL, plotB, plotR, plotB, "#333", "", 1)
	w.line(plotL, plotT, plotL, plotB, "#333", "", 1)
	w.text((plotL+plotR)/2, height-8, "middle", "axis", xa.label)
	w.printf(`<text x="14" y="%s" text-anchor="middle" class="axis" transform="rotate(-90 14 %s)">%s</text>`,
		svgNum((plotT+plotB)/2), svgNum((plotT+plotB)/2), svgEsc(ya.label))
	return w.close()
}

// domains completes the axes' ranges from the data: x over the points, y
// from zero (or the smallest positive value on a log axis) to the largest
// value or reference line. ok is false when there is nothing to draw.
func (c *lineChart) domains() (xa, ya chartAxis, ok bool) {
	xa, ya = c.x, c.y
	xmin, xmax := math.Inf(1), math.Inf(-1)
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, l := range c.lines {
		for i := range l.x {
			if i >= len(l.y) || math.IsNaN(l.y[i]) {
				continue
			}
			ok = true
			xmin, xmax = math.Min(xmin, l.x[i]), math.Max(xmax, l.x[i])
			v := l.y[i]
			if ya.log && v <= 0 {
				continue
			}
			ymin, ymax = math.Min(ymin, v), math.Max(ymax, v)
		}
	}
	if !ok {
		return xa, ya, false
	}
	for _, r := range c.refs {
		if r.y <= ymax*chartRefReach {
			ymax = math.Max(ymax, r.y)
		}
	}
	if xa.min == 0 && xa.max == 0 {
		xa.min, xa.max = xmin, xmax
	}
	if xa.max <= xa.min {
		xa.max = xa.min + 1
	}
	if ya.log {
		if math.IsInf(ymin, 1) { // nothing positive
			ymin, ymax = 0.1, 1
		}
		if ya.min <= 0 {
			ya.min = ymin
		}
		if ya.max <= 0 {
			ya.max = ymax
		}
		ya.min, ya.max = chartLogRange(ya.min, math.Max(ya.max, ya.min*1.0001))
		return xa, ya, true
	}
	if ya.max == 0 {
		ya.max = chartNiceMax(ymax*1.04, 5)
	}
	return xa, ya, true
}

// svgPoints writes the coordinates of l's points (from i = 0 up), skipping
// NaN values.
func svgPoints(b *strings.Builder, xs, ys []float64, sx, sy chartScale, reverse bool) {
	n := len(xs)
	for k := 0; k < n; k++ {
		i := k
		if reverse {
			i = n - 1 - k
		}
		if i >= len(ys) || math.IsNaN(ys[i]) {
			continue
		}
		b.WriteString(svgNum(sx.at(xs[i])))
		b.WriteByte(',')
		b.WriteString(svgNum(sy.at(ys[i])))
		b.WriteByte(' ')
	}
}

// series draws one series in a group that carries its values for the
// page's script (tooltip, legend toggle).
func (w *svgWriter) series(i int, l chartLine, xs, ys chartScale) {
	vals := l.vals
	if vals == nil {
		vals = l.y
	}
	w.printf(`<g class="s" data-s="%d" data-name="%s" data-color="%s" data-xs="%s" data-v="%s">`,
		i, svgEsc(l.name), svgEsc(l.color), svgList(l.x), svgList(vals))
	if l.fill {
		w.area(l, xs, ys)
	} else {
		w.polyline(l, xs, ys)
	}
	w.b.WriteString(`</g>`)
}

// svgList is a space-separated list of values for the script (NaN as an
// empty point: "NaN").
func svgList(vs []float64) string {
	var b strings.Builder
	for i, v := range vs {
		if i > 0 {
			b.WriteByte(' ')
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			b.WriteString("NaN")
			continue
		}
		b.WriteString(strconv.FormatFloat(v, 'g', 6, 64))
	}
	return b.String()
}

func (w *svgWriter) polyline(l chartLine, xs, ys chartScale) {
	width := l.width
	if width == 0 {
		width = 2
	}
	var b strings.Builder
	svgPoints(&b, l.x, l.y, xs, ys, false)
	tip := l.tip
	if tip == "" {
		tip = l.name
	}
	w.printf(`<polyline fill="none" stroke="%s" stroke-width="%s" stroke-linejoin="round" points="%s"`, svgEsc(l.color), svgNum(width), strings.TrimSpace(b.String()))
	if l.dash != "" {
		w.printf(` stroke-dasharray="%s"`, svgEsc(l.dash))
	}
	w.printf(`><title>%s</title></polyline>`, svgEsc(tip))
}

func (w *svgWriter) area(l chartLine, xs, ys chartScale) {
	base := l.base
	if base == nil {
		base = make([]float64, len(l.x))
	}
	var b strings.Builder
	svgPoints(&b, l.x, l.y, xs, ys, false)
	svgPoints(&b, l.x, base, xs, ys, true)
	tip := l.tip
	if tip == "" {
		tip = l.name
	}
	w.printf(`<polygon fill="%s" fill-opacity="0.8" stroke="none" points="%s"><title>%s</title></polygon>`,
		svgEsc(l.color), strings.TrimSpace(b.String()), svgEsc(tip))
}

// chartBar is one bar of a bar chart.
type chartBar struct {
	label string
	value float64
	text  string // shown at the bar's end
	color string
	tip   string
}

// barChart is a horizontal bar chart, one bar per row, with an optional
// vertical reference line (the target).
type barChart struct {
	id, title string
	xLabel    string
	bars      []chartBar
	ref       float64
	refLabel  string
	format    func(float64) string // tick labels
	width     float64
}

// chartMaxBarLabel is how many characters of a bar's label are shown.
const chartMaxBarLabel = 30

func svgShorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func (c *barChart) render() template.HTML {
	width := c.width
	if width == 0 {
		width = chartFullWidth
	}
	labelW := 40.0
	for _, b := range c.bars {
		labelW = math.Max(labelW, float64(len([]rune(svgShorten(b.label, chartMaxBarLabel))))*chartCharWidth+12)
	}
	const rowH, barH, top = 24.0, 16.0, 12.0
	plotL, plotR := labelW, width-140 // room for the value text past the longest bar
	plotT := top
	plotB := plotT + rowH*float64(max(len(c.bars), 1))
	height := plotB + chartMarginBottom

	maxV := 0.0
	for _, b := range c.bars {
		maxV = math.Max(maxV, b.value)
	}
	if c.ref <= maxV*chartRefReach { // else the target is a marker at the edge
		maxV = math.Max(maxV, c.ref)
	}
	xs := chartScale{0, chartNiceMax(maxV*1.05, 10), plotL, plotR, false}
	w := &svgWriter{}
	w.printf(`<svg class="chart bars" id="%s" viewBox="0 0 %s %s" width="%s" height="%s" role="img" aria-label="%s" font-size="%s" data-plot="%s %s %s %s">`,
		svgEsc(c.id), svgNum(width), svgNum(height), svgNum(width), svgNum(height), svgEsc(c.title), svgNum(chartFont),
		svgNum(plotL), svgNum(plotT), svgNum(plotR), svgNum(plotB))
	w.printf(`<title>%s</title>`, svgEsc(c.title))
	format := c.format
	if format == nil {
		format = func(v float64) string { return chartTickLabel(v, chartNiceStep(xs.max, 5)) }
	}
	w.b.WriteString(`<g class="grid">`)
	for _, t := range chartLinearTicks(0, xs.max, 5) {
		x := xs.at(t.v)
		w.line(x, plotT, x, plotB, "#e3e3e3", "", 1)
		w.text(x, plotB+17, "middle", "", format(t.v))
	}
	w.b.WriteString(`</g><g class="series">`)
	for i, b := range c.bars {
		y := plotT + rowH*float64(i) + (rowH-barH)/2
		tip := b.tip
		if tip == "" {
			tip = b.label
		}
		w.text(plotL-8, y+barH-4, "end", "", svgShorten(b.label, chartMaxBarLabel))
		w.printf(`<rect x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s</title></rect>`,
			svgNum(plotL), svgNum(y), svgNum(math.Max(xs.at(b.value)-plotL, 0.5)), svgNum(barH), svgEsc(b.color), svgEsc(tip))
		w.text(xs.at(b.value)+6, y+barH-4, "start", "", b.text)
	}
	w.b.WriteString(`</g><g class="refs">`)
	switch {
	case c.ref > xs.max: // far beyond the bars: a marker at the right edge, under the axis
		y := plotB + 34
		w.printf(`<path class="offscale" d="M%s %s l-8 -5 v10 z" fill="%s"/>`, svgNum(width-4), svgNum(y-4), palBlack)
		w.text(width-16, y, "end", "ref", fmt.Sprintf("%s at %s → off scale", c.refLabel, format(c.ref)))
	case c.ref > 0:
		x := xs.at(c.ref)
		w.line(x, plotT-6, x, plotB, palBlack, "6 3", 2)
		w.text(x+4, plotT+2, "start", "ref", c.refLabel)
	}
	w.b.WriteString(`</g>`)
	w.line(plotL, plotB, plotR, plotB, "#333", "", 1)
	w.line(plotL, plotT, plotL, plotB, "#333", "", 1)
	w.text((plotL+plotR)/2, height-8, "middle", "axis", c.xLabel)
	return w.close()
}
