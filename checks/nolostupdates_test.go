package checks

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
)

const nlu = NoLostUpdatesName

func TestNoLostUpdates(t *testing.T) {
	const k = "k0"
	cases := []struct {
		name  string
		build func(h *Hist) Want
	}{
		// Clean histories.
		{"one actor, serial", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			h.rmw(0, k, 1, "a0-1", "E1", "a0-2", "E2")
			h.rmw(0, k, 2, "a0-2", "E2", "a0-3", "E3")
			h.Final(k, 3, "a0-3", "E3")
			return Want{Verdict: Pass, Summary: "1 key, 3 acknowledged increments, 0 unknown (0 resolved), final 3: no update lost"}
		}},
		{"three actors interleaved with 412s, two keys", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.Setup("k1", "F0")
			h.Get(0, k, 0, "setup-1", "E0")
			h.Get(1, k, 0, "setup-1", "E0")
			h.Get(2, k, 0, "setup-1", "E0")
			h.Put(1, k, "E0", 1, "a1-1", OK, "E1")
			h.Put(0, k, "E0", 1, "a0-1", Conflict, "")
			h.rmw(2, "k1", 0, "setup-1", "F0", "a2-0", "F1")
			h.Put(2, k, "E0", 1, "a2-1", Conflict, "")
			h.Get(0, k, 1, "a1-1", "E1")
			h.Get(2, k, 1, "a1-1", "E1")
			h.Put(2, k, "E1", 2, "a2-2", OK, "E2")
			h.Put(0, k, "E1", 2, "a0-2", Conflict, "")
			h.rmw(0, k, 2, "a2-2", "E2", "a0-3", "E3")
			h.Get(1, k, 3, "a0-3", "E3")
			h.Final(k, 3, "a0-3", "E3")
			h.Final("k1", 1, "a2-0", "F1")
			return Want{Verdict: Pass, Summary: "2 keys, 4 acknowledged increments, 0 unknown (0 resolved), finals sum to 4: no update lost"}
		}},
		{"lease and other kinds are not reads", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.Lease(0, "blob.lease.acquire", k, "L1", OK)
			h.Lease(1, "blob.lease.acquire", k, "L2", Conflict)
			h.leaseGet(0, k, "L1", 0, "setup-1")
			h.leasePut(0, k, "L1", 1, "a0-1", OK)
			h.Lease(0, "blob.lease.release", k, "L1", OK)
			h.Add(Op{Actor: 0, Kind: "blob.create", Key: k, In: Input{Value: "9 ghost"}, Out: Output{Status: 201}})
			h.Final(k, 1, "a0-1", "E1")
			return Want{Verdict: Pass, Summary: "1 acknowledged increments"}
		}},

		// Unknown outcomes that must not be flagged.
		{"unknown put later read by another actor", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			h.Put(0, k, "E0", 1, "a0-1", Unknown, "")
			h.rmw(1, k, 1, "a0-1", "E1", "a1-1", "E2")
			h.Final(k, 2, "a1-1", "E2")
			return Want{Verdict: Pass, Summary: "1 acknowledged increments, 1 unknown (1 resolved), final 2: no update lost"}
		}},
		{"unknown put read only by the final read", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			h.Get(0, k, 1, "a0-1", "E1")
			h.Put(0, k, "E1", 2, "a0-2", Unknown, "")
			h.Final(k, 2, "a0-2", "E2")
			return Want{Verdict: Pass, Summary: "1 unknown (1 resolved), final 2"}
		}},
		{"unknown put that lost the race", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			h.Get(1, k, 0, "setup-1", "E0")
			h.Put(0, k, "E0", 1, "a0-1", Unknown, "")
			h.Put(1, k, "E0", 1, "a1-1", OK, "E1")
			h.rmw(1, k, 1, "a1-1", "E1", "a1-2", "E2")
			h.Final(k, 2, "a1-2", "E2")
			return Want{Verdict: Pass, Summary: "2 acknowledged increments, 1 unknown (1 resolved), final 2"}
		}},
		{"unknown put left open, final without it", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			h.Get(1, k, 1, "a0-1", "E1")
			h.Put(1, k, "E1", 2, "a1-1", Unknown, "")
			h.Final(k, 1, "a0-1", "E1")
			return Want{Verdict: Pass, Summary: "1 acknowledged increments, 1 unknown (0 resolved), final 1"}
		}},
		{"unknown put left open, final with it", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			h.Get(1, k, 1, "a0-1", "E1")
			h.Put(1, k, "E1", 2, "a1-1", Unknown, "")
			h.Final(k, 2, "a1-1", "E2")
			return Want{Verdict: Pass, Summary: "1 acknowledged increments, 1 unknown (1 resolved), final 2"}
		}},
		{"unread unknown widens the upper bound", func(h *Hist) Want {
			// a0-1 took effect, but the read that would show it timed out;
			// a1 then wrote 2 on its ETag. Only "maybe" explains final 2.
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			h.Put(0, k, "E0", 1, "a0-1", Unknown, "")
			h.failedGet(1, k, Unknown)
			h.Put(1, k, "E1", 2, "a1-1", OK, "E2")
			h.Final(k, 2, "a1-1", "E2")
			return Want{Verdict: Pass, Summary: "1 acknowledged increments, 1 unknown (0 resolved), final 2"}
		}},
		{"timed-out and failed gets are ignored", func(h *Hist) Want {
			h.Setup(k, "E0")
			g := h.failedGet(0, k, Unknown)
			h.Op(g).Out.Value = Cval(99, "ghost") // whatever a timed-out read carries, it says nothing
			g = h.failedGet(1, k, Throttled)
			h.Op(g).Out.Value = "garbage"
			h.rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			h.failedGet(ActorFinal, k, Unknown)
			h.Final(k, 1, "a0-1", "E1")
			h.failedGet(ActorFinal, k, Throttled) // a later final read that failed does not replace the answer
			return Want{Verdict: Pass, Summary: "final 1: no update lost"}
		}},
		{"retry after unknown: 412, re-read", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			h.Put(0, k, "E0", 1, "a0-1", Unknown, "")
			r := h.Put(0, k, "E0", 1, "a0-2", Conflict, "")
			h.Op(r).Attempt = 2
			h.rmw(0, k, 1, "a0-1", "E1", "a0-3", "E2")
			h.Final(k, 2, "a0-3", "E2")
			return Want{Verdict: Pass, Summary: "1 acknowledged increments, 1 unknown (1 resolved), final 2"}
		}},
		{"lease retry stores one increment twice", func(h *Hist) Want {
			// a0's first attempt landed after its retry, still under its
			// lease: two writes of counter 1, one increment.
			h.Setup(k, "E0")
			h.Lease(0, "blob.lease.acquire", k, "L1", OK)
			h.leaseGet(0, k, "L1", 0, "setup-1")
			h.leasePut(0, k, "L1", 1, "a0-1", Unknown)
			r := h.leasePut(0, k, "L1", 1, "a0-2", OK)
			h.Op(r).Attempt = 2
			h.Lease(0, "blob.lease.release", k, "L1", OK)
			h.Lease(1, "blob.lease.acquire", k, "L2", OK)
			h.leaseGet(1, k, "L2", 1, "a0-1")
			h.leasePut(1, k, "L2", 2, "a1-1", OK)
			h.Lease(1, "blob.lease.release", k, "L2", OK)
			h.Final(k, 2, "a1-1", "E9")
			return Want{Verdict: Pass, Summary: "2 acknowledged increments, 1 unknown (1 resolved), final 2: no update lost"}
		}},
		{"500 OperationTimedOut put that took effect", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			p := h.Put(0, k, "E0", 1, "a0-1", Throttled, "")
			h.Op(p).Out = Output{Status: 500, ErrorCode: "OperationTimedOut"}
			h.rmw(1, k, 1, "a0-1", "E1", "a1-1", "E2")
			h.Final(k, 2, "a1-1", "E2")
			return Want{Verdict: Pass, Summary: "1 unknown (1 resolved)"}
		}},

		// Violations.
		{"fork: two acknowledged puts on one ETag", func(h *Hist) Want {
			h.Setup(k, "E0")
			g0 := h.Get(0, k, 0, "setup-1", "E0")
			g1 := h.Get(1, k, 0, "setup-1", "E0")
			p0 := h.Put(0, k, "E0", 1, "a0-1", OK, "E1")
			p1 := h.Put(1, k, "E0", 1, "a1-1", OK, "E2")
			f := h.Final(k, 1, "a1-1", "E2")
			return Want{Verdict: Fail, Total: 2, Vios: []ExpectViolation{
				Vio("fork: #4 and #5 both took effect with If-Match E0", p0, p1, g0, g1),
				Vio("lost update: 2 increments acknowledged, final value 1", f),
			}}
		}},
		{"fork stays a violation when unknowns exist", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.Get(2, k, 0, "setup-1", "E0")
			h.Put(2, k, "E0", 1, "a2-1", Unknown, "") // lost: E0 was consumed
			g0 := h.Get(0, k, 0, "setup-1", "E0")
			g1 := h.Get(1, k, 0, "setup-1", "E0")
			p0 := h.Put(0, k, "E0", 1, "a0-1", OK, "E1")
			p1 := h.Put(1, k, "E0", 1, "a1-1", OK, "E2")
			h.Get(2, k, 1, "a1-1", "E2")
			h.Put(2, k, "E2", 2, "a2-2", Unknown, "") // open
			h.Put(2, k, "E2", 2, "a2-3", Unknown, "") // open
			f := h.Final(k, 1, "a1-1", "E2")
			return Want{Verdict: Fail, Vios: []ExpectViolation{
				Vio("fork:", p0, p1, g0, g1),
				Vio("lost update: 2 increments acknowledged, final value 1", f),
			}}
		}},
		{"fork between an acknowledged put and an unknown one that was read", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			h.Get(1, k, 0, "setup-1", "E0")
			u := h.Put(0, k, "E0", 1, "a0-1", Unknown, "")
			p := h.Put(1, k, "E0", 1, "a1-1", OK, "E1")
			h.Get(2, k, 1, "a0-1", "E7")
			h.Final(k, 1, "a1-1", "E1")
			return Want{Verdict: Fail, Vios: []ExpectViolation{Vio("fork:", u, p)}}
		}},
		{"final below the acknowledged count, unknowns open", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			h.rmw(1, k, 1, "a0-1", "E1", "a1-1", "E2")
			_, p3 := h.rmw(0, k, 2, "a1-1", "E2", "a0-2", "E3")
			h.Get(1, k, 3, "a0-2", "E3")
			h.Put(1, k, "E3", 4, "a1-2", Unknown, "")
			h.Put(2, k, "E3", 4, "a2-1", Unknown, "")
			f := h.Final(k, 2, "a1-1", "E2")
			return Want{Verdict: Fail, Total: 1, Vios: []ExpectViolation{
				Vio("lost update: 3 increments acknowledged, final value 2", f, p3),
			}}
		}},
		{"final below a stored counter, count within bounds", func(h *Hist) Want {
			// Four unknown writes in a chain whose reads timed out, then an
			// acknowledged 5; the final read shows 2: the count allows it
			// (lower 2, upper 5), but 5 was stored, so the counter went back.
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			for i := int64(1); i <= 4; i++ {
				h.Put(0, k, fmt.Sprintf("E%d", i-1), i, fmt.Sprintf("a0-%d", i), Unknown, "")
				h.failedGet(0, k, Unknown)
			}
			p := h.Put(0, k, "E4", 5, "a0-5", OK, "E5")
			f := h.Final(k, 2, "a0-2", "E2")
			return Want{Verdict: Fail, Total: 1, Vios: []ExpectViolation{
				Vio("lost update: final value 2 is below counter 5", f, p),
			}}
		}},
		{"lease mutex, two holders at once", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.Lease(0, "blob.lease.acquire", k, "L1", OK)
			g0 := h.leaseGet(0, k, "L1", 0, "setup-1")
			h.Lease(1, "blob.lease.acquire", k, "L2", OK) // should have been 409
			g1 := h.leaseGet(1, k, "L2", 0, "setup-1")
			p0 := h.leasePut(0, k, "L1", 1, "a0-1", OK)
			p1 := h.leasePut(1, k, "L2", 1, "a1-1", OK)
			h.Lease(0, "blob.lease.release", k, "L1", OK)
			h.Lease(1, "blob.lease.release", k, "L2", OK)
			h.Lease(2, "blob.lease.acquire", k, "L3", OK)
			h.leaseGet(2, k, "L3", 1, "a1-1")
			h.leasePut(2, k, "L3", 2, "a2-1", OK)
			h.Lease(2, "blob.lease.release", k, "L3", OK)
			f := h.Final(k, 2, "a2-1", "E9")
			return Want{Verdict: Fail, Total: 2, Vios: []ExpectViolation{
				Vio("duplicate increment: #6 and #7 both stored counter 1", p0, p1, g0, g1),
				Vio("lost update: 3 increments acknowledged, final value 2", f),
			}}
		}},
		{"duplicate increment proven through an unknown put", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.leaseGet(0, k, "L1", 0, "setup-1")
			h.leaseGet(1, k, "L2", 0, "setup-1")
			p0 := h.leasePut(0, k, "L1", 1, "a0-1", OK)
			u1 := h.leasePut(1, k, "L2", 1, "a1-1", Unknown)
			h.Final(k, 1, "a1-1", "E9")
			return Want{Verdict: Fail, Vios: []ExpectViolation{Vio("duplicate increment:", p0, u1)}}
		}},
		{"read a value nobody wrote", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			g := h.Get(1, k, 7, "zz-9", "E7")
			h.Final(k, 1, "a0-1", "E1")
			return Want{Verdict: Fail, Total: 1, Vios: []ExpectViolation{Vio("read a value nobody wrote", g)}}
		}},
		{"final read of a value nobody wrote", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			f := h.Final(k, 1, "ghost", "E1")
			return Want{Verdict: Fail, Total: 1, Vios: []ExpectViolation{Vio("read a value nobody wrote", f)}}
		}},
		{"read the right tag with the wrong counter", func(h *Hist) Want {
			h.Setup(k, "E0")
			_, p := h.rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			g := h.Get(1, k, 5, "a0-1", "E1")
			h.Final(k, 1, "a0-1", "E1")
			return Want{Verdict: Fail, Total: 1, Vios: []ExpectViolation{Vio("read a value nobody wrote: counter 5 with the tag of #3", g, p)}}
		}},
		{"a later read of the same tag with another counter", func(h *Hist) Want {
			h.Setup(k, "E0")
			_, p := h.rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			h.Get(1, k, 1, "a0-1", "E1")
			g := h.Get(2, k, 4, "a0-1", "E1")
			h.Get(2, k, 4, "a0-1", "E1") // the same wrong read again: reported once
			h.Final(k, 1, "a0-1", "E1")
			return Want{Verdict: Fail, Total: 1, Vios: []ExpectViolation{Vio("read a value nobody wrote: counter 4 with the tag of #3", g, p)}}
		}},
		{"read a value that is not a counter", func(h *Hist) Want {
			h.Setup(k, "E0")
			g := h.Get(1, k, 0, "setup-1", "E0")
			h.Op(g).Out.Value = "garbage"
			h.Final(k, 0, "setup-1", "E0")
			return Want{Verdict: Fail, Total: 1, Vios: []ExpectViolation{Vio("read a value nobody wrote", g)}}
		}},
		{"final value exceeds every possible increment", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			h.Put(0, k, "E0", 5, "a0-1", OK, "E1")
			f := h.Final(k, 5, "a0-1", "E1")
			return Want{Verdict: Fail, Total: 1, Vios: []ExpectViolation{Vio("final value 5 exceeds initial 0 + 1 acknowledged", f)}}
		}},
		{"an unknown put that lost the race does not widen the upper bound", func(h *Hist) Want {
			// a0-1 cannot have taken effect (E0 went to a1-1), so nothing
			// explains the jump to 3.
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			h.Get(1, k, 0, "setup-1", "E0")
			h.Put(0, k, "E0", 1, "a0-1", Unknown, "")
			h.Put(1, k, "E0", 1, "a1-1", OK, "E1")
			h.Get(1, k, 1, "a1-1", "E1")
			h.Put(1, k, "E1", 3, "a1-2", OK, "E2")
			f := h.Final(k, 3, "a1-2", "E2")
			return Want{Verdict: Fail, Total: 1, Vios: []ExpectViolation{Vio("final value 3 exceeds initial 0 + 2 acknowledged + 0 proven + 0 possible", f)}}
		}},
		{"the counter blob vanished", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			f := h.final404(k)
			return Want{Verdict: Fail, Total: 1, Vios: []ExpectViolation{Vio("the counter blob vanished", f)}}
		}},
		{"the counter blob vanished after its setup alone", func(h *Hist) Want {
			h.Setup(k, "E0")
			f := h.final404(k)
			return Want{Verdict: Fail, Total: 1, Vios: []ExpectViolation{Vio("the counter blob vanished: the final read found no blob after 0 acknowledged increments", f)}}
		}},
		{"the counter blob vanished, no setup write", func(h *Hist) Want {
			p := h.Put(0, k, "", 1, "a0-1", OK, "E1")
			f := h.final404(k)
			return Want{Verdict: Fail, Total: 1, Vios: []ExpectViolation{Vio("the counter blob vanished: the final read found no blob after 1 acknowledged increments", f, p)}}
		}},
		{"no blob at the end after a refused setup and no increment", func(h *Hist) Want {
			s := h.Setup(k, "")
			h.Op(s).Outcome, h.Op(s).Out = Throttled, Answered(kindBlobPut, Throttled)
			h.final404(k)
			return Want{Verdict: Undecided}
		}},
		{"a fork's two writes are the evidence of the count it lost", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			h.Get(1, k, 0, "setup-1", "E0")
			p0 := h.Put(0, k, "E0", 1, "a0-1", OK, "E1")
			p1 := h.Put(1, k, "E0", 1, "a1-1", OK, "E2")
			f := h.Final(k, 1, "a1-1", "E2")
			return Want{Verdict: Fail, Total: 2, Vios: []ExpectViolation{Vio("fork:", p0, p1),
				Vio("lost update: 2 increments acknowledged, final value 1", f, p0, p1)}}
		}},

		// Missing or unusable information: never a pass.
		{"no final read", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			h.failedGet(ActorFinal, k, Unknown)
			return Want{Verdict: Undecided, Summary: "undecided, no final read of 1 key"}
		}},
		{"no final read, but a fork", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			h.Get(1, k, 0, "setup-1", "E0")
			p0 := h.Put(0, k, "E0", 1, "a0-1", OK, "E1")
			p1 := h.Put(1, k, "E0", 1, "a1-1", OK, "E2")
			return Want{Verdict: Fail, Total: 1, Vios: []ExpectViolation{Vio("fork:", p0, p1)}}
		}},
		{"no final read, a read whose writer is not recorded", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			h.Get(1, k, 2, "a0-2", "E2") // a0-2 may have been in flight when the run was killed
			return Want{Verdict: Undecided, Summary: "1 read of values with no recorded write"}
		}},
		{"write attempts reusing a tag", func(h *Hist) Want {
			h.Setup(k, "E0")
			h.rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			h.rmw(1, k, 1, "a0-1", "E1", "a0-1", "E2")
			h.Final(k, 2, "a0-1", "E2")
			return Want{Verdict: Undecided, Summary: "1 write attempt reusing a tag"}
		}},
		{"no setup write", func(h *Hist) Want {
			h.Put(0, k, "E0", 1, "a0-1", OK, "E1")
			h.Final(k, 1, "a0-1", "E1")
			return Want{Verdict: Pass, Summary: "no update lost (no setup write for 1 key: initial 0 assumed)"}
		}},
		{"empty history", func(h *Hist) Want {
			return Want{Verdict: Undecided, Summary: "nothing to check"}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := NewHist()
			w := tc.build(h)
			w.Assert(t, h.Check(t, nlu))
		})
	}
}

