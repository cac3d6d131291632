package lease

import (
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

// Timelines are in seconds; rho is 0.01, so a 15 s lease acquired over
// [1, 1.1] is certainly held over [1.1, 15.85] and possibly over [1, 16.25].
func TestLeaseExclusion(t *testing.T) {
	const b = "b0"
	runLeaseCases(t, LeaseExclusionName, "blob.", []leaseCase{
		// Two holders.
		{"second acquire inside the first's certain window", func(h lh) checkstest.Want {
			a := h.acq(0, b, "A", 15, 1, 1.1, "ok")
			x := h.acq(1, b, "B", 15, 5, 5.1, "ok")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("two holders: #2", a, x)},
				Summary: "1 blob, 2 acquisitions, 0 breaks"}
		}},
		{"second acquire after the first certainly expired", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 15, 1, 1.1, "ok")
			h.acq(1, b, "B", 15, 16.5, 16.6, "ok") // after 1.1 + 15*1.01 = 16.25
			h.data(1, "blob.put", b, "B", 17, 17.1, "ok")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 blob, 2 acquisitions, 0 breaks, 1 expiry, 1 write: no two holders"}
		}},
		{"second acquire at the expiry boundary, within rho", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 15, 1, 1.1, "ok")
			h.acq(1, b, "B", 15, 15.8, 15.9, "ok") // certain end 1 + 15*0.99 = 15.85
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"second acquire at the expiry boundary, within the first's latency", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 15, 1, 3, "ok") // may have taken effect at 1: certain only until 15.85
			h.acq(1, b, "B", 15, 15.5, 16, "ok")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"renewal extends the certain window", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 15, 1, 1.1, "ok")
			r := h.renew(0, b, "A", 10, 10.1, "ok")
			x := h.acq(1, b, "B", 15, 20, 20.1, "ok") // renewed: certain until 10 + 14.85
			return checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{checkstest.Vio("two holders", x, r)}, Total: 1, Summary: "0 expiries"}
		}},
		{"an acquire with the same id sets a new, shorter duration", func(h lh) checkstest.Want {
			h.acq(0, b, "A", -1, 1, 1.1, "ok")
			h.acq(0, b, "A", 15, 3, 3.1, "ok") // Leased (A), new duration: expires by 18.25
			h.data(1, "blob.put", b, "", 19, 19.1, "ok")
			h.acq(1, b, "B", 15, 20, 20.1, "ok")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"an unknown same-id acquire may have shortened it", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 1, 1.1, "ok")
			h.acq(0, b, "A", 15, 3, 33, "unknown") // may have landed at 3: expires by 18.25
			h.acq(1, b, "B", 15, 40, 40.1, "ok")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"the changed lease keeps the shortened expiry", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 1, 1.1, "ok")
			h.acq(0, b, "A", 15, 3, 3.1, "ok")
			h.change(0, b, "A", "C", 5, 5.1, "ok") // C expires with A, by 18.25
			h.acq(1, b, "B", 15, 20, 20.1, "ok")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"a refused renewal does not extend it", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 15, 1, 1.1, "ok")
			h.renew(0, b, "A", 10, 10.1, "409 LeaseIdMismatchWithLeaseOperation")
			h.acq(1, b, "B", 15, 20, 20.1, "ok")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"release, then another actor's acquire", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 1, 1.1, "ok")
			h.data(0, "blob.put", b, "A", 2, 2.1, "ok")
			h.release(0, b, "A", 3, 3.1, "ok")
			h.acq(1, b, "B", 60, 4, 4.1, "ok")
			h.data(1, "blob.put", b, "B", 5, 5.1, "ok")
			return checkstest.Want{Verdict: checks.Pass, Summary: "0 expiries, 2 writes: no two holders"}
		}},
		{"acquire overlapping the holder's release", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 1, 1.1, "ok")
			h.release(0, b, "A", 3, 3.5, "ok")
			h.acq(1, b, "B", 60, 3.2, 3.4, "ok") // the release may have come first
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"unknown release, then another actor's acquire", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 1, 1.1, "ok")
			h.release(0, b, "A", 3, 33, "unknown")
			h.acq(1, b, "B", 60, 34, 34.1, "ok")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"unknown acquire, then another actor's acquire", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 1, 31, "unknown") // may not have applied
			h.acq(1, b, "B", 60, 32, 32.1, "ok")
			h.data(1, "blob.put", b, "B", 33, 33.1, "ok")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"change, then writes with the new id", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 1, 1.1, "ok")
			h.change(0, b, "A", "C", 3, 3.1, "ok")
			h.data(0, "blob.put", b, "C", 4, 4.1, "ok")
			h.data(0, "blob.commit", b, "C", 5, 5.1, "ok")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"writes with the old id after the change completed", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 1, 1.1, "ok")
			c := h.change(0, b, "A", "C", 3, 3.1, "ok")
			w := h.data(1, "blob.put", b, "A", 5, 5.1, "ok")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("changed it to c", w, c)}}
		}},
		{"write with the old id overlapping the change", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 1, 1.1, "ok")
			h.change(0, b, "A", "C", 3, 3.5, "ok")
			h.data(1, "blob.put", b, "A", 3.2, 3.4, "ok")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"the changed lease keeps the old expiry", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 15, 1, 1.1, "ok")
			h.change(0, b, "A", "C", 3, 3.1, "ok")
			x := h.acq(1, b, "B", 15, 10, 10.1, "ok") // C certainly held until 15.85
			h.acq(2, b, "D", 15, 30, 30.1, "ok")      // after C (16.25) and B (25.25) possibly ended
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("while lease c", x)}}
		}},
		{"stale write long after the lease certainly ended", func(h lh) checkstest.Want {
			a := h.acq(0, b, "A", 15, 1, 1.1, "ok")
			w := h.data(0, "blob.put", b, "A", 40, 40.1, "ok")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("certainly expired", w, a)}}
		}},
		{"write with the lease id just before expiry", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 15, 1, 1.1, "ok")
			h.data(0, "blob.put", b, "A", 16, 16.2, "ok") // possibly held until 16.25
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"stale write after release", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 1, 1.1, "ok")
			r := h.release(0, b, "A", 3, 3.1, "ok")
			w := h.data(0, "blob.setmeta", b, "A", 4, 4.1, "ok")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("released it", w, r)}}
		}},
		{"stale write after another id was granted", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 15, 1, 1.1, "ok")
			x := h.acq(1, b, "B", 60, 16, 16.1, "ok") // A possibly held until 16.25, not after B
			w := h.data(0, "blob.put", b, "A", 16.15, 16.2, "ok")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("was granted lease b", w, x)}}
		}},
		{"write with an id never granted", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 1, 1.1, "ok")
			w := h.data(1, "blob.put", b, "Z", 2, 2.1, "ok")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("before any grant", w)}}
		}},
		{"write before its lease's acquire could have applied", func(h lh) checkstest.Want {
			w := h.data(0, "blob.put", b, "A", 1, 1.1, "ok")
			a := h.acq(0, b, "A", 60, 2, 2.1, "ok")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("before any grant", w, a)}}
		}},
		{"write without id accepted while certainly leased", func(h lh) checkstest.Want {
			a := h.acq(0, b, "A", 60, 1, 1.1, "ok")
			w := h.data(1, "blob.put", b, "", 5, 5.1, "ok")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("no holder: #2", w, a)}}
		}},
		{"Put Block without id accepted while certainly leased", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 1, 1.1, "ok")
			w := h.data(1, "blob.stage", b, "", 5, 5.1, "ok")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("no holder", w)}}
		}},
		{"write without id refused 412", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 1, 1.1, "ok")
			h.data(1, "blob.put", b, "", 5, 5.1, "412 LeaseIdMissing")
			h.read(1, b, "", "E1", 6, 6.1, "ok")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"write without id after the lease may have expired", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 15, 1, 1.1, "ok")
			h.data(1, "blob.put", b, "", 15.8, 15.9, "ok")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"write without id before the acquire returned", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 15, 1, 2, "ok")
			h.data(1, "blob.put", b, "", 1.2, 1.5, "ok")
			return checkstest.Want{Verdict: checks.Pass}
		}},

		// Breaks.
		{"break period 0, then another actor's acquire", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 1, 1.1, "ok")
			s := h.brk(2, b, pint(0), 3, 3.1, "ok")
			h.Op(s).Out.LeaseTime = pint(0)
			h.acq(1, b, "B", 60, 4, 4.1, "ok")
			h.data(1, "blob.put", b, "B", 5, 5.1, "ok")
			return checkstest.Want{Verdict: checks.Pass, Summary: "2 acquisitions, 1 break"}
		}},
		{"acquire during the break period accepted", func(h lh) checkstest.Want {
			a := h.acq(0, b, "A", 60, 1, 1.1, "ok")
			h.brk(2, b, pint(20), 3, 3.1, "ok")
			x := h.acq(1, b, "B", 60, 5, 5.1, "ok") // A locked until 3 + 20*0.99
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("two holders", x, a)}}
		}},
		{"acquire during the break period refused", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 1, 1.1, "ok")
			h.brk(2, b, pint(20), 3, 3.1, "ok")
			h.acq(1, b, "B", 60, 5, 5.1, "409 LeaseAlreadyPresent")
			h.data(0, "blob.put", b, "A", 6, 6.1, "ok") // still locked, the holder may write
			h.acq(1, b, "B", 60, 24, 24.1, "ok")        // after 3.1 + 20*1.01
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"write with the broken lease after the break period", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 1, 1.1, "ok")
			br := h.brk(2, b, pint(5), 3, 3.1, "ok")
			w := h.data(0, "blob.put", b, "A", 10, 10.1, "ok")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("broke it", w, br)}}
		}},
		{"break period longer than the lease's remaining time", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 15, 1, 1.1, "ok")
			h.brk(2, b, pint(60), 3, 3.1, "ok") // breaks when the lease would expire
			h.acq(1, b, "B", 15, 17, 17.1, "ok")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"break without period keeps a finite lease to its expiry", func(h lh) checkstest.Want {
			a := h.acq(0, b, "A", 30, 1, 1.1, "ok")
			h.brk(2, b, nil, 3, 3.1, "ok")
			x := h.acq(1, b, "B", 15, 10, 10.1, "ok")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("two holders", x, a)}}
		}},

		// Infinite leases.
		{"infinite lease, second holder much later", func(h lh) checkstest.Want {
			a := h.acq(0, b, "A", -1, 1, 1.1, "ok")
			x := h.acq(1, b, "B", -1, 500, 500.1, "ok")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("certainly held until forever", x, a)}}
		}},
		{"infinite lease, write without id much later", func(h lh) checkstest.Want {
			h.acq(0, b, "A", -1, 1, 1.1, "ok")
			w := h.data(1, "blob.put", b, "", 900, 900.1, "ok")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("no holder", w)}}
		}},
		{"infinite lease released, then acquired", func(h lh) checkstest.Want {
			h.acq(0, b, "A", -1, 1, 1.1, "ok")
			h.data(0, "blob.put", b, "A", 300, 300.1, "ok")
			h.release(0, b, "A", 400, 400.1, "ok")
			h.acq(1, b, "B", -1, 401, 401.1, "ok")
			return checkstest.Want{Verdict: checks.Pass, Summary: "0 expiries"}
		}},
		{"infinite lease broken without period, then acquired", func(h lh) checkstest.Want {
			h.acq(0, b, "A", -1, 1, 1.1, "ok")
			h.brk(2, b, nil, 10, 10.1, "ok")
			h.acq(1, b, "B", -1, 11, 11.1, "ok")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"infinite lease broken with period 30, acquired during it", func(h lh) checkstest.Want {
			h.acq(0, b, "A", -1, 1, 1.1, "ok")
			h.brk(2, b, pint(30), 10, 10.1, "ok")
			x := h.acq(1, b, "B", -1, 15, 15.1, "ok")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("two holders", x)}}
		}},
		{"infinite lease, unknown break, then acquired", func(h lh) checkstest.Want {
			h.acq(0, b, "A", -1, 1, 1.1, "ok")
			h.brk(2, b, pint(0), 10, 40, "unknown")
			h.acq(1, b, "B", -1, 41, 41.1, "ok")
			return checkstest.Want{Verdict: checks.Pass}
		}},

		// Lease ids name the same lease in any GUID format and case.
		{"the same GUID in two formats", func(h lh) checkstest.Want {
			h.acq(0, b, "AAAAAAAA-BBBB-CCCC-DDDD-EEEEEEEEEEEE", 60, 1, 1.1, "ok")
			h.data(0, "blob.put", b, "{aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee}", 2, 2.1, "ok")
			h.acq(0, b, "aaaaaaaabbbbccccddddeeeeeeeeeeee", 60, 3, 3.1, "ok") // renews
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"no duration recorded: at least 15 s", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 0, 1, 1.1, "ok")
			x := h.acq(1, b, "B", 0, 10, 10.1, "ok")
			h.acq(2, b, "C", 0, 100, 100.1, "ok") // perhaps infinite: not certain, not flagged
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("two holders", x)},
				Summary: "no duration recorded for 3 acquisitions"}
		}},
		{"other blobs' and kinds' operations are ignored", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 1, 1.1, "ok")
			h.data(1, "blob.put", "other", "", 5, 5.1, "ok")
			h.data(1, "queue.put", b, "", 5, 5.1, "ok")
			h.data(1, "blob.get", b, "", 5, 5.1, "ok")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 blob"}
		}},
		{"no lease calls", func(h lh) checkstest.Want {
			h.data(1, "blob.put", b, "", 5, 5.1, "ok")
			return checkstest.Want{Verdict: checks.Undecided, Summary: "no blob lease calls"}
		}},
		{"no acquisition succeeded", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 1, 31, "unknown")
			h.data(1, "blob.put", b, "", 40, 40.1, "ok")
			return checkstest.Want{Verdict: checks.Undecided, Summary: "undecided, no acquisition succeeded"}
		}},
	})
}

func TestLeaseExclusionViolationsPerOp(t *testing.T) {
	// One op is reported once even when it breaks two rules, and every
	// excerpt stays small.
	h := newLH("blob.")
	h.acq(0, "b", "A", -1, 1, 1.1, "ok")
	for i := range 30 {
		h.acq(i+1, "b", "B"+string(rune('a'+i%26)), -1, float64(10+i), float64(10+i)+0.1, "ok")
	}
	r := h.Check(t, LeaseExclusionName)
	if r.Verdict != checks.Fail || r.Total != 30 || len(r.Violations) != checks.MaxViolations {
		t.Fatalf("got %s with %d violations (%d listed), want 30 (%d listed)", r.Verdict, r.Total, len(r.Violations), checks.MaxViolations)
	}
}
