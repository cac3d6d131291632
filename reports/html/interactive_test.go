package html

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/internal/browser"
	"github.com/stormcheck/stormcheck/reports/text"
)

// chartFill is how one chart's data sit in its plot, as Chromium rendered
// them: fill is the share of the plot's height (of its width for a bar
// chart) up to the data's highest point.
type chartFill struct {
	ID      string  `json:"id"`
	Fill    float64 `json:"fill"`
	Bars    bool    `json:"bars"`
	Series  int     `json:"series"`
	OffText string  `json:"off"`
}

// chartFillScript measures every chart's data against its plot, in the
// SVG's own coordinates: the bounding box of the series (not the target
// lines, not the grid) against data-plot.
const chartFillScript = `Array.from(document.querySelectorAll("svg.chart[data-plot]")).map(svg => {
  const p = svg.getAttribute("data-plot").split(" ").map(Number);
  const bars = svg.classList.contains("bars");
  const parts = Array.from(svg.querySelectorAll(bars ? "g.series rect" : "g.series g.s"));
  let top = Infinity, right = -Infinity;
  for (const el of parts) { const b = el.getBBox(); top = Math.min(top, b.y); right = Math.max(right, b.x + b.width); }
  const fill = bars ? (right - p[0]) / (p[2] - p[0]) : (p[3] - top) / (p[3] - p[1]);
  const off = Array.from(svg.querySelectorAll("g.refs text")).map(t => t.textContent).filter(t => t.includes("off scale")).join("|");
  return {id: svg.id, fill: parts.length ? fill : -1, bars: bars, series: parts.length, off: off};
})`

