package lease

import (
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

// The inferences that decide lease calls in a race and settle grants of
// unknown outcome: each is shown deciding a correct history, and still
// flagging a wrong one.

// TestLeaseConcurrentAnchors: a call that overlaps a successful grant is
// judged against every state the grants may have left (the latest one
// before the call may be either), not left ambiguous.
func TestLeaseConcurrentAnchors(t *testing.T) {
	const b = "b0"
	// A holds from 1 and releases at [2, 3]; B's acquire overlaps the
	// judged call at [4, 4.5]: available (A released, B not yet granted) or
	// leased(B).
	race := func(h lh) {
		h.acq(0, b, "A", 15, 0, 1, "ok")
		h.release(0, b, "A", 2, 3, "ok")
		h.acq(1, b, "B", 15, 2.5, 10, "ok")
	}
	runLeaseCases(t, LeaseProtocolName, "blob.", []leaseCase{
		{"a 409 while a concurrent grant may already hold", func(h lh) checkstest.Want {
			race(h)
			h.acq(2, b, "C", 15, 4, 4.5, "409 LeaseAlreadyPresent")
			return checkstest.Want{Verdict: checks.Pass, Summary: "4 lease calls and 0 blob calls judged (0 ambiguous, not judged)"}
		}},
		{"a success while a concurrent grant may not hold yet", func(h lh) checkstest.Want {
			race(h)
			h.data(2, "blob.put", b, "", 4, 4.5, "ok")
			return checkstest.Want{Verdict: checks.Pass, Summary: "(0 ambiguous, not judged)"}
		}},
		{"an answer no state of either grant allows", func(h lh) checkstest.Want {
			race(h)
			x := h.acq(2, b, "C", 15, 4, 4.5, "409 LeaseIdMismatchWithLeaseOperation")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("answered conflict 409 LeaseIdMismatchWithLeaseOperation while the lease may have been", x)}}
		}},
		{"another id released before the grant: the grant holds", func(h lh) checkstest.Want {
			// B's release succeeds at [2, 3] only if it took effect before
			// A's grant at [2.5, 3.5]: A holds afterwards.
			h.acq(1, b, "B", 15, 0, 1, "ok")
			h.release(1, b, "B", 2, 3, "ok")
			a := h.acq(0, b, "A", 15, 2.5, 3.5, "ok")
			h.data(2, "blob.put", b, "", 20, 20.1, "ok") // after A's certain end: allowed
			y := h.acq(2, b, "C", 15, 5, 5.1, "ok")
			return checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{checkstest.Vio("answered ok 201 while the lease was leased(a)", y, a)}}
		}},
		{"a delete is the latest anchor: the blob comes back without a lease", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 0, 1, "ok")
			d := h.data(0, "blob.delete", b, "A", 2, 2.1, "ok")
			h.data(1, "blob.put", b, "", 3, 3.1, "ok")
			x := h.acq(2, b, "C", 15, 4, 4.1, "409 LeaseAlreadyPresent")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("while the lease was available", x, d)}}
		}},
		{"a delete of unknown outcome is no anchor", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 0, 1, "ok")
			h.data(0, "blob.delete", b, "A", 2, 2.1, "unknown")
			h.acq(2, b, "C", 15, 4, 4.1, "409 LeaseAlreadyPresent")
			return checkstest.Want{Verdict: checks.Pass}
		}},
	})
}

// TestLeaseUnknownGrantOnlyExcuses: a grant of unknown outcome that nothing
// settles may excuse an answer (it is then ambiguous), never make one
// wrong; answers allowed whether or not it acted are judged.
func TestLeaseUnknownGrantOnlyExcuses(t *testing.T) {
	const b = "b0"
	released := func(h lh) {
		h.acq(0, b, "A", 15, 0, 1, "ok")
		h.release(0, b, "A", 2, 2.1, "ok")
		h.acq(1, b, "B", 15, 3, 3.1, "unknown")
	}
	// A refusal only B's grant explains: not flagged, not decided. (Judged
	// as if B never acted it would be a violation.)
	h := newLH("blob.")
	released(h)
	h.acq(2, b, "C", 15, 4, 4.1, "409 LeaseAlreadyPresent")
	r := h.Check(t, LeaseProtocolName)
	if r.Verdict != checks.Pass || r.Decided != 2 || r.Judgeable != 4 || !strings.Contains(r.Summary, "(1 ambiguous") {
		t.Errorf("%s, %d of %d decided, want pass, 2 of 4 (1 ambiguous, 1 unanswered): %s", r.Verdict, r.Decided, r.Judgeable, r.Summary)
	}
	// A success allowed whether or not B acted: judged.
	h = newLH("blob.")
	released(h)
	h.acq(2, b, "C", 15, 4, 4.1, "ok")
	r = h.Check(t, LeaseProtocolName)
	if r.Verdict != checks.Pass || r.Decided != 3 || !strings.Contains(r.Summary, "(0 ambiguous") {
		t.Errorf("%s, %d of %d decided, want pass, 3 decided: %s", r.Verdict, r.Decided, r.Judgeable, r.Summary)
	}
	// An answer wrong whether or not B acted: flagged.
	h = newLH("blob.")
	released(h)
	h.acq(3, b, "D", 15, 20, 20.1, "ok")
	x := h.renew(2, b, "C", 21, 21.1, "ok") // C was never granted
	checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{checkstest.Vio("answered ok 200", x)}}.Assert(t, h.Check(t, LeaseProtocolName))
}

