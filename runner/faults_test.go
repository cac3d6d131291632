package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/text"
	"github.com/stormcheck/stormcheck/runner/runtest"
	"github.com/stormcheck/stormcheck/scenarios"
)

// httpFaultsScenario puts every HTTP fault kind on a counter and a
// create-once race against a managed Azurite, all through the load. The
// workloads are bounded by iterations, not time, so every fault has
// hundreds of requests to touch however slow the machine (the duration is
// only a cap).
const httpFaultsScenario = `
name: http-faults
seed: 11
duration: 3m
timeout: 3s
retry: {max_attempts: 4, base: 20ms, max: 200ms}
workloads:
  - name: counter
    kind: blob.etag-counter
    actors: 4
    keys: 2
    iterations: 150
  - name: create
    kind: blob.create-once
    actors: 3
    iterations: 60
faults:
  - {kind: http.drop-response, name: drop, ops: [blob.put], fraction: 0.1}
  - {kind: http.timeout-after, name: late, ops: [blob.put], fraction: 0.1}
  - {kind: http.server-busy, name: busy, fraction: 0.1}
  - {kind: http.internal-error, name: ierr, fraction: 0.05}
  - {kind: http.timeout, name: tmo, fraction: 0.05}
  - {kind: http.duplicate, name: dup, fraction: 0.1}
  - {kind: http.reorder, name: slow, hold: 50ms, fraction: 0.1}
`

// No HTTP fault produces a false verdict: every request a fault touched
// either never reached Azurite, or reached it and its answer was lost or
// repeated; the checks allow for both, so none fails.
func TestHTTPFaultsKeepVerdictsTrue(t *testing.T) {
	sc := runtest.Parse(t, httpFaultsScenario)
	sum, dir, log := runFaults(t, sc)
	requireIterationsDone(t, sum, 3*time.Minute)
	noCheckFails(t, sum, "under HTTP faults")
	if len(sum.Checks) == 0 {
		t.Fatal("no checks ran")
	}
	var unknown, throttled int64
	for _, w := range sum.Workloads {
		for _, o := range w.Ops {
			unknown += o.Outcomes[checks.Unknown.String()]
			throttled += o.Outcomes[checks.Throttled.String()]
		}
	}
	if unknown == 0 || throttled == 0 {
		t.Errorf("faults left no trace in the outcomes: unknown %d, throttled %d\n%s", unknown, throttled, log)
	}
	for _, name := range []string{"drop", "late", "busy", "dup", "slow"} {
		if !strings.Contains(log, "fault "+name+": touched ") || strings.Contains(log, "fault "+name+": touched 0 ") {
			t.Errorf("fault %s touched nothing:\n%s", name, log)
		}
	}
	// The summary has a window per fault, with the attempts it touched
	// named in the history, dropped answers included.
	touched := map[string]int64{}
	for _, w := range sum.Faults {
		touched[w.Fault] += w.Touched
		if w.Attempts == 0 || w.From < sum.LoadStart || w.To <= w.From {
			t.Errorf("window %+v", w)
		}
	}
	for _, name := range []string{"drop", "late", "busy", "dup", "slow"} {
		if touched[name] == 0 {
			t.Errorf("no recorded attempt names fault %s: %+v", name, sum.Faults)
		}
	}
	dropped := 0
	readHistoryFile(t, filepath.Join(dir, HistoryFile), func(op *checks.Op) {
		if strings.HasPrefix(op.Out.Fault, "drop (http.drop-response): forwarded") && op.Outcome == checks.Unknown {
			dropped++
		}
	})
	if dropped == 0 {
		t.Error("no unknown attempt says its response was dropped by fault drop")
	}
	// The units count the answers faults injected apart from the target's
	// own: the account's two counts agree with the workloads' (the fault
	// tally's, from the history) exactly.
	var injected int64
	for _, w := range sum.Workloads {
		injected += reports.InjectedThrottled(w)
	}
	var acct *reports.UnitSummary
	var unitsInjected int64
	for i, u := range sum.Units {
		if u.Kind == reports.UnitAccount {
			acct = &sum.Units[i]
		} else {
			unitsInjected += u.InjectedThrottled
		}
	}
	switch {
	case injected == 0:
		t.Errorf("no throttled answer counted as injected: %+v", sum.Workloads)
	case acct == nil:
		t.Errorf("no account unit: %+v", sum.Units)
	case acct.InjectedThrottled != injected || acct.Throttled != throttled-injected:
		t.Errorf("account: throttled %d injected %d, want %d the target's own and %d injected", acct.Throttled, acct.InjectedThrottled, throttled-injected, injected)
	case unitsInjected == 0 || unitsInjected > injected:
		t.Errorf("units count %d injected answers, the workloads %d", unitsInjected, injected)
	}
	var textX strings.Builder
	if err := text.WriteText(&textX, sum); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(textX.String(), "faults injected on purpose") || !strings.Contains(textX.String(), "http.drop-response") {
		t.Errorf("the text report has no fault table:\n%s", textX.String())
	}
	if !strings.Contains(textX.String(), "injected: the 503/500 answers faults gave on purpose") {
		t.Errorf("the unit tables have no injected column:\n%s", textX.String())
	}
}

