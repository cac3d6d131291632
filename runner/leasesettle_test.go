package runner

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/blob"
	"github.com/stormcheck/stormcheck/runner/runtest"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

func TestEndedByTarget(t *testing.T) {
	for _, c := range []struct {
		o    checks.Outcome
		out  checks.Output
		want bool
	}{
		{checks.Unknown, checks.Output{Err: "EOF"}, true},                                              // the proxy dropped the answer
		{checks.Unknown, checks.Output{Err: "read: connection reset by peer"}, true},                   // Toxiproxy reset
		{checks.Throttled, checks.Output{Status: 500, ErrorCode: "OperationTimedOut"}, true},           // an answer
		{checks.Unknown, checks.Output{Status: 500, ErrorCode: "InternalError"}, true},                 // an answer
		{checks.Unknown, checks.Output{Status: 502, Err: "upstream: timeout"}, false},                  // the proxy gave up on a silent target
		{checks.Unknown, checks.Output{Err: "timeout"}, false},                                         // the client gave up
		{checks.Unknown, checks.Output{Err: "canceled"}, false},                                        // the run stopped it
		{checks.Unknown, checks.Output{}, false},                                                       // no reason known
		{checks.OK, checks.Output{Status: 201}, false},                                                 // not of unknown outcome
		{checks.Conflict, checks.Output{Status: 409, ErrorCode: "LeaseAlreadyPresent"}, false},         // refused
		{checks.Throttled, checks.Output{Status: 503, ErrorCode: "ServerBusy"}, false},                 // refused
		{checks.Error, checks.Output{Err: "dial tcp 127.0.0.1:1: connect: connection refused"}, false}, // never sent
	} {
		if got := workload.EndedByTarget(c.o, &c.out); got != c.want {
			t.Errorf("%s %+v: %v, want %v", c.o, c.out, got, c.want)
		}
	}
}

// TestLeaseBackoffBounds: after the n-th race lost in a row a lease-mutex
// actor waits between half and all of d/32 * 2^(n-1), at most d/4 (d the
// lease duration, 60 s for an infinite lease).
func TestLeaseBackoffBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, d := range []time.Duration{15 * time.Second, 60 * time.Second, scenarios.Infinite} {
		base := d
		if d == scenarios.Infinite {
			base = 60 * time.Second
		}
		for n, hi := range map[int]time.Duration{1: base / 32, 2: base / 16, 3: base / 8, 4: base / 4, 9: base / 4} {
			lo, seenLo, seenHi := hi/2, false, false
			for range 2000 {
				w := blob.LeaseBackoff(r, d, n)
				if w < lo || w > hi {
					t.Fatalf("d %v, loss %d: waited %v, want %v to %v", d, n, w, lo, hi)
				}
				seenLo = seenLo || w < lo+(hi-lo)/10
				seenHi = seenHi || w > hi-(hi-lo)/10
			}
			if !seenLo || !seenHi {
				t.Errorf("d %v, loss %d: the waits do not spread over %v to %v", d, n, lo, hi)
			}
		}
	}
}

// leaseSettleScenario loses the answers of a fifth of the lease calls
// after Azurite applied them, and answers another tenth 500 without
// forwarding them.
const leaseSettleScenario = `
name: lease-settle
seed: 5
duration: 3m
timeout: 3s
retry: {max_attempts: 4, base: 10ms, max: 100ms}
workloads:
  - name: mutex
    kind: blob.lease-mutex
    actors: 4
    iterations: 40
    params: {hold: 20ms}
faults:
  - {kind: http.drop-response, name: drop, ops: [blob.lease], fraction: 0.2}
  - {kind: http.internal-error, name: err, ops: [blob.lease], fraction: 0.1}
`

// TestLeaseAcquiresSettle checks, from the recorded history of lease-mutex
// under lost answers: an acquire that may have acted is never retried
// with its id, and the actor's next call renews that id (the settling
// call); the target ended each such call (Output.Done); the lease checks
// settle some of them and pass; the summary reports acquires per win.
func TestLeaseAcquiresSettle(t *testing.T) {
	sc := runtest.Parse(t, leaseSettleScenario)
	dir := filepath.Join(t.TempDir(), "results")
	var log strings.Builder
	sum, err := Run(context.Background(), sc, Options{ResultsDir: dir, Log: &log})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	requireIterationsDone(t, sum, 3*time.Minute)
	unsettled := map[int]*checks.Op{} // actor -> its acquire of unknown outcome, until its next call
	mayHave := 0
	readHistoryFile(t, filepath.Join(dir, HistoryFile), func(op *checks.Op) {
		if op.IsHarness() {
			return
		}
		if u := unsettled[op.Actor]; u != nil {
			if op.Kind != "blob.lease.renew" || op.In.LeaseID != u.In.LeaseID || op.Attempt != 1 {
				t.Errorf("#%d: actor %d's call after #%d's unknown acquire is %s (attempt %d, lease %s), not a renew of %s",
					op.Seq, op.Actor, u.Seq, op.Kind, op.Attempt, op.In.LeaseID, u.In.LeaseID)
			}
			delete(unsettled, op.Actor)
		}
		if op.Kind == "blob.lease.acquire" && workload.MayHaveApplied(op) {
			mayHave++
			if !op.Out.Done {
				t.Errorf("#%d (%s): the target ended it, yet it is not marked done", op.Seq, op.Out.Err)
			}
			c := *op
			unsettled[op.Actor] = &c
		}
	})
	if mayHave == 0 {
		t.Fatalf("no acquire of unknown outcome: the test judged nothing\n%s", log.String())
	}
	settled := false
	for _, r := range sum.Checks {
		if r.Verdict != checks.Pass {
			t.Errorf("%s: %s: %s", r.Check, r.Verdict, r.Summary)
		}
		settled = settled || strings.Contains(r.Summary, "of unknown outcome settled by later calls")
		t.Log(r.Check, r.Verdict, r.Decided, r.Judgeable, r.Summary)
	}
	if !settled {
		t.Errorf("%d acquires of unknown outcome, none settled", mayHave)
	}
	t.Logf("%d acquires of unknown outcome; %.2f acquires per win", mayHave, sum.Workloads[0].AcquiresPerWin)
	if w := sum.Workloads[0]; w.AcquiresPerWin < 1 {
		t.Errorf("acquires per win %v, want at least 1", w.AcquiresPerWin)
	}
}
