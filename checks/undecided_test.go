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