// netFaultsScenario puts every network fault kind, one window each, on a
// counter and a create-once race.
const netFaultsScenario = `
name: net-faults
seed: 12
duration: 4s
timeout: 1s
retry: {max_attempts: 4, base: 20ms, max: 200ms}
workloads:
  - name: counter
    kind: blob.etag-counter
    actors: 4
    keys: 2
  - name: create
    kind: blob.create-once
    actors: 3
faults:
  - {kind: net.latency, name: slow, latency: 20ms, jitter: 10ms, fraction: 0.5}
  - {kind: net.reset-before, name: rst-in, at: 500ms, for: 400ms}
  - {kind: net.reset-after, name: rst-out, at: 1s, for: 400ms}
  - {kind: net.cut-response, name: cut, at: 1500ms, for: 400ms, bytes: 300}
  - {kind: net.bandwidth, name: thin, at: 2s, for: 400ms, rate: 50}
  - {kind: net.blackhole, name: hole, at: 2500ms, for: 600ms}
`

// No network fault produces a false verdict, and each window is recorded
// as it happened.
func TestNetworkFaultsKeepVerdictsTrue(t *testing.T) {
	sc := runtest.Parse(t, netFaultsScenario)
	sum, _, log := runFaults(t, sc)
	if !strings.Contains(sum.Target, "through Toxiproxy") {
		t.Errorf("target %q: not through Toxiproxy", sum.Target)
	}
	noCheckFails(t, sum, "under network faults")
	var unknown int64
	for _, w := range sum.Workloads {
		for _, o := range w.Ops {
			unknown += o.Outcomes[checks.Unknown.String()]
		}
	}
	if unknown == 0 {
		t.Errorf("network faults left no unknown outcome\n%s", log)
	}
	t.Logf("unknown outcomes: %d\n%s", unknown, log)
	for _, name := range []string{"rst-in", "rst-out", "cut", "thin", "hole"} {
		if !strings.Contains(log, "fault "+name+": on at +") || !strings.Contains(log, "fault "+name+": lifted at +") {
			t.Errorf("fault %s: window not opened and lifted:\n%s", name, log)
		}
	}
}

// targetFaultsScenario pauses Azurite, then stops it cleanly and restarts
// it, in the middle of the load.
const targetFaultsScenario = `
name: target-faults
seed: 13
duration: 20s
timeout: 1s
retry: {max_attempts: 3, base: 50ms, max: 500ms}
workloads:
  - name: counter
    kind: blob.etag-counter
    actors: 3
    keys: 2
  - name: create
    kind: blob.create-once
    actors: 2
faults:
  - {kind: target.pause, name: freeze, at: 1s, for: 1500ms}
  - {kind: target.stop, name: restart, at: 4s, for: 1s}
`

