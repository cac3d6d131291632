package html

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/reportstest"
)

// The histogram's bins hold every attempt once: their shares add up to
// 100 % for each line, and the corrected line's largest bin holds its p50.
func TestLatencyHistogramSharesAddUp(t *testing.T) {
	s := reportstest.WriteFixtureRun(t, t.TempDir(), reportstest.PlainNames)
	o := &s.Workloads[1].Ops[0] // hot table.insert: corrected differs
	c, err := latencyHistogramChart("h", "hot", o)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.lines) != 2 || !c.lines[0].fill || c.lines[1].fill {
		t.Fatalf("lines %+v", c.lines)
	}
	for _, l := range c.lines {
		sum, top, topX := 0.0, 0.0, 0.0
		for i := 0; i < len(l.y); i += 2 { // each bin is two points, (lo, y) and (hi, y)
			sum += l.y[i]
			if l.y[i] > top {
				top, topX = l.y[i], l.x[i]
			}
		}
		if math.Abs(sum-100) > 1e-6 {
			t.Errorf("%s: bins add up to %v%%", l.name, sum)
		}
		if l.name == c.lines[0].name {
			p50 := math.Log10(o.Corrected.P50)
			if p50 < topX-0.5 || p50 > topX+0.6 {
				t.Errorf("corrected: fullest bin at 10^%.1f ms, p50 %v ms", topX, o.Corrected.P50)
			}
		}
	}
	if len(c.x.ticks) == 0 || c.x.min >= c.x.max {
		t.Errorf("x axis %+v", c.x)
	}
}

// Calls in flight per second come from the calls' own times: four actors
// each calling back to back for 2 s are 4 in flight in each second, and an
// actor that waited half of the second adds half.
func TestInFlightPerSecond(t *testing.T) {
	m := reports.NewMetrics(reports.MetricsOptions{Workloads: []string{"w"}})
	ms := int64(time.Millisecond)
	for a := range 4 {
		for at := int64(0); at < 2000*ms; at += 100 * ms {
			m.Record(&checks.Op{Actor: a, Workload: "w", Kind: "blob.get", Intended: at, Call: at, Return: at + 100*ms, Outcome: checks.OK})
		}
	}
	m.Record(&checks.Op{Actor: 5, Workload: "w", Kind: "blob.put", Intended: 2250 * ms, Call: 2250 * ms, Return: 2750 * ms, Outcome: checks.OK})
	ws, _ := m.Summary(3 * time.Second)
	got := ws[0].InFlight
	if len(got) != 3 || got[0] != 4 || got[1] != 4 || got[2] != 0.5 {
		t.Errorf("in flight %v, want [4 4 0.5]", got)
	}
	c := inFlightChart("f", &reports.WorkloadSummary{Name: "w", Actors: 4, InFlight: got})
	if len(c.lines) != 1 || c.lines[0].y[1] != 4 || len(c.refs) != 1 || c.refs[0].y != 4 {
		t.Errorf("chart %+v", c)
	}
}

// The comparison across workloads is a table on the page, not text.
func TestHTMLAcrossWorkloadsIsATable(t *testing.T) {
	s := &reports.Summary{Scenario: "two", Workloads: []reports.WorkloadSummary{
		{Name: "hot", Ops: []reports.OpSummary{{Op: "blob.put", Count: 10, Outcomes: map[string]int64{"ok": 10}}}},
		{Name: "spread", Ops: []reports.OpSummary{{Op: "blob.put", Count: 10, Outcomes: map[string]int64{"ok": 10}}}},
	}, Units: []reports.UnitSummary{
		{Workload: "hot", Kind: reports.UnitBlob, Name: "k0", Amount: 10, Peak: 10, Target: 500, BusiestShare: 1},
		{Workload: "spread", Kind: reports.UnitBlob, Name: "k0", Amount: 5, Peak: 5, Target: 500, BusiestShare: 0.5},
		{Workload: "spread", Kind: reports.UnitBlob, Name: "k1", Amount: 5, Peak: 5, Target: 500, BusiestShare: 0.5},
	}}
	var b strings.Builder
	if err := WriteHTML(&b, s, ""); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"<h3>Per-blob spread by workload (key patterns side by side)</h3>",
		"<th>busiest overall</th>",
		"<tr><td>hot</td><td>1</td><td>100.0%</td><td>100.0%</td><td>10</td><td>2.0%</td><td>0</td></tr>",
		"<tr><td>spread</td><td>2</td><td>50.0%</td><td>50.0%</td><td>5</td><td>1.0%</td><td>0</td></tr>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<pre>") {
		t.Error("the page still shows preformatted text")
	}
}