// A refused write (412, 503, 4xx) whose value is later read took effect.
func TestNoLostUpdatesRefusedWriteRead(t *testing.T) {
	for _, o := range []Outcome{Conflict, Throttled, Error} {
		t.Run(o.String(), func(t *testing.T) {
			h := NewHist()
			h.Setup("k", "E0")
			h.Get(0, "k", 0, "setup-1", "E0")
			p := h.Put(0, "k", "E0", 1, "a0-1", o, "")
			g := h.Get(1, "k", 1, "a0-1", "E1")
			f := h.Final("k", 1, "a0-1", "E1")
			Want{Verdict: Fail, Total: 2, Vios: []ExpectViolation{
				Vio("a refused write took effect: #4 read the value of #3, which was answered "+o.String(), g, p),
				Vio("final value 1 exceeds initial 0 + 0 acknowledged", f),
			}}.Assert(t, h.Check(t, nlu))
		})
	}
}

// The checker is registered under its name and reports its name.
func TestNoLostUpdatesRegistered(t *testing.T) {
	c, err := New(NoLostUpdatesName)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name() != NoLostUpdatesName {
		t.Fatalf("name %q", c.Name())
	}
	if r := c.Finish(); r.Check != NoLostUpdatesName {
		t.Fatalf("result names %q", r.Check)
	}
}

