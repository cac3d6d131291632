package compare_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/compare"
	"github.com/stormcheck/stormcheck/reports/reportstest"
	"github.com/stormcheck/stormcheck/reports/text"
)

// runSummary simulates a 20 s run of one op at about rate/s whose latency
// is base ms plus exponential noise, with hlog files in dir.
func runSummary(t *testing.T, seed uint64, rate int, baseMs float64, dir string) *reports.Summary {
	t.Helper()
	m := reports.NewMetrics(reports.MetricsOptions{HlogDir: dir, Start: time.Now()})
	r := rand.New(rand.NewPCG(seed, 7))
	for sec := 0; sec < 20; sec++ {
		n := rate + r.IntN(rate/10+1) - rate/20
		for i := 0; i < n; i++ {
			call := float64(sec*1000) + float64(i)*1000/float64(n)
			m.Record(reportstest.MkOp("w", "blob.put", 0, checks.OK, call, baseMs+r.ExpFloat64()*baseMs/4, 0))
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	ws, _ := m.Summary(20 * time.Second)
	return &reports.Summary{Scenario: "s", Workloads: ws}
}

func TestCompareFlagsOnlyRealChanges(t *testing.T) {
	d := t.TempDir()
	base := runSummary(t, 1, 200, 5, d+"/a")
	same := runSummary(t, 2, 200, 5, d+"/b")
	slow := runSummary(t, 3, 200, 25, d+"/c") // 20 ms added
	fewer := runSummary(t, 4, 100, 5, d+"/d") // half the throughput

	c := compare.Runs(base, same, compare.Options{Tolerance: 0.1, BaseHlog: d + "/a", NewHlog: d + "/b"})
	if c.Regressions != 0 || c.Improvements != 0 {
		t.Errorf("unchanged run flagged: %+v", c.Ops)
	}
	for _, ch := range c.Ops[0].Changes {
		switch {
		case ch.Metric == "p99.9" && ch.Noise != compare.FewSamples:
			t.Errorf("p99.9 of 4,000 samples (4 beyond it) judged: %+v", ch)
		case ch.Metric != "p99.9" && ch.Noise < 0:
			t.Errorf("%s: noise unknown although both runs have 20 s and hlogs", ch.Metric)
		}
	}
	if ks := c.Ops[0].KS; ks > 0.1 {
		t.Errorf("KS distance between two draws of one distribution: %v", ks)
	}

	c = compare.Runs(base, slow, compare.Options{Tolerance: 0.1, BaseHlog: d + "/a", NewHlog: d + "/c"})
	flagged := map[string]bool{}
	for _, ch := range c.Ops[0].Changes {
		flagged[ch.Metric] = ch.Regressed
	}
	if !flagged["p50"] || !flagged["p99"] || flagged["throughput"] || flagged["p99.9"] || c.Regressions != 3 {
		t.Errorf("slowed run: flags %v, %d regressions", flagged, c.Regressions)
	}
	if ks := c.Ops[0].KS; ks < 0.9 {
		t.Errorf("KS distance of disjoint distributions: %v", ks)
	}

	c = compare.Runs(base, fewer, compare.Options{Tolerance: 0.1})
	if ch := c.Ops[0].Changes[0]; !ch.Regressed || ch.Metric != "throughput" {
		t.Errorf("halved throughput: %+v", ch)
	}
	// Without hlogs the latency noise is unknown and the tolerance decides.
	if ch := c.Ops[0].Changes[1]; ch.Noise != -1 {
		t.Errorf("latency noise without hlogs: %v", ch.Noise)
	}
	// The other direction is an improvement, not a regression.
	c = compare.Runs(slow, base, compare.Options{Tolerance: 0.1})
	if c.Regressions != 0 || c.Improvements == 0 {
		t.Errorf("faster run: %d regressions, %d improvements", c.Regressions, c.Improvements)
	}
	// A tolerance above the change silences it.
	c = compare.Runs(base, slow, compare.Options{Tolerance: 10})
	if c.Regressions != 0 {
		t.Errorf("tolerance 1000%%: %d regressions", c.Regressions)
	}
}

func TestCompareNotesAndText(t *testing.T) {
	d := t.TempDir()
	base := runSummary(t, 1, 100, 5, d+"/a")
	slow := runSummary(t, 3, 100, 25, d+"/c")
	slow.Workloads[0].Ops = append(slow.Workloads[0].Ops, reports.OpSummary{Op: "blob.get"})
	c := compare.Runs(base, slow, compare.Options{Tolerance: 0.1})
	var b strings.Builder
	if err := text.WriteComparison(&b, c, "base-dir", "new-dir"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"workload w", "blob.put", "throughput", "p99.9", "REGRESSION", "KS", "note: w blob.get: only in the new run", "result: 3 regressions", "few samples"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("comparison lacks %q:\n%s", want, b.String())
		}
	}
}

func TestCompareUnits(t *testing.T) {
	steady := func(v int64) []int64 {
		xs := make([]int64, 12)
		for i := range xs {
			xs[i] = v + int64(i%3) - 1
		}
		return xs
	}
	base := &reports.Summary{Units: []reports.UnitSummary{
		{Workload: "w", Kind: reports.UnitPartition, Name: "hot", Mean: 200, PerSecond: steady(200), Latency: &reports.Percentiles{P50: 2, P99: 10, Count: 2400}},
		{Workload: "w", Kind: reports.UnitPartition, Name: "gone", Mean: 5, PerSecond: steady(5)},
	}}
	new := &reports.Summary{Units: []reports.UnitSummary{
		{Workload: "w", Kind: reports.UnitPartition, Name: "hot", Mean: 100, PerSecond: steady(100), Latency: &reports.Percentiles{P50: 2.1, P99: 40, Count: 1200}},
		{Workload: "w", Kind: reports.UnitPartition, Name: "quiet", Mean: 1},
	}}
	c := compare.Runs(base, new, compare.Options{Tolerance: 0.1})
	if len(c.Units) != 1 || c.Units[0].Name != "hot" {
		t.Fatalf("units compared: %+v", c.Units)
	}
	flags := map[string]bool{}
	for _, ch := range c.Units[0].Changes {
		flags[ch.Metric] = ch.Regressed
	}
	if !flags["rate"] || flags["p50"] || flags["p99"] || c.Regressions != 1 {
		t.Errorf("unit changes: %+v (%d regressions)", c.Units[0].Changes, c.Regressions)
	}
	var b strings.Builder
	if err := text.WriteComparison(&b, c, "a", "b"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "partition hot") || !strings.Contains(b.String(), "units (the busiest") {
		t.Errorf("comparison text:\n%s", b.String())
	}
}

// TestNoisyChangeIsNotJudged: two unchanged runs once showed "p90 +101.3%
// ±87.2% REGRESSION": a change not twice beyond its own noise is shown as
// noisy and not judged; one clearly beyond it is.
func TestNoisyChangeIsNotJudged(t *testing.T) {
	for _, c := range []struct {
		rel, noise       float64
		regressed        bool
		unjudged, within bool
	}{
		{1.013, 0.872, false, true, false}, // the unchanged runs
		{1.013, 0.30, true, false, false},  // clearly beyond its noise
		{0.05, 0.01, false, false, true},   // within the tolerance
		{0.50, -1, true, false, false},     // noise unknown: the tolerance alone
	} {
		ch := compare.Judge(compare.Change{Metric: "p90", Base: 10, New: 10 * (1 + c.rel), Noise: c.noise}, 0.1, false)
		if ch.Regressed != c.regressed || (ch.Unjudged != "") != c.unjudged {
			t.Errorf("%+.1f%% ±%.1f%%: %+v", 100*c.rel, 100*c.noise, ch)
		}
		textX := text.VerdictText(ch)
		if c.unjudged && textX != "noisy, not judged" || c.regressed && textX != "REGRESSION" || c.within && textX != "" {
			t.Errorf("%+.1f%% ±%.1f%%: verdict %q", 100*c.rel, 100*c.noise, textX)
		}
	}
}

// TestQueueUnitsMatchAcrossRuns: a queue's name carries its run's id
// (sc<run id>-<workload>-q0); two runs' queues are matched by workload and
// key, and the account is labelled once.
func TestQueueUnitsMatchAcrossRuns(t *testing.T) {
	per := []int64{50, 51, 49, 50, 50, 51, 49, 50}
	base := &reports.Summary{Units: []reports.UnitSummary{
		{Workload: "qhot", Kind: reports.UnitQueue, Name: "sc1a2b3c4d-qhot-q0", Mean: 50, PerSecond: per},
		{Kind: reports.UnitAccount, Name: "account", Mean: 50, PerSecond: per},
	}}
	new := &reports.Summary{Units: []reports.UnitSummary{
		{Workload: "qhot", Kind: reports.UnitQueue, Name: "sc9f8e7d6c-qhot-q0", Mean: 50, PerSecond: per},
		{Kind: reports.UnitAccount, Name: "account", Mean: 50, PerSecond: per},
	}}
	c := compare.Runs(base, new, compare.Options{Tolerance: 0.1})
	names := map[string]bool{}
	for _, u := range c.Units {
		names[string(u.Kind)+"/"+u.Name] = true
	}
	if !names["queue/q0"] || !names["account/account"] || len(c.Units) != 2 {
		t.Errorf("units compared: %+v", c.Units)
	}
	for in, want := range map[[2]string]string{
		{"qhot", "sc1a2b3c4d-qhot-q0"}: "q0", {"qhot", "k0"}: "k0", {"w", "sc1a2b3c4d-other-q0"}: "sc1a2b3c4d-other-q0", {"w", "scenery"}: "scenery",
	} {
		if got := compare.LogicalUnitName(in[0], in[1]); got != want {
			t.Errorf("LogicalUnitName%v = %q, want %q", in, got, want)
		}
	}
	var b strings.Builder
	if err := text.WriteComparison(&b, c, "a", "b"); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "account account") || !strings.Contains(out, "queue q0") || !strings.Contains(out, `a noise of "?"`) {
		t.Errorf("comparison text:\n%s", out)
	}
}
