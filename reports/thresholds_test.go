package reports_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/html"
	"github.com/stormcheck/stormcheck/reports/reportstest"
	"github.com/stormcheck/stormcheck/reports/text"
	"github.com/stormcheck/stormcheck/scenarios"
)

// thresholdSummary is a run of workload "w": blob.put with latencies 1..100
// ms (corrected = uncorrected), 10 s long, 50 ok and 50 conflicts, and in
// seconds 4 and 5 two throttled answers; one partition unit at 1,500/s.
func thresholdSummary(t *testing.T) *reports.Summary {
	m := thresholdRun()
	ws, _ := m.Summary(10 * time.Second)
	return &reports.Summary{Workloads: ws, Units: []reports.UnitSummary{{Workload: "w", Kind: reports.UnitPartition, Name: "p0", Target: 2000,
		Peak: 1500, PeakSecond: 1, Utilisation: 0.75, PerSecond: []int64{1000, 1500, 1500, 200}}}}
}

// thresholdRun records thresholdSummary's operations.
func thresholdRun() *reports.Metrics {
	m := reports.NewMetrics(reports.MetricsOptions{})
	for i := 1; i <= 100; i++ {
		out := checks.OK
		if i%2 == 0 {
			out = checks.Conflict
		}
		m.Record(reportstest.MkOp("w", "blob.put", 0, out, float64(i*100), float64(i), 0))
	}
	m.Record(reportstest.MkOp("w", "blob.get", 0, checks.Throttled, 4100, 1, 0))
	m.Record(reportstest.MkOp("w", "blob.get", 0, checks.Throttled, 5100, 1, 0))
	return m
}

func parseThresholds(t *testing.T, lines ...string) []scenarios.Threshold {
	t.Helper()
	src := "name: t\nduration: 5s\nworkloads:\n  - {name: w, kind: blob.etag-counter}\nthresholds:\n"
	for _, l := range lines {
		src += "  - \"" + l + "\"\n"
	}
	sc, err := scenarios.Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return sc.Thresholds
}

func TestEvaluateThresholds(t *testing.T) {
	s := thresholdSummary(t)
	for _, c := range []struct {
		line   string
		pass   bool
		actual float64
		window string
		note   string
	}{
		{"p50(blob.put) < 60ms", true, 50, "", ""},
		{"p99(blob.put) < 50ms", false, 99, "", ""},
		{"p99(w/blob.put) <= 100ms", true, 99, "", ""},
		{"max(blob.put) < 100ms", false, 100, "", ""},
		{"p95(blob.put) < 95ms", false, 95, "", ""},
		{"p95(blob.put) <= 96ms", true, 95, "", ""},
		{"p99.99(blob.put) < 100ms", false, 100, "", ""},
		{"p100(blob.put) < 101ms", true, 100, "", ""},
		{"rate(conflict) < 0.45", false, 50.0 / 102, "", ""},
		{"rate(conflict) < 0.6", true, 50.0 / 102, "", ""},
		{"throttled == 0", false, 2, "", ""},
		{"throttled <= 2", true, 2, "", ""},
		{"errors == 0", true, 0, "", ""},
		{"utilisation(partition) < 0.8", true, 0.75, "1s (partition p0)", ""},
		{"utilisation(partition) < 0.7 over 2s", false, 0.75, "1s-3s (partition p0)", ""},
		{"utilisation(queue) < 0.8", false, 0, "", "no queue with a target in the run"},
		{"throttled == 0 over 2s", false, 2, "4s-6s", ""},
		{"throughput(blob.put) > 5 over 2s", true, 9.5, "0s-2s", ""},
		{"throughput(blob.put) > 9.8 over 2s", false, 9.5, "0s-2s", ""},
	} {
		r := reports.EvaluateThresholds(s, parseThresholds(t, c.line))[0]
		if r.Pass != c.pass || !near(r.Actual, c.actual) || r.Window != c.window || r.Note != c.note {
			t.Errorf("%s: got %+v, want pass %v actual %v window %q note %q", c.line, r, c.pass, c.actual, c.window, c.note)
		}
	}
}

// TestThresholdOnAnOpNotInTheRun: a criterion naming an op the run did not
// record (validate refuses it for a scenario's own kinds; a summary may
// still lack it) fails, saying so.
func TestThresholdOnAnOpNotInTheRun(t *testing.T) {
	th := scenarios.Threshold{Text: "p99(blob.delete) < 1s", Metric: "p99", Arg: "blob.delete", Cmp: "<", Value: 1000}
	r := reports.EvaluateThresholds(thresholdSummary(t), []scenarios.Threshold{th})[0]
	if r.Pass || r.Note != "no operation blob.delete in the run" {
		t.Errorf("got %+v, want a failure saying no operation blob.delete in the run", r)
	}
}

