package runner

import (
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/runtest"
	"github.com/stormcheck/stormcheck/scenarios"
	"github.com/stormcheck/stormcheck/scenarios/examples"
)

// seqnumResult is the seqnum-chain result of a run, failing the test if
// there is none.
func seqnumResult(t *testing.T, sum *reports.Summary, log string) checks.Result {
	t.Helper()
	for _, r := range sum.Checks {
		if r.Check == "seqnum-chain" {
			return r
		}
	}
	t.Fatalf("no seqnum-chain result\n%s", log)
	return checks.Result{}
}

// The shipped example, shortened, on unmodified Azurite: actors race on the
// sequence number, some CASes are acknowledged and some lose with 412, and
// seqnum-chain passes having judged every acknowledged CAS.
func TestPageSeqnumCASOnAzurite(t *testing.T) {
	src, ok := examples.Read("page-seqnum")
	if !ok {
		t.Fatal("no page-seqnum example")
	}
	sc, err := scenarios.Parse("page-seqnum.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	sc.Duration = 4e9
	sum, _, log := runFaults(t, sc)
	r := seqnumResult(t, sum, log)
	if r.Verdict != checks.Pass || r.Decided == 0 {
		t.Fatalf("seqnum-chain: %s %s (decided %d)\n%+v", r.Verdict, r.Summary, r.Decided, r.Violations)
	}
	var acked, lost int64
	for _, w := range sum.Workloads {
		for _, op := range w.Ops {
			if op.Op == "blob.page.seqnum" {
				acked += op.Outcomes[checks.OK.String()]
			}
			if op.Op == "blob.page.put" || op.Op == "blob.page.seqnum" {
				lost += op.Outcomes[checks.Conflict.String()]
			}
		}
	}
	if acked == 0 || lost == 0 {
		t.Errorf("%d CASes acknowledged, %d lost races: the actors did not race", acked, lost)
	}
	t.Logf("%s; %d acknowledged, %d lost races", r.Summary, acked, lost)
}

// broken.strip-seqnum against a real Azurite: with the sequence-number
// condition stripped from Put Page, an actor whose read is stale writes
// anyway and its increment (If-Match on its own write's ETag) goes through
// on a number another CAS already moved: seqnum-chain fails, and says how.
func TestPageSeqnumStrippedConditionIsCaught(t *testing.T) {
	sc := runtest.Parse(t, `
name: broken
seed: 21
duration: 4s
timeout: 2s
workloads:
  - {name: w, kind: blob.page-seqnum-cas, actors: 4}
faults:
  - {kind: broken.strip-seqnum, name: breaker}
`)
	sum, _, log := runFaults(t, sc)
	r := seqnumResult(t, sum, log)
	if r.Verdict != checks.Fail || r.Kinds["CAS not by one"] == 0 {
		t.Fatalf("seqnum-chain: %s %s, kinds %v; want a fail with CAS not by one\n%s", r.Verdict, r.Summary, r.Kinds, log)
	}
	t.Logf("caught: %s, kinds %v", r.Summary, r.Kinds)
}
