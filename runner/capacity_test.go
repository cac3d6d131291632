package runner

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/runtest"
	"github.com/stormcheck/stormcheck/runner/target"
)

// steppingClock is a virtual clock for the throttling proxy: each reading
// (the proxy reads it once per request) moves it one step on. Virtual time
// is then the count of requests the proxy has seen, so the arrival rate a
// unit sees, and so every decision of its bucket, is fixed by the order of
// the requests, never by how fast a busy machine sends them.
type steppingClock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

func (c *steppingClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.step)
	return c.now
}

// TestCapacityEmulation runs the checklist's advice through the throttling
// emulation in front of a managed Azurite, scaled down (a partition takes
// 100 entities/s), each workload one closed-loop actor, the proxy on a
// virtual clock that moves 1/150 s per request: the two workloads share
// 150 requests per virtual second, so the hot one offers its partition
// between 75/s and 150/s whatever the interleaving. It asserts what the
// code decided:
//   - the single hot partition is throttled, and the first time after
//     fewer than 50 admitted inserts: under its 100/s target without the
//     warm-up model (a full 100-token bucket) it could not be; only the
//     cold bucket (20 % of the target) explains it;
//   - hash-prefixed keys spread over a thousand partitions a second and
//     are never throttled;
//   - every throttled attempt in the history is retried after its answer, and
//     some recover; the unit figures and thresholds agree with the history.
//
// How a burst and a ramp differ is the bucket model's, tested with virtual
// arrivals in runner/throttle (and through the proxy to Azurite in
// TestRampThrottlesLaterThanBurst).
func TestCapacityEmulation(t *testing.T) {
	sc := runtest.Parse(t, `
name: capacity-test
duration: 5m
capacity: {scale: 0.05}
emulation: {throttle: true, warmup: 4s}
retry: {max_attempts: 6, base: 1ms, max: 4ms}
workloads:
  - {name: hot, kind: table.hot-partition, actors: 1, iterations: 250, params: {key_pattern: single}}
  - {name: hashed, kind: table.hot-partition, actors: 1, iterations: 250, params: {key_pattern: hash-prefix}}
thresholds:
  - utilisation(hashed/partition) < 0.5
  - throttled(hashed) == 0
  - throttled(hot) == 0
`)
	dir := filepath.Join(t.TempDir(), "results")
	clock := &steppingClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), step: time.Second / 150}
	sum, err := Run(context.Background(), sc, Options{ResultsDir: dir, Target: target.Options{ThrottleClock: clock.Now}})
	if err != nil {
		t.Fatal(err)
	}
	if sum.ClientCPU <= 0 || sum.ClientCPU > 1.5 {
		t.Errorf("client CPU share %v: want a measured share of the machine", sum.ClientCPU)
	}

	// The history, attempt by attempt, in the order each actor made them.
	type counts struct{ attempts, throttled, recovered, admittedBeforeFirst int }
	got := map[string]*counts{"hot": {}, "hashed": {}}
	firstSeen := map[string]bool{}
	prev := map[string]*checks.Op{}
	readHistoryFile(t, filepath.Join(dir, HistoryFile), func(op *checks.Op) {
		c := got[op.Workload]
		if c == nil || op.Actor < 0 || op.Kind != checks.KindTableInsert {
			return
		}
		c.attempts++
		switch op.Outcome {
		case checks.Throttled:
			c.throttled++
			firstSeen[op.Workload] = true
		case checks.OK:
			if !firstSeen[op.Workload] {
				c.admittedBeforeFirst++
			}
			if op.Attempt > 1 {
				c.recovered++
			}
		}
		// A throttled attempt is followed by the same operation's next
		// attempt (one actor: the next record), sent after the answer (the
		// back-off has full jitter, so may be near 0; backoff_test.go tests
		// its bounds).
		if p := prev[op.Workload]; p != nil && p.Outcome == checks.Throttled && p.Attempt < 6 {
			if op.Attempt != p.Attempt+1 || op.Key != p.Key {
				t.Errorf("%s: throttled attempt %d of %s followed by attempt %d of %s, want its retry", op.Workload, p.Attempt, p.Key, op.Attempt, op.Key)
			} else if op.Call < p.Return {
				t.Errorf("%s: retry of %s sent before the throttled answer came back", op.Workload, op.Key)
			}
		}
		prev[op.Workload] = op
	})
	hot, hashed := got["hot"], got["hashed"]
	t.Logf("hot: %+v; hashed: %+v", *hot, *hashed)
	if hot.attempts == 0 || hashed.attempts == 0 {
		t.Fatalf("no inserts recorded: hot %+v hashed %+v", *hot, *hashed)
	}
	if hot.throttled == 0 {
		t.Errorf("hot partition offered 75-150/s (virtual) against a cold 20/s was never throttled")
	} else if hot.admittedBeforeFirst >= 50 {
		t.Errorf("hot partition first throttled after %d admitted inserts: the warm-up model's cold bucket holds 20", hot.admittedBeforeFirst)
	}
	if hot.recovered == 0 {
		t.Error("no throttled insert recovered on a retry")
	}
	if hashed.throttled != 0 {
		t.Errorf("hash-prefixed keys throttled %d times", hashed.throttled)
	}

	// The report's figures are the history's.
	unitThrottled := map[string]int64{}
	var hotUnit reports.UnitSummary
	for _, u := range sum.Units {
		if u.Kind != reports.UnitPartition {
			continue
		}
		unitThrottled[u.Workload] += u.Throttled
		if u.Workload == "hot" && u.Name == "hot" {
			hotUnit = u
		}
	}
	if hotUnit.Target != 100 || hotUnit.Throttled != int64(hot.throttled) {
		t.Errorf("hot unit %+v: want target 100 and the history's %d throttled", hotUnit, hot.throttled)
	}
	if unitThrottled["hashed"] != 0 {
		t.Errorf("hashed units report %d throttled", unitThrottled["hashed"])
	}
	th := map[string]bool{}
	for _, r := range sum.Thresholds {
		th[r.Threshold] = r.Pass
	}
	if !th["utilisation(hashed/partition) < 0.5"] || !th["throttled(hashed) == 0"] || th["throttled(hot) == 0"] {
		t.Errorf("thresholds: %+v", sum.Thresholds)
	}
}
