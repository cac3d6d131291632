package checks_test

import (
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
	"github.com/stormcheck/stormcheck/checks/consistency"
	"github.com/stormcheck/stormcheck/checks/lease"
)

// TestNothingJudgedIsUndecided feeds every registered check a history it
// cannot judge (empty, then only operations no check models and a read that
// found nothing) and requires UNDECIDED, never PASS, with no operation
// counted as decided.
func TestNothingJudgedIsUndecided(t *testing.T) {
	irrelevant := checkstest.NewHist()
	irrelevant.Add(checks.Op{Actor: 0, Kind: "harness.noop", Key: "k"})
	irrelevant.Add(checks.Op{Actor: 1, Kind: "harness.noop", Key: "k", Outcome: checks.Unknown, Out: checks.Output{Err: "timeout"}})
	histories := map[string][]checks.Op{"empty": nil, "irrelevant": irrelevant.Ops}
	for _, name := range checks.Names() {
		for hname, ops := range histories {
			c, err := checks.New(name)
			if err != nil {
				t.Fatal(err)
			}
			for i := range ops {
				op := ops[i]
				c.Observe(&op)
			}
			r := c.Finish()
			if r.Verdict != checks.Undecided {
				t.Errorf("%s on an %s history: verdict %s (%q), want undecided", name, hname, r.Verdict, r.Summary)
			}
			if r.Decided != 0 {
				t.Errorf("%s on an %s history: %d operations decided, want 0", name, hname, r.Decided)
			}
			if !strings.Contains(r.Summary, "undecided") {
				t.Errorf("%s on an %s history: summary %q does not say undecided", name, hname, r.Summary)
			}
		}
	}
}

// TestDecidedCountsJudgedOperations: a check that judged something reports
// how many operations it decided, and a pass with none decided is turned
// into undecided.
func TestDecidedCountsJudgedOperations(t *testing.T) {
	h := checkstest.NewHist()
	h.Setup("k", `"e0"`)
	h.Put(0, "k", `"e0"`, 1, "a-1", checks.OK, `"e1"`)
	h.Put(1, "k", `"e0"`, 1, "b-1", checks.Conflict, "")
	h.Final("k", 1, "a-1", `"e1"`)
	for _, name := range []string{consistency.NoLostUpdatesName, consistency.VersionChainName, consistency.LinearizableName} {
		c, _ := checks.New(name)
		for i := range h.Ops {
			op := h.Ops[i]
			c.Observe(&op)
		}
		r := c.Finish()
		if r.Verdict != checks.Pass || r.Decided == 0 {
			t.Errorf("%s: verdict %s, %d decided (%q); want pass with operations decided", name, r.Verdict, r.Decided, r.Summary)
		}
	}
	r := checks.Result{Check: "x", Verdict: checks.Pass, Summary: "x: fine"}.WithDecided(0)
	if r.Verdict != checks.Undecided || !strings.Contains(r.Summary, "no operation judged") {
		t.Errorf("a pass with nothing decided: %s %q, want undecided saying why", r.Verdict, r.Summary)
	}
	if f := (checks.Result{Verdict: checks.Fail}).WithDecided(0); f.Verdict != checks.Fail {
		t.Errorf("a failure with nothing counted stays a failure, got %s", f.Verdict)
	}
}

// TestShareDecided: every check says how many operations it could judge
// (Judgeable), never fewer than it decided; a write of unknown outcome that
// nothing settles counts as judgeable, not decided, so the share falls
// below 1, and a check that decided nothing has share 0.
func TestShareDecided(t *testing.T) {
	settled := checkstest.NewHist()
	settled.Setup("k", `"e0"`)
	settled.Put(0, "k", `"e0"`, 1, "a-1", checks.OK, `"e1"`)
	settled.Final("k", 1, "a-1", `"e1"`)
	open := checkstest.NewHist()
	open.Setup("k", `"e0"`)
	open.Put(0, "k", `"e0"`, 1, "a-1", checks.OK, `"e1"`)
	open.Put(1, "k", "", 2, "b-2", checks.Unknown, "") // unconditional, never read: nothing settles it
	open.Final("k", 1, "a-1", `"e1"`)
	run := func(name string, ops []checks.Op) checks.Result {
		c, _ := checks.New(name)
		for i := range ops {
			op := ops[i]
			c.Observe(&op)
		}
		return c.Finish()
	}
	// linearizable decides a key as a whole: an unknown write nothing
	// read is immaterial to it.
	for _, name := range []string{consistency.VersionChainName, consistency.LinearizableName} {
		s, o := run(name, settled.Ops), run(name, open.Ops)
		if s.Judgeable != s.Decided || s.Share() != 1 {
			t.Errorf("%s settled: %d of %d decided, want all", name, s.Decided, s.Judgeable)
		}
		if name != consistency.LinearizableName && (o.Judgeable <= o.Decided || o.Share() >= 1) {
			t.Errorf("%s with an open write: %d of %d decided (%q), want fewer than judgeable", name, o.Decided, o.Judgeable, o.Summary)
		}
	}
	leases := checkstest.NewHist()
	leases.Lease(0, "blob.lease.acquire", "k", "id-a", checks.OK)
	leases.Lease(1, "blob.lease.acquire", "k", "id-b", checks.Unknown)
	for _, name := range []string{lease.LeaseExclusionName, lease.LeaseProtocolName} {
		r := run(name, leases.Ops)
		if r.Judgeable <= r.Decided {
			t.Errorf("%s with an acquire of unknown outcome: %d of %d decided (%q), want it judgeable, not decided", name, r.Decided, r.Judgeable, r.Summary)
		}
	}
	for _, name := range checks.Names() {
		r := run(name, open.Ops)
		if r.Judgeable < r.Decided || r.Decided == 0 && r.Share() != 0 {
			t.Errorf("%s: %d of %d decided, share %v", name, r.Decided, r.Judgeable, r.Share())
		}
	}
}