// Excerpts carry values without their padding, and never more than six ops.
func TestNoLostUpdatesExcerptSmall(t *testing.T) {
	h := NewHist()
	h.Setup("k", "E0")
	for a := range 10 {
		h.Get(a, "k", 0, "setup-1", "E0")
	}
	for a := range 10 {
		h.Put(a, "k", "E0", 1, fmt.Sprintf("a%d-1", a), OK, fmt.Sprintf("E%d", a+1))
	}
	h.Final("k", 1, "a9-1", "E10")
	r := h.Check(t, nlu)
	if r.Verdict != Fail || r.Total != 9+1 {
		t.Fatalf("want 9 forks and a lost update:\n%s", Describe(r))
	}
	for _, v := range r.Violations {
		for _, o := range v.Ops {
			if len(o.In.Value) > 48 || len(o.Out.Value) > 48 {
				t.Errorf("excerpt keeps padding: %s", o.String())
			}
		}
	}
}

// Random valid executions of both counter workloads against a correct
// service (interleaved actors, 412s, lease conflicts, throttles, unknown
// writes applied early, late or never, retries) always pass; the same
// executions with the effect of one acknowledged put dropped always fail.
func TestNoLostUpdatesProperty(t *testing.T) {
	seeds := uint64(400)
	if testing.Short() {
		seeds = 50
	}
	var unknowns, injected int
	for seed := range seeds {
		cfg := RandomCounterConfig(rand.New(rand.NewPCG(seed, 1)))
		ops := SimulateCounter(rand.New(rand.NewPCG(seed, 2)), &cfg)
		unknowns += cfg.unknownRecords
		if r := Run(ops, NewNoLostUpdates())[0]; r.Verdict != Pass {
			t.Fatalf("seed %d (%v): valid history judged %s\n%s", seed, cfg, r.Verdict, Describe(r))
		}

		cfg.Inject = true
		s := &counterSim{}
		ops = simulateCounterWith(rand.New(rand.NewPCG(seed, 2)), &cfg, s)
		if !s.injected {
			continue // fewer acknowledged puts than injectAfter
		}
		injected++
		if r := Run(ops, NewNoLostUpdates())[0]; r.Verdict != Fail {
			t.Fatalf("seed %d (%v): history with a lost update judged %s\n%s", seed, cfg, r.Verdict, Describe(r))
		} else {
			CheckKinds(t, r)
		}
	}
	if unknowns == 0 || injected < int(seeds)*9/10 {
		t.Fatalf("generator too tame: %d unknown records, %d/%d histories injected", unknowns, injected, seeds)
	}
	t.Logf("%d histories, %d unknown records, %d with an injected lost update", seeds, unknowns, injected)
}