// TestHTMLReportInteractive checks in a real headless Chromium, on a 1280
// x 800 screen, what a reader of the fixture run's report sees: every
// failed check and threshold within the first screen; every chart's data
// filling its plot (the hot workload's 300/s under a 2,000/s partition
// target is not a flat line at the bottom: the target is a marker at the
// top edge); hovering a chart over time shows a tooltip with each series'
// value and a crosshair at the same instant on every chart over time, all
// at the same x (one time axis); a click on a legend entry hides its
// series and another shows it again.
func TestHTMLReportInteractive(t *testing.T) {
	exe, dir, s := fixtureReport(t)
	const screenW, screenH = 1280, 800
	ses, err := browser.Open(context.Background(), filepath.Join(dir, reports.HTMLFile), browser.Options{Chromium: exe, Width: screenW, Height: screenH})
	if err != nil {
		t.Fatal(err)
	}
	defer ses.Close()
	defer func() {
		for _, m := range ses.Messages() {
			if m.IsError() {
				t.Errorf("console: %s", m)
			}
		}
		if t.Failed() {
			if png, err := ses.Screenshot(); err == nil {
				if p, err := browser.ArtifactPath("report-interactive.png"); err == nil {
					os.WriteFile(p, png, 0o644)
					t.Logf("screen at the failure: %s", p)
				}
			}
		}
	}()

	// the verdict: every failure, in the first screen
	type box struct {
		Text   string  `json:"text"`
		Bottom float64 `json:"bottom"`
	}
	failures, err := browser.Eval[[]box](ses, `Array.from(document.querySelectorAll("#verdict li.failure")).map(e => ({text: e.textContent, bottom: e.getBoundingClientRect().bottom + window.scrollY}))`)
	if err != nil {
		t.Fatal(err)
	}
	items := text.VerdictItems(s)
	if len(items) != 3 || len(failures) != len(items) {
		t.Fatalf("the verdict lists %d failures %v, want %d %v", len(failures), failures, len(items), items)
	}
	for i, f := range failures {
		if !strings.Contains(strings.Join(strings.Fields(f.Text), " "), items[i].Detail) {
			t.Errorf("verdict line %d %q lacks %q", i, f.Text, items[i].Detail)
		}
		if f.Bottom >= screenH {
			t.Errorf("%q ends %.0f px down: below the first screen (%d px)", f.Text, f.Bottom, screenH)
		}
	}

	// every chart's data fill its plot
	fills, err := browser.Eval[[]chartFill](ses, chartFillScript)
	if err != nil {
		t.Fatal(err)
	}
	if len(fills) < 18 {
		t.Fatalf("%d charts measured: %+v", len(fills), fills)
	}
	offScale := map[string]string{}
	for _, f := range fills {
		if f.Series == 0 || f.Fill < 0.3 || f.Fill > 1.02 {
			t.Errorf("chart %s: its data reach %.0f%% of the plot (%d series); want 30-100%%", f.ID, 100*f.Fill, f.Series)
		}
		if f.OffText != "" {
			offScale[f.ID] = f.OffText
		}
	}
	lowest := fills[0]
	for _, f := range fills {
		if f.Fill < lowest.Fill {
			lowest = f
		}
	}
	t.Logf("verdict: %d lines, the last ending %.0f px down; %d charts, the emptiest %s with its data at %.0f%% of its plot",
		len(failures), failures[len(failures)-1].Bottom, len(fills), lowest.ID, 100*lowest.Fill)
	if !strings.Contains(offScale["w2-throughput"], "target 2,000 entities/s per partition") || offScale["w2-units-1"] == "" {
		t.Errorf("the hot workload's targets, far above its data, are not marked off scale: %v", offScale)
	}
	if _, ok := offScale["w1-throughput"]; ok {
		t.Errorf("the counter's blob target, within reach of its data, is off scale: %v", offScale)
	}

	// hover: a tooltip with each series' value, a crosshair on every chart over time at one x
	at := func(id string, fx, fy float64) (float64, float64) {
		t.Helper()
		xy, err := browser.Eval[[]float64](ses, fmt.Sprintf(`(() => {
  const svg = document.getElementById(%q);
  svg.scrollIntoView({block: "center"});
  const r = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal, p = svg.getAttribute("data-plot").split(" ").map(Number);
  const k = r.width / vb.width;
  return [r.left + (p[0] + %v * (p[2] - p[0])) * k, r.top + (p[1] + %v * (p[3] - p[1])) * k];
})()`, id, fx, fy))
		if err != nil || len(xy) != 2 {
			t.Fatalf("locating %s: %v %v", id, xy, err)
		}
		return xy[0], xy[1]
	}
	type hover struct {
		Tip     string    `json:"tip"`
		Shown   bool      `json:"shown"`
		Rows    int       `json:"rows"`
		Crosses []float64 `json:"crosses"`
		Times   int       `json:"times"`
	}
	const hoverScript = `(() => {
  const tip = document.getElementById("tip");
  const crosses = Array.from(document.querySelectorAll("svg.chart line.cross")).filter(l => l.style.display !== "none").map(l => l.getBoundingClientRect().left);
  return {tip: tip.textContent, shown: getComputedStyle(tip).display !== "none", rows: tip.querySelectorAll("i").length,
    crosses: crosses, times: document.querySelectorAll('svg.chart[data-xfmt="time"]').length};
})()`
	x, y := at("w1-throughput", 0.5, 0.5)
	if err := ses.MouseMove(x, y); err != nil {
		t.Fatal(err)
	}
	h, err := browser.Eval[hover](ses, hoverScript)
	if err != nil {
		t.Fatal(err)
	}
	if !h.Shown || h.Rows != 3 || !strings.Contains(h.Tip, "at 12 s") || !strings.Contains(h.Tip, "blob.get ok+conflict/s: ") || !strings.Contains(h.Tip, "/s") {
		t.Errorf("hovering the middle of the counter's throughput: tooltip shown %v, %d rows: %q", h.Shown, h.Rows, h.Tip)
	}
	if png, err := ses.Screenshot(); err == nil { // kept for people to look at
		if p, err := browser.ArtifactPath("report-hover.png"); err == nil {
			os.WriteFile(p, png, 0o644)
		}
	}
	if h.Times < 8 || len(h.Crosses) != h.Times {
		t.Errorf("%d crosshairs shown, on %d charts over time", len(h.Crosses), h.Times)
	}
	for _, c := range h.Crosses {
		if math.Abs(c-h.Crosses[0]) > 1 {
			t.Errorf("the crosshairs are not at one x (one time axis): %v", h.Crosses)
			break
		}
	}

	// a click on the first legend entry hides its series; a second shows it
	legend, err := browser.Eval[[]float64](ses, `(() => {
  const r = document.querySelector('#w1-throughput g.li[data-s="0"]').getBoundingClientRect();
  return [r.left + r.width / 2, r.top + r.height / 2];
})()`)
	if err != nil {
		t.Fatal(err)
	}
	const hidden = `getComputedStyle(document.querySelector('#w1-throughput g.s[data-s="0"]')).display === "none"`
	for i, want := range []bool{true, false} {
		if err := ses.Click(legend[0], legend[1]); err != nil {
			t.Fatal(err)
		}
		off, err := browser.Eval[bool](ses, hidden)
		if err != nil {
			t.Fatal(err)
		}
		if off != want {
			t.Errorf("after %d clicks on the legend, series 0 hidden %v", i+1, off)
		}
		if err := ses.MouseMove(x, y); err != nil {
			t.Fatal(err)
		}
		h, err := browser.Eval[hover](ses, hoverScript)
		if err != nil {
			t.Fatal(err)
		}
		if wantRows := map[bool]int{true: 2, false: 3}[want]; h.Rows != wantRows {
			t.Errorf("after %d clicks, the tooltip has %d rows, want %d: %q", i+1, h.Rows, wantRows, h.Tip)
		}
	}

	// the charts not over time have their own tooltips: a percentile and
	// its latency; a latency bin and its share; no crosshair elsewhere
	for _, c := range []struct{ id, head, unit string }{
		{"w1-spectrum-1", "p99", " ms"}, {"w2-histogram-1", " ms", "%"},
	} {
		x, y := at(c.id, 0.75, 0.5)
		if err := ses.MouseMove(x, y); err != nil {
			t.Fatal(err)
		}
		h, err := browser.Eval[hover](ses, hoverScript)
		if err != nil {
			t.Fatal(err)
		}
		if !h.Shown || h.Rows != 2 || !strings.Contains(h.Tip, c.head) || !strings.Contains(h.Tip, c.unit) || len(h.Crosses) != 1 {
			t.Errorf("hovering %s: shown %v, %d rows, %d crosshairs: %q", c.id, h.Shown, h.Rows, len(h.Crosses), h.Tip)
		}
	}
}
