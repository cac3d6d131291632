package runner

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
)

// TestCapacityEmulation runs the checklist's advice through the throttling
// emulation in front of a managed Azurite, scaled down (a partition takes
// 100 entities/s): a single hot partition driven at 150/s throttles at its
// target while hash-prefixed keys at the same rate spread under it; a burst
// to the target on a cold partition throttles while a ramp to the same
// rate (warm-up model) throttles later or never; throttled attempts are
// retried with back-off and recover.
func TestCapacityEmulation(t *testing.T) {
	sc := parse(t, `
name: capacity-test
duration: 5s
capacity: {scale: 0.05}
emulation: {throttle: true, warmup: 4s}
retry: {max_attempts: 6, base: 50ms, max: 1s}
workloads:
  - {name: hot, kind: table.hot-partition, executor: open, rate: 150, actors: 16, params: {key_pattern: single}}
  - {name: hashed, kind: table.hot-partition, executor: open, rate: 150, actors: 16, params: {key_pattern: hash-prefix}}
  - {name: burst, kind: table.hot-partition, executor: open, rate: 100, actors: 16, params: {key_pattern: single}}
  - name: ramp
    kind: table.hot-partition
    executor: open
    rate: 5
    actors: 16
    stages: [{duration: 4s, target: 100}, {duration: 1s, target: 100}]
    params: {key_pattern: single}
thresholds:
  - utilisation(hashed/partition) < 0.5
  - throttled(hashed) == 0
  - throttled(hot) == 0
`)
	dir := filepath.Join(t.TempDir(), "results")
	sum, err := Run(context.Background(), sc, Options{ResultsDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if sum.ClientCPU <= 0 || sum.ClientCPU > 1.5 {
		t.Errorf("client CPU share %v: want a measured share of the machine", sum.ClientCPU)
	}
	unit := map[string]reports.UnitSummary{}
	for _, u := range sum.Units {
		if u.Kind == reports.UnitPartition && (u.Name == "hot" || u.Workload == "hashed") {
			if prev, ok := unit[u.Workload]; !ok || u.Peak > prev.Peak {
				unit[u.Workload] = u
			}
		}
	}
	hot, hashed := unit["hot"], unit["hashed"]
	if hot.Throttled == 0 || hot.Target != 100 {
		t.Errorf("hot partition at 150/s against 100/s: %+v", hot)
	}
	if hot.Mean > 1.3*hot.Target {
		t.Errorf("hot partition admitted %.0f/s on average, above its 100/s target", hot.Mean)
	}
	if hashed.Throttled != 0 || hashed.Utilisation > 0.5 {
		t.Errorf("hashed keys: %+v", hashed)
	}
	th := map[string]bool{}
	for _, r := range sum.Thresholds {
		th[r.Threshold] = r.Pass
	}
	if !th["utilisation(hashed/partition) < 0.5"] || !th["throttled(hashed) == 0"] || th["throttled(hot) == 0"] {
		t.Errorf("thresholds: %+v", sum.Thresholds)
	}

	first := map[string]float64{}
	for _, u := range sum.Units {
		if (u.Workload == "burst" || u.Workload == "ramp") && u.Throttled > 0 {
			first[u.Workload] = u.FirstThrottled
		}
	}
	b, burstThrottled := first["burst"]
	if !burstThrottled {
		t.Fatalf("a burst to the target on a cold partition was never throttled (warm-up model)")
	}
	if r, ok := first["ramp"]; ok && r <= b {
		t.Errorf("the ramp throttled first at %.2fs, the burst at %.2fs: want the ramp later", r, b)
	}

	// Throttled attempts were retried with back-off and recovered.
	var recovered int
	readHistoryFile(t, filepath.Join(dir, HistoryFile), func(op *checks.Op) {
		if op.Workload == "hot" && op.Attempt > 1 && op.Outcome == checks.OK {
			recovered++
		}
	})
	if recovered == 0 {
		t.Error("no throttled insert recovered on a retry")
	}
}