func near(a, b float64) bool { return a-b < 0.02*b+1e-9 && b-a < 0.02*b+1e-9 }

func TestThresholdsInTextReport(t *testing.T) {
	s := thresholdSummary(t)
	s.Thresholds = reports.EvaluateThresholds(s, parseThresholds(t, "p99(blob.put) < 50ms", "throttled == 0 over 2s", "errors == 0"))
	var b strings.Builder
	if err := text.WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"thresholds: 1 pass, 2 fail", "FAIL  p99(blob.put) < 50ms", "measured 99", "worst at 4s-6s", "PASS  errors == 0"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

func TestCountThresholdsOfAWorkloadOrAnOp(t *testing.T) {
	s := thresholdSummary(t)
	for _, c := range []struct {
		line   string
		actual float64
	}{
		{"throttled(w) == 0", 2},
		{"throttled(blob.get) == 0", 2},
		{"throttled(blob.put) == 0", 0},
		{"conflicts(w/blob.put) < 100", 50},
	} {
		r := reports.EvaluateThresholds(s, parseThresholds(t, c.line))[0]
		if r.Actual != c.actual {
			t.Errorf("%s: measured %v, want %v (%+v)", c.line, r.Actual, c.actual, r)
		}
	}
}

// TestThresholdsLeaveOutInjectedThrottling: a threshold on throttling
// judges the target's. thresholdSummary's run plus three throttled
// answers a fault injected on purpose (second 4, and two in second 7):
// every count, rate and window of throttling measures the target's two
// alone and says how many injected answers it left out; a summary that
// went through JSON (as report and compare read it) measures the same.
func TestThresholdsLeaveOutInjectedThrottling(t *testing.T) {
	m := thresholdRun()
	for _, at := range []float64{4200, 7100, 7300} {
		op := reportstest.MkOp("w", "blob.get", 0, checks.Throttled, at, 1, 0)
		op.Out.Fault = "busy (http.throttle)"
		m.Record(op)
	}
	ws, _ := m.Summary(10 * time.Second)
	s := &reports.Summary{Workloads: ws}
	var get *reports.OpSummary
	for i := range ws[0].Ops {
		if ws[0].Ops[i].Op == "blob.get" {
			get = &ws[0].Ops[i]
		}
	}
	if get == nil || get.Outcomes["throttled"] != 5 || !slices.Equal(get.InjectedPerSecond, []int64{0, 0, 0, 0, 1, 0, 0, 2}) {
		t.Fatalf("blob.get: %+v; want 5 throttled, injected per second [0 0 0 0 1 0 0 2]", get)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back reports.Summary
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	for _, sum := range []*reports.Summary{s, &back} {
		for _, c := range []struct {
			line     string
			pass     bool
			actual   float64
			window   string
			injected int64
		}{
			{"throttled <= 2", true, 2, "", 3},
			{"throttled < 2", false, 2, "", 3},
			{"throttled(blob.get) <= 2", true, 2, "", 3},
			{"throttled(blob.put) == 0", true, 0, "", 0},
			{"rate(throttled) < 0.02", true, 2.0 / 105, "", 3},
			{"throttled == 0 over 2s", false, 2, "4s-6s", 1},
			{"throttled <= 2 over 2s", true, 2, "4s-6s", 1},
			{"errors == 0", true, 0, "", 0},
		} {
			r := reports.EvaluateThresholds(sum, parseThresholds(t, c.line))[0]
			if r.Pass != c.pass || !near(r.Actual, c.actual) || r.Window != c.window || r.Injected != c.injected {
				t.Errorf("%s: got %+v, want pass %v actual %v window %q injected %d", c.line, r, c.pass, c.actual, c.window, c.injected)
			}
		}
	}
	s.Thresholds = reports.EvaluateThresholds(s, parseThresholds(t, "throttled <= 2", "errors == 0"))
	var textX strings.Builder
	if err := text.WriteText(&textX, s); err != nil {
		t.Fatal(err)
	}
	want := "PASS  throttled <= 2  measured 2 attempts, leaving out 3 throttled answers"
	if !strings.Contains(textX.String(), want) || strings.Contains(textX.String(), "errors == 0  measured 0, leaving out") {
		t.Errorf("text report: want %q on the throttling line only:\n%s", want, textX.String())
	}
	if h := html.BuildHTMLThreshold(s.Thresholds[0]); !strings.Contains(h.Measured, "leaving out 3 throttled answers faults injected") {
		t.Errorf("HTML threshold: %+v", h)
	}
}
