package html

import (
	"strings"
	"testing"
)

// The y axis fits the data: a target far above them (more than
// chartRefReach times their top) is a labelled marker at the plot's top
// edge, and the axis ends just above the data; a target within reach stays
// a line on the axis.
func TestChartScaleFitsTheData(t *testing.T) {
	data := chartLine{name: "ops", color: palBlue, x: []float64{0.5, 1.5, 2.5}, y: []float64{100, 150, 120}}
	for _, c := range []struct {
		target       float64
		maxLo, maxHi float64
		offScale     bool
	}{
		{2000, 156, 200, true}, // 100/s of traffic under a 2,000/s target
		{301, 156, 200, true},
		{250, 250, 300, false},
		{140, 156, 200, false},
	} {
		ch := &lineChart{id: "c", title: "t", x: chartAxis{min: 0, max: 3}, lines: []chartLine{data},
			refs: []chartRefLine{{y: c.target, label: "target", color: palBlack, dash: "8 4"}}}
		_, ya, ok := ch.domains()
		if !ok || ya.max < c.maxLo || ya.max > c.maxHi {
			t.Errorf("target %v: y axis to %v, want %v..%v", c.target, ya.max, c.maxLo, c.maxHi)
		}
		svg := string(ch.render())
		if got := strings.Contains(svg, "target ↑ off scale"); got != c.offScale {
			t.Errorf("target %v: off-scale marker %v, want %v", c.target, got, c.offScale)
		}
		refs := svg[strings.Index(svg, `<g class="refs">`):]
		refs = refs[:strings.Index(refs, "</g>")]
		if across := strings.Contains(refs, `<line x1="64"`); across == c.offScale {
			t.Errorf("target %v: drawn as a line across the plot %v, off scale %v", c.target, across, c.offScale)
		}
		// the data's top sits in the top part of the plot
		if fill := 150 / ya.max; fill < 0.5 {
			t.Errorf("target %v: the data reach %.0f%% of the axis", c.target, 100*fill)
		}
	}

	// the bar chart's target (100% utilisation) likewise
	bc := &barChart{id: "u", title: "t", ref: 1, refLabel: "target", bars: []chartBar{{label: "p0", value: 0.076, color: palBlue}, {label: "p1", value: 0.008, color: palBlue}}}
	if svg := string(bc.render()); !strings.Contains(svg, "off scale") || strings.Contains(svg, `stroke-dasharray="6 3"`) {
		t.Errorf("a target 13 times the busiest bar is not off scale:\n%s", svg)
	}
	bc.bars[0].value = 0.8
	if svg := string(bc.render()); strings.Contains(svg, "off scale") || !strings.Contains(svg, `stroke-dasharray="6 3"`) {
		t.Errorf("a target within reach is off scale:\n%s", svg)
	}
}
