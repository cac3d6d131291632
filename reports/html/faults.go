package html

import (
	"fmt"

	"github.com/stormcheck/stormcheck/reports"
)

// chartBand is a shaded stretch of a time chart's x axis: a fault window.
type chartBand struct {
	from, to float64 // seconds since time zero
	label    string
}

// palFault shades fault windows.
const palFault = "#f4c7c3"

// withFaultBands shades c (a chart over seconds since time zero) with the
// fault windows fs and returns it.
func withFaultBands(c *lineChart, fs []reports.FaultWindow) *lineChart {
	for _, f := range fs {
		c.bands = append(c.bands, chartBand{from: f.From.Seconds(), to: f.To.Seconds(),
			label: fmt.Sprintf("fault %s (%s) +%s..+%s", f.Fault, f.Kind, reports.Secs(f.From), reports.Secs(f.To))})
	}
	return c
}

// bands draws c's bands inside the plot, under everything else; each has
// its window as a tooltip.
func (w *svgWriter) bands(c *lineChart, xs chartScale, plotT, plotB float64) {
	if len(c.bands) == 0 {
		return
	}
	w.b.WriteString(`<g class="faults">`)
	for _, b := range c.bands {
		from, to := max(b.from, xs.min), min(b.to, xs.max)
		if to <= from {
			continue
		}
		x0, x1 := xs.at(from), xs.at(to)
		w.printf(`<rect x="%s" y="%s" width="%s" height="%s" fill="%s" fill-opacity="0.55"><title>%s</title></rect>`,
			svgNum(x0), svgNum(plotT), svgNum(max(x1-x0, 1)), svgNum(plotB-plotT), palFault, svgEsc(b.label))
	}
	w.b.WriteString(`</g>`)
}