var benchHistory = sync.OnceValue(func() []Op {
	cfg := counterConfig{actors: 32, Keys: 4, iters: 1 << 30, pad: 64, probs: simProbs{
		throttle: 0.02, err: 0.005, lost: 0.002, applied: 0.002, late: 0.002, t500: 0.001, retry: 0.5, badGet: 0.01}}
	const n = 1_000_000
	s := &counterSim{}
	s.stopAt = n
	return simulateCounterWith(rand.New(rand.NewPCG(7, 7)), &cfg, s)
})

// BenchmarkNoLostUpdates checks a generated 1M-operation etag-counter
// history (32 actors on 4 keys, mostly 412s, some unknowns).
func BenchmarkNoLostUpdates(b *testing.B) {
	ops := benchHistory()
	b.ReportAllocs()
	var r Result
	for b.Loop() {
		r = Run(ops, NewNoLostUpdates())[0]
	}
	if r.Verdict != Pass {
		b.Fatalf("benchmark history judged %s: %s", r.Verdict, r.Summary)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ops)), "ns/histop")
	b.ReportMetric(float64(len(ops)), "histops")
}

// TestNoLostUpdatesConditionalReads: a 304 to If-None-Match carries no
// value; the actor writes from its cached version. It must count nothing
// and flag nothing, while a real lost update next to it is still found.
func TestNoLostUpdatesConditionalReads(t *testing.T) {
	for _, lose := range []bool{false, true} {
		h := &Hist{}
		h.Setup("k", "e0")
		h.rmw(0, "k", 0, "setup-1", "e0", "a0-1", "e1")
		h.Add(Op{Actor: 0, Kind: KindBlobGet, Key: "k", In: Input{IfNoneMatch: "e1"}, Out: Output{Status: 304, ETag: "e1"}})
		h.Put(0, "k", "e1", 2, "a0-2", OK, "e2")
		if lose { // actor 1 also writes 2 on e1: a lost update
			h.Put(1, "k", "e1", 2, "a1-1", OK, "e3")
			h.Final("k", 2, "a1-1", "e3")
		} else {
			h.Final("k", 2, "a0-2", "e2")
		}
		r := h.Check(t, "no-lost-updates")
		if want := map[bool]Verdict{false: Pass, true: Fail}[lose]; r.Verdict != want {
			t.Errorf("lose=%v: %s (%s) %+v", lose, r.Verdict, r.Summary, r.Violations)
		}
	}
}
