package main

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/compare"
	"github.com/stormcheck/stormcheck/runner"
)

// syntheticRun writes a results directory as a run writes it (summary.json
// with workloads and units, the hlog directory of per-second HdrHistogram
// logs, scenario.yaml) from a synthetic 20 s run of workload "counter":
// blob.get and blob.put on four blobs at about rate/s each, every latency
// baseMs plus exponential noise. The distributions are known, so compare's
// verdict on two such runs is known whatever the machine's speed.
func syntheticRun(t *testing.T, dir string, seed uint64, rate int, baseMs float64) string {
	t.Helper()
	const seconds = 20
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	scenario := "name: bench\nduration: 20s\ncompare: {tolerance: 0.1}\nworkloads:\n  - {name: counter, kind: blob.lww, actors: 4, keys: 4}\n"
	if err := os.WriteFile(filepath.Join(dir, runner.ScenarioFile), []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	m := reports.NewMetrics(reports.MetricsOptions{HlogDir: filepath.Join(dir, runner.HlogDir), Start: start, Workloads: []string{"counter"}})
	r := rand.New(rand.NewPCG(seed, 11))
	var ops []*checks.Op
	for sec := 0; sec < seconds; sec++ {
		for _, kind := range []string{"blob.get", "blob.put"} {
			n := rate + r.IntN(rate/10+1) - rate/20
			for i := 0; i < n; i++ {
				call := int64(sec)*int64(time.Second) + int64(i)*int64(time.Second)/int64(n)
				lat := int64((baseMs + r.ExpFloat64()*baseMs/4) * 1e6)
				op := &checks.Op{Actor: i % 4, Workload: "counter", Kind: kind, Key: "k" + string(rune('0'+i%4)),
					Attempt: 1, Intended: call, Call: call, Return: call + lat, Outcome: checks.OK}
				m.Record(op)
				ops = append(ops, op)
			}
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	elapsed := seconds * time.Second
	ws, _ := m.Summary(elapsed)
	sum := &reports.Summary{Scenario: "bench", Started: start, Elapsed: elapsed, Workloads: ws}
	sum.Units = m.Units(func(string) time.Duration { return elapsed }, nil, nil)
	units := reports.NewUnitLatencyCollector(sum.Units)
	for _, op := range ops {
		units.Observe(op)
	}
	units.Apply()
	if err := reports.WriteSummaryJSON(filepath.Join(dir, runner.SummaryFile), sum); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCompareVerdictOnSyntheticRuns runs the compare command on results
// directories written from known distributions: two draws of one run pass
// (exit 0, no regression); a run 200 ms slower at half the throughput (a
// closed loop slowed) is flagged (exit 6) on throughput, p50, p90 and p99 of
// both ops and on the blobs' rates; the same two runs the other way round
// are improvements, not regressions (exit 0).
func TestCompareVerdictOnSyntheticRuns(t *testing.T) {
	tmp := t.TempDir()
	base := syntheticRun(t, filepath.Join(tmp, "base"), 1, 200, 20)
	same := syntheticRun(t, filepath.Join(tmp, "same"), 2, 200, 20)
	slow := syntheticRun(t, filepath.Join(tmp, "slow"), 3, 100, 220)

	cmpRun := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		code := run(append([]string{"compare"}, args...), &out, &errOut)
		return code, out.String() + errOut.String()
	}
	if code, out := cmpRun(base, same); code != exitOK || !strings.Contains(out, "result: no regression") || strings.Contains(out, "REGRESSION") {
		t.Errorf("two draws of one run: exit %d, want %d and no regression\n%s", code, exitOK, out)
	}

	code, out := cmpRun(base, slow)
	if code != exitRegression {
		t.Errorf("slowed run: exit %d, want %d\n%s", code, exitRegression, out)
	}
	var js bytes.Buffer
	if c := run([]string{"compare", "--json", base, slow}, &js, &bytes.Buffer{}); c != exitRegression {
		t.Fatalf("compare --json of the slowed run: exit %d", c)
	}
	var cmp compare.Comparison
	if err := json.Unmarshal(js.Bytes(), &cmp); err != nil {
		t.Fatalf("compare --json: %v\n%s", err, js.String())
	}
	flagged := map[string]bool{}
	for _, oc := range cmp.Ops {
		for _, ch := range oc.Changes {
			flagged[oc.Op+" "+ch.Metric] = ch.Regressed
		}
	}
	for _, op := range []string{"blob.get", "blob.put"} {
		for _, metric := range []string{"throughput", "p50", "p90", "p99"} {
			if !flagged[op+" "+metric] {
				t.Errorf("slowed run: %s %s not flagged (flags %v)\n%s", op, metric, flagged, out)
			}
		}
		if flagged[op+" p99.9"] {
			t.Errorf("slowed run: %s p99.9 flagged with under 10 samples beyond it", op)
		}
	}
	unitRate := 0
	for _, u := range cmp.Units {
		for _, ch := range u.Changes {
			if ch.Metric == "rate" && ch.Regressed {
				unitRate++
			}
		}
	}
	if unitRate < 4 { // the four blobs (and the account)
		t.Errorf("slowed run: %d unit rates flagged, want the four blobs'\n%s", unitRate, out)
	}
	if want := 8 + unitRate; cmp.Regressions != want || strings.Count(out, "REGRESSION") != want {
		t.Errorf("slowed run: %d regressions (%d REGRESSION lines), want %d\n%s", cmp.Regressions, strings.Count(out, "REGRESSION"), want, out)
	}

	if code, out := cmpRun(slow, base); code != exitOK || strings.Contains(out, "REGRESSION") || !strings.Contains(out, "improved") {
		t.Errorf("the faster run after the slow one: exit %d, want %d with improvements\n%s", code, exitOK, out)
	}
	// A tolerance above the change silences it.
	if code, out := cmpRun("--tolerance", "20", base, slow); code != exitOK {
		t.Errorf("--tolerance 20: exit %d\n%s", code, out)
	}
}

// TestCompareRealRuns runs the scenario twice side by side against managed
// Azurite, one of them through the emulation proxy adding 200 ms to every
// request, and compares them: compare reads real results directories and
// prints every op's every figure. The scenario files differ (the emulation
// line), so compare gives no verdict (exit 4) and says so.
func TestCompareRealRuns(t *testing.T) {
	tmp := t.TempDir()
	base := `name: bench
duration: 3s
compare: {tolerance: 0.5}
workloads:
  - {name: counter, kind: blob.lww, actors: 4, keys: 4}
`
	dirs := map[string]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, name := range []string{"base", "slow"} {
		src := base
		if name == "slow" {
			src += "emulation: {delay: 200ms}\n"
		}
		sc := filepath.Join(tmp, name+".yaml")
		if err := os.WriteFile(sc, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(tmp, "r-"+name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out, errOut bytes.Buffer
			if code := run([]string{"run", "--out", dir, "--progress", "none", sc}, &out, &errOut); code != exitOK {
				t.Errorf("run %s: exit %d\n%s\n%s", name, code, out.String(), errOut.String())
			}
			mu.Lock()
			dirs[name] = dir
			mu.Unlock()
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	var out, errOut bytes.Buffer
	code := run([]string{"compare", dirs["base"], dirs["slow"]}, &out, &errOut)
	if code != exitUndecided || !strings.Contains(out.String(), "the scenario files differ") {
		t.Fatalf("compare of two runs of different scenario files: exit %d, want %d saying the files differ\n%s%s", code, exitUndecided, out.String(), errOut.String())
	}
	var js, jsErr bytes.Buffer
	if c := run([]string{"compare", "--json", dirs["base"], dirs["slow"]}, &js, &jsErr); c != code {
		t.Fatalf("compare --json: exit %d, the text's was %d\n%s", c, code, jsErr.String())
	}
	var cmp compare.Comparison
	if err := json.Unmarshal(js.Bytes(), &cmp); err != nil {
		t.Fatalf("compare --json: %v\n%s", err, js.String())
	}
	if (cmp.Regressions > 0) != (code == exitRegression) {
		t.Errorf("exit %d with %d regressions", code, cmp.Regressions)
	}
	rows := map[string]bool{}
	for _, oc := range cmp.Ops {
		if oc.Workload != "counter" {
			t.Errorf("op of workload %q compared", oc.Workload)
		}
		for _, ch := range oc.Changes {
			rows[oc.Op+" "+ch.Metric] = true
		}
	}
	for _, op := range []string{"blob.get", "blob.put"} {
		for _, metric := range []string{"throughput", "p50", "p90", "p99", "p99.9"} {
			if !rows[op+" "+metric] {
				t.Errorf("no %s %s row in the comparison of two real runs\n%s", op, metric, out.String())
			}
		}
		if !strings.Contains(out.String(), op) {
			t.Errorf("text lacks %s\n%s", op, out.String())
		}
	}
	for _, want := range []string{"workload counter", "KS", "units (the busiest", "result: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text lacks %q\n%s", want, out.String())
		}
	}
	if len(cmp.Units) == 0 {
		t.Errorf("no unit compared\n%s", out.String())
	}
	t.Logf("compare of the slowed run (exit %d):\n%s", code, out.String())
}
