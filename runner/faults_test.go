package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
)

// httpFaultsScenario puts every HTTP fault kind on a counter and a
// create-once race against a managed Azurite, all through the load.
const httpFaultsScenario = `
name: http-faults
seed: 11
duration: 4s
timeout: 3s
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
	sc := parse(t, httpFaultsScenario)
	dir := filepath.Join(t.TempDir(), "results")
	var log strings.Builder
	sum, err := Run(context.Background(), sc, Options{ResultsDir: dir, Log: &log})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	for _, r := range sum.Checks {
		if r.Verdict == checks.Fail {
			t.Errorf("check %s on %s failed under HTTP faults: %s %+v", r.Check, r.Workload, r.Summary, r.Violations)
		}
	}
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
		t.Errorf("faults left no trace in the outcomes: unknown %d, throttled %d\n%s", unknown, throttled, log.String())
	}
	for _, name := range []string{"drop", "late", "busy", "dup", "slow"} {
		if !strings.Contains(log.String(), "fault "+name+": touched ") || strings.Contains(log.String(), "fault "+name+": touched 0 ") {
			t.Errorf("fault %s touched nothing:\n%s", name, log.String())
		}
	}
	_ = reports.Summary{}
}