// TestLeaseSettleGranted: an acquire whose answer was lost is shown granted
// by a later call that needs its id; settled, it is judged like any grant.
func TestLeaseSettleGranted(t *testing.T) {
	const b = "b0"
	runLeaseCases(t, LeaseExclusionName, "blob.", []leaseCase{
		{"granted, shown by a renew, after the holder released", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 0, 1, "ok")
			h.release(0, b, "A", 1.5, 1.6, "ok")
			h.acq(1, b, "B", 60, 2, 2.1, "unknown")
			h.renew(1, b, "B", 3, 3.1, "ok")
			h.data(1, "blob.put", b, "B", 4, 4.1, "ok")
			return checkstest.Want{Verdict: checks.Pass, Summary: "2 acquisitions, 0 breaks, 0 expiries, 1 write: no two holders (1 acquisition of unknown outcome settled by later calls: 1 granted, 0 not)"}
		}},
		{"granted while another certainly held: two holders", func(h lh) checkstest.Want {
			a := h.acq(0, b, "A", 60, 0, 1, "ok")
			x := h.acq(1, b, "B", 60, 2, 2.1, "unknown")
			h.renew(1, b, "B", 3, 3.1, "ok") // the service granted B: it renews (a second grant itself)
			return checkstest.Want{Verdict: checks.Fail, Total: 2, Vios: []checkstest.ExpectViolation{checkstest.Vio("two holders: #2", x, a), checkstest.Vio("two holders: #3", a)}}
		}},
		{"granted while another held, against the holder's own answers: two holders", func(h lh) checkstest.Want {
			a := h.acq(0, b, "A", 60, 0, 1, "ok")
			x := h.acq(1, b, "B", 60, 2, 2.1, "unknown")
			h.data(0, "blob.put", b, "A", 2.5, 2.6, "ok") // A still held: B granted after it, at the soonest
			h.renew(1, b, "B", 3, 3.1, "ok")
			return checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{checkstest.Vio("two holders: #2", x, a)}}
		}},
		{"a change succeeds when its proposed id is the lease: no sign of its old id", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 0, 1, "ok")
			h.acq(1, b, "B", 60, 2, 2.1, "unknown")
			h.change(1, b, "B", "A", 3, 3.1, "ok") // A is the lease: allowed, says nothing of B
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"a renew shows the grant only when no other call could have made it", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 0, 1, "ok")
			h.acq(1, b, "B", 60, 2, 2.1, "unknown") // refused in truth: A held
			h.release(0, b, "A", 5, 5.1, "ok")
			h.acq(1, b, "B", 60, 6, 6.1, "ok") // the same id again
			h.renew(1, b, "B", 7, 7.1, "ok")   // shows the second acquire, not the first
			return checkstest.Want{Verdict: checks.Pass, Summary: "no two holders"}
		}},
	})
	// The last case settles nothing.
	h := newLH("blob.")
	h.acq(0, b, "A", 60, 0, 1, "ok")
	h.acq(1, b, "B", 60, 2, 2.1, "unknown")
	h.release(0, b, "A", 5, 5.1, "ok")
	h.acq(1, b, "B", 60, 6, 6.1, "ok")
	h.renew(1, b, "B", 7, 7.1, "ok")
	if r := h.Check(t, LeaseExclusionName); strings.Contains(r.Summary, "settled") || r.Decided == r.Judgeable {
		t.Errorf("the unknown acquire was settled though two acquires could have granted B: %s (%d of %d)", r.Summary, r.Decided, r.Judgeable)
	}
}

