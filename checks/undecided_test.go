package checks

import (
	"strings"
	"testing"
)

// TestNothingJudgedIsUndecided feeds every registered check a history it
// cannot judge (empty, then only operations no check models and a read that
// found nothing) and requires UNDECIDED, never PASS, with no operation
// counted as decided.
func TestNothingJudgedIsUndecided(t *testing.T) {
	irrelevant := newHist()
	irrelevant.add(Op{Actor: 0, Kind: "harness.noop", Key: "k"})
	irrelevant.add(Op{Actor: 1, Kind: "harness.noop", Key: "k", Outcome: Unknown, Out: Output{Err: "timeout"}})
	histories := map[string][]Op{"empty": nil, "irrelevant": irrelevant.ops}
	for _, name := range Names() {
		for hname, ops := range histories {
			c, err := New(name)
			if err != nil {
				t.Fatal(err)
			}
			for i := range ops {
				op := ops[i]
				c.Observe(&op)
			}
			r := c.Finish()
			if r.Verdict != Undecided {
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
	h := newHist()
	h.setup("k", `"e0"`)
	h.put(0, "k", `"e0"`, 1, "a-1", OK, `"e1"`)
	h.put(1, "k", `"e0"`, 1, "b-1", Conflict, "")
	h.final("k", 1, "a-1", `"e1"`)
	for _, name := range []string{NoLostUpdatesName, VersionChainName, LinearizableName} {
		c, _ := New(name)
		for i := range h.ops {
			op := h.ops[i]
			c.Observe(&op)
		}
		r := c.Finish()
		if r.Verdict != Pass || r.Decided == 0 {
			t.Errorf("%s: verdict %s, %d decided (%q); want pass with operations decided", name, r.Verdict, r.Decided, r.Summary)
		}
	}
	r := Result{Check: "x", Verdict: Pass, Summary: "x: fine"}.decided(0)
	if r.Verdict != Undecided || !strings.Contains(r.Summary, "no operation judged") {
		t.Errorf("a pass with nothing decided: %s %q, want undecided saying why", r.Verdict, r.Summary)
	}
	if f := (Result{Verdict: Fail}).decided(0); f.Verdict != Fail {
		t.Errorf("a failure with nothing counted stays a failure, got %s", f.Verdict)
	}
}

// TestShareDecided: every check says how many operations it could judge
// (Judgeable), never fewer than it decided; a write of unknown outcome that
// nothing settles counts as judgeable, not decided, so the share falls
// below 1, and a check that decided nothing has share 0.
func TestShareDecided(t *testing.T) {
	settled := newHist()
	settled.setup("k", `"e0"`)
	settled.put(0, "k", `"e0"`, 1, "a-1", OK, `"e1"`)
	settled.final("k", 1, "a-1", `"e1"`)
	open := newHist()
	open.setup("k", `"e0"`)
	open.put(0, "k", `"e0"`, 1, "a-1", OK, `"e1"`)
	open.put(1, "k", "", 2, "b-2", Unknown, "") // unconditional, never read: nothing settles it
	open.final("k", 1, "a-1", `"e1"`)
	run := func(name string, ops []Op) Result {
		c, _ := New(name)
		for i := range ops {
			op := ops[i]
			c.Observe(&op)
		}
		return c.Finish()
	}
	// linearizable decides a key as a whole: an unknown write nothing
	// read is immaterial to it.
	for _, name := range []string{VersionChainName, LinearizableName} {
		s, o := run(name, settled.ops), run(name, open.ops)
		if s.Judgeable != s.Decided || s.Share() != 1 {
			t.Errorf("%s settled: %d of %d decided, want all", name, s.Decided, s.Judgeable)
		}
		if name != LinearizableName && (o.Judgeable <= o.Decided || o.Share() >= 1) {
			t.Errorf("%s with an open write: %d of %d decided (%q), want fewer than judgeable", name, o.Decided, o.Judgeable, o.Summary)
		}
	}
	leases := newHist()
	leases.lease(0, "blob.lease.acquire", "k", "id-a", OK)
	leases.lease(1, "blob.lease.acquire", "k", "id-b", Unknown)
	for _, name := range []string{LeaseExclusionName, LeaseProtocolName} {
		r := run(name, leases.ops)
		if r.Judgeable <= r.Decided {
			t.Errorf("%s with an acquire of unknown outcome: %d of %d decided (%q), want it judgeable, not decided", name, r.Decided, r.Judgeable, r.Summary)
		}
	}
	for _, name := range Names() {
		r := run(name, open.ops)
		if r.Judgeable < r.Decided || r.Decided == 0 && r.Share() != 0 {
			t.Errorf("%s: %d of %d decided, share %v", name, r.Decided, r.Judgeable, r.Share())
		}
	}
}