// Pausing and stopping managed Azurite mid-run leaves the run going: the
// load goes on after the restart, and no check fails.
func TestTargetFaultsLeaveTheRunGoing(t *testing.T) {
	sc := runtest.Parse(t, targetFaultsScenario)
	sum, dir, log := runFaults(t, sc)
	t.Logf("%s", log)
	noCheckFails(t, sum, "after a pause and a clean restart")
	for _, want := range []string{"fault freeze: on at +", "fault freeze: lifted at +", "fault restart: on at +", "fault restart: lifted at +"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log does not say %q", want)
		}
	}
	if strings.Contains(log, "fault restart: azurite") {
		t.Fatalf("the restart failed:\n%s", log)
	}
	// The load went on after the restart: a write acknowledged after the
	// window closed.
	var h []checks.Op
	readHistoryFile(t, filepath.Join(dir, HistoryFile), func(op *checks.Op) { h = append(h, *op) })
	var lifted time.Duration
	for _, line := range strings.Split(log, "\n") {
		if _, after, ok := strings.Cut(line, "fault restart: lifted at +"); ok {
			lifted, _ = time.ParseDuration(after)
		}
	}
	// How soon depends on how fast Azurite restarts on this machine: the
	// load's own writes may all fall before it is back, the final reads
	// never do.
	loadWrites, answered := 0, 0
	for _, op := range h {
		if op.Outcome != checks.OK || time.Duration(op.Call) <= time.Duration(sum.LoadStart)+lifted {
			continue
		}
		answered++
		if op.Actor >= 0 && op.Kind == "blob.put" {
			loadWrites++
		}
	}
	if answered == 0 {
		t.Errorf("Azurite answered nothing after the restart (lifted at +%v)", lifted)
	}
	t.Logf("after the restart: %d load writes acknowledged, %d answers in all", loadWrites, answered)
}

// A crash (SIGKILL) mid-run: Azurite restarts on the same workspace and
// the run goes on. A crash may lose acknowledged writes (LokiJS saves every
// 5 s), so a failed check is allowed here, but only named as following the
// crash.
func TestCrashLeavesTheRunGoing(t *testing.T) {
	sc := runtest.Parse(t, `
name: crash
seed: 14
duration: 10s
timeout: 1s
retry: {max_attempts: 3, base: 50ms, max: 500ms}
workloads:
  - name: counter
    kind: blob.etag-counter
    actors: 3
faults:
  - {kind: target.crash, name: boom, at: 3s, for: 1s}
`)
	sum, _, log := runFaults(t, sc)
	if len(sum.Faults) != 1 || sum.Faults[0].Fault != "boom" || sum.Faults[0].Err != "" {
		t.Fatalf("fault windows %+v\n%s", sum.Faults, log)
	}
	var textX strings.Builder
	if err := text.WriteText(&textX, sum); err != nil {
		t.Fatal(err)
	}
	failed := false
	for _, r := range sum.Checks {
		failed = failed || r.Verdict == checks.Fail
	}
	if failed != strings.Contains(textX.String(), "a failed check after crash boom") {
		t.Errorf("failed %v, but the report's crash note does not follow:\n%s", failed, textX.String())
	}
	t.Logf("checks failed after the crash: %v", failed)
}

// runFaults runs sc against managed Azurite into a fresh results
// directory and fails the test if the run does; it returns the summary,
// the directory and the run's log.
func runFaults(t *testing.T, sc *scenarios.Scenario) (*reports.Summary, string, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "results")
	var log strings.Builder
	sum, err := Run(context.Background(), sc, Options{ResultsDir: dir, Log: &log})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	return sum, dir, log.String()
}

// noCheckFails fails the test for every check that failed (what: under
// which faults).
func noCheckFails(t *testing.T, sum *reports.Summary, what string) {
	t.Helper()
	for _, r := range sum.Checks {
		if r.Verdict == checks.Fail {
			t.Errorf("check %s on %s failed %s: %s %+v", r.Check, r.Workload, what, r.Summary, r.Violations)
		}
	}
}