// TestLeaseSettleRefuted: with a bound on when an operation of unknown
// outcome may still take effect (LeaseUnknownHorizon), answers that cannot
// be given while it holds rule an acquire out; without one it stays open.
func TestLeaseSettleRefuted(t *testing.T) {
	const b = "b0"
	build := func(h lh, ans string) uint64 {
		h.acq(0, b, "A", 15, 0, 1, "ok")
		h.release(0, b, "A", 2, 2.1, "ok")
		h.acq(1, b, "B", 15, 3, 3.1, "unknown")
		h.renew(1, b, "B", 3.2, 3.3, "409 LeaseIdMismatchWithLeaseOperation") // the settling call: B is not the lease
		h.data(2, "blob.put", b, "", 3.8, 3.9, "ok")                          // no lease held at all
		return h.acq(2, b, "C", 15, 4, 4.1, ans)
	}
	defer func(h time.Duration) { LeaseUnknownHorizon = h }(LeaseUnknownHorizon)
	for _, horizon := range []time.Duration{0, 500 * time.Millisecond} {
		LeaseUnknownHorizon = horizon
		h := newLH("blob.")
		build(h, "ok")
		r := h.Check(t, LeaseExclusionName)
		settled := strings.Contains(r.Summary, "settled by later calls: 0 granted, 1 not")
		if settled != (horizon > 0) || r.Verdict != checks.Pass {
			t.Errorf("horizon %v: %s: %s (%d of %d decided)", horizon, r.Verdict, r.Summary, r.Decided, r.Judgeable)
		}
		if horizon > 0 && r.Decided != r.Judgeable {
			t.Errorf("horizon %v: %d of %d decided, want all", horizon, r.Decided, r.Judgeable)
		}
		// B ruled out, a refusal of C has nothing to excuse it.
		h = newLH("blob.")
		x := build(h, "409 LeaseAlreadyPresent")
		r = h.Check(t, LeaseProtocolName)
		if horizon > 0 {
			checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("while the lease was available", x)}}.Assert(t, r)
		} else if r.Verdict != checks.Pass || !strings.Contains(r.Summary, "(1 ambiguous") {
			t.Errorf("no horizon: %s: %s", r.Verdict, r.Summary)
		}
	}
}

// done marks call seq as ended by the target (Output.Done): whatever it did,
// it did before its Return.
func (h lh) done(seq uint64) uint64 {
	h.Op(seq).Out.Done = true
	return seq
}

// TestLeaseSettleEnds: releases and renews whose answers were lost, ended by
// the target (Output.Done), are settled by what follows; one that may still
// act after its Return is not.
func TestLeaseSettleEnds(t *testing.T) {
	const b = "b0"
	runLeaseCases(t, LeaseProtocolName, "blob.", []leaseCase{
		{"a release shown undone by a later release: the lease stayed held", func(h lh) checkstest.Want {
			a := h.acq(0, b, "A", 15, 0, 1, "ok")
			h.done(h.release(0, b, "A", 2, 2.1, "unknown"))
			x := h.acq(1, b, "C", 15, 2.5, 2.6, "ok") // A still held: a second holder
			h.release(0, b, "A", 3, 3.1, "ok")
			return checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{checkstest.Vio("answered ok 201 while the lease was leased(a)", x, a)},
				Summary: "1 lease call of unknown outcome settled by later calls"}
		}},
		{"a release shown done by a refusal while the lease was certainly held", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 15, 0, 1, "ok")
			h.done(h.release(0, b, "A", 2, 2.1, "unknown"))
			h.release(0, b, "A", 2.2, 2.3, "409 LeaseIdMismatchWithLeaseOperation") // the retry: A is gone
			x := h.data(1, "blob.put", b, "", 3, 3.1, "412 LeaseIdMissing")         // no lease: must succeed
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("while the lease was available", x)}}
		}},
		{"a release that may act after its Return is not settled", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 15, 0, 1, "ok")
			h.release(0, b, "A", 2, 2.1, "unknown") // a timeout: it may land later
			h.release(0, b, "A", 2.2, 2.3, "409 LeaseIdMismatchWithLeaseOperation")
			h.data(1, "blob.put", b, "", 3, 3.1, "412 LeaseIdMissing")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"a renew while the lease may have been released is not settled", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 15, 0, 1, "ok")
			h.release(0, b, "A", 1.5, 1.6, "unknown") // may have released A, even later
			h.done(h.renew(0, b, "A", 2, 2.1, "unknown"))
			h.acq(1, b, "C", 15, 3, 3.1, "ok") // allowed: A may be gone
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"a renew of an id never granted did nothing", func(h lh) checkstest.Want {
			h.done(h.renew(0, b, "A", 2, 2.1, "unknown"))
			return checkstest.Want{Verdict: checks.Undecided, Summary: "1 lease call of unknown outcome settled by later calls"}
		}},
	})
	// The renew above, settled or not, must leave the acquire judged.
	h := newLH("blob.")
	h.acq(0, b, "A", 15, 0, 1, "ok")
	h.release(0, b, "A", 1.5, 1.6, "unknown")
	h.done(h.renew(0, b, "A", 2, 2.1, "unknown"))
	h.acq(1, b, "C", 15, 3, 3.1, "ok")
	if r := h.Check(t, LeaseExclusionName); r.Verdict != checks.Pass {
		t.Errorf("exclusion: %s: %s", r.Verdict, r.Summary)
	}
}
