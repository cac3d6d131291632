package consistency

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

const nlu = NoLostUpdatesName

func TestNoLostUpdates(t *testing.T) {
	const k = "k0"
	cases := []struct {
		name  string
		build func(h *checkstest.Hist) checkstest.Want
	}{
		// Clean histories.
		{"one actor, serial", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			h.Rmw(0, k, 1, "a0-1", "E1", "a0-2", "E2")
			h.Rmw(0, k, 2, "a0-2", "E2", "a0-3", "E3")
			h.Final(k, 3, "a0-3", "E3")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 key, 3 acknowledged increments, 0 unknown (0 resolved), final 3: no update lost"}
		}},
		{"three actors interleaved with 412s, two keys", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Setup("k1", "F0")
			h.Get(0, k, 0, "setup-1", "E0")
			h.Get(1, k, 0, "setup-1", "E0")
			h.Get(2, k, 0, "setup-1", "E0")
			h.Put(1, k, "E0", 1, "a1-1", checks.OK, "E1")
			h.Put(0, k, "E0", 1, "a0-1", checks.Conflict, "")
			h.Rmw(2, "k1", 0, "setup-1", "F0", "a2-0", "F1")
			h.Put(2, k, "E0", 1, "a2-1", checks.Conflict, "")
			h.Get(0, k, 1, "a1-1", "E1")
			h.Get(2, k, 1, "a1-1", "E1")
			h.Put(2, k, "E1", 2, "a2-2", checks.OK, "E2")
			h.Put(0, k, "E1", 2, "a0-2", checks.Conflict, "")
			h.Rmw(0, k, 2, "a2-2", "E2", "a0-3", "E3")
			h.Get(1, k, 3, "a0-3", "E3")
			h.Final(k, 3, "a0-3", "E3")
			h.Final("k1", 1, "a2-0", "F1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "2 keys, 4 acknowledged increments, 0 unknown (0 resolved), finals sum to 4: no update lost"}
		}},
		{"lease and other kinds are not reads", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Lease(0, "blob.lease.acquire", k, "L1", checks.OK)
			h.Lease(1, "blob.lease.acquire", k, "L2", checks.Conflict)
			h.LeaseGet(0, k, "L1", 0, "setup-1")
			h.LeasePut(0, k, "L1", 1, "a0-1", checks.OK)
			h.Lease(0, "blob.lease.release", k, "L1", checks.OK)
			h.Add(checks.Op{Actor: 0, Kind: "blob.create", Key: k, In: checks.Input{Value: "9 ghost"}, Out: checks.Output{Status: 201}})
			h.Final(k, 1, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 acknowledged increments"}
		}},

		// Unknown outcomes that must not be flagged.
		{"unknown put later read by another actor", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			h.Put(0, k, "E0", 1, "a0-1", checks.Unknown, "")
			h.Rmw(1, k, 1, "a0-1", "E1", "a1-1", "E2")
			h.Final(k, 2, "a1-1", "E2")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 acknowledged increments, 1 unknown (1 resolved), final 2: no update lost"}
		}},
		{"unknown put read only by the final read", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			h.Get(0, k, 1, "a0-1", "E1")
			h.Put(0, k, "E1", 2, "a0-2", checks.Unknown, "")
			h.Final(k, 2, "a0-2", "E2")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 unknown (1 resolved), final 2"}
		}},
		{"unknown put that lost the race", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			h.Get(1, k, 0, "setup-1", "E0")
			h.Put(0, k, "E0", 1, "a0-1", checks.Unknown, "")
			h.Put(1, k, "E0", 1, "a1-1", checks.OK, "E1")
			h.Rmw(1, k, 1, "a1-1", "E1", "a1-2", "E2")
			h.Final(k, 2, "a1-2", "E2")
			return checkstest.Want{Verdict: checks.Pass, Summary: "2 acknowledged increments, 1 unknown (1 resolved), final 2"}
		}},
		{"unknown put left open, final without it", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			h.Get(1, k, 1, "a0-1", "E1")
			h.Put(1, k, "E1", 2, "a1-1", checks.Unknown, "")
			h.Final(k, 1, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 acknowledged increments, 1 unknown (0 resolved), final 1"}
		}},
		{"unknown put left open, final with it", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			h.Get(1, k, 1, "a0-1", "E1")
			h.Put(1, k, "E1", 2, "a1-1", checks.Unknown, "")
			h.Final(k, 2, "a1-1", "E2")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 acknowledged increments, 1 unknown (1 resolved), final 2"}
		}},
		{"unread unknown widens the upper bound", func(h *checkstest.Hist) checkstest.Want {
			// a0-1 took effect, but the read that would show it timed out;
			// a1 then wrote 2 on its ETag. Only "maybe" explains final 2.
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			h.Put(0, k, "E0", 1, "a0-1", checks.Unknown, "")
			h.FailedGet(1, k, checks.Unknown)
			h.Put(1, k, "E1", 2, "a1-1", checks.OK, "E2")
			h.Final(k, 2, "a1-1", "E2")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 acknowledged increments, 1 unknown (0 resolved), final 2"}
		}},
		{"timed-out and failed gets are ignored", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			g := h.FailedGet(0, k, checks.Unknown)
			h.Op(g).Out.Value = checkstest.Cval(99, "ghost") // whatever a timed-out read carries, it says nothing
			g = h.FailedGet(1, k, checks.Throttled)
			h.Op(g).Out.Value = "garbage"
			h.Rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			h.FailedGet(checks.ActorFinal, k, checks.Unknown)
			h.Final(k, 1, "a0-1", "E1")
			h.FailedGet(checks.ActorFinal, k, checks.Throttled) // a later final read that failed does not replace the answer
			return checkstest.Want{Verdict: checks.Pass, Summary: "final 1: no update lost"}
		}},
		{"retry after unknown: 412, re-read", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			h.Put(0, k, "E0", 1, "a0-1", checks.Unknown, "")
			r := h.Put(0, k, "E0", 1, "a0-2", checks.Conflict, "")
			h.Op(r).Attempt = 2
			h.Rmw(0, k, 1, "a0-1", "E1", "a0-3", "E2")
			h.Final(k, 2, "a0-3", "E2")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 acknowledged increments, 1 unknown (1 resolved), final 2"}
		}},
		{"lease retry stores one increment twice", func(h *checkstest.Hist) checkstest.Want {
			// a0's first attempt landed after its retry, still under its
			// lease: two writes of counter 1, one increment.
			h.Setup(k, "E0")
			h.Lease(0, "blob.lease.acquire", k, "L1", checks.OK)
			h.LeaseGet(0, k, "L1", 0, "setup-1")
			h.LeasePut(0, k, "L1", 1, "a0-1", checks.Unknown)
			r := h.LeasePut(0, k, "L1", 1, "a0-2", checks.OK)
			h.Op(r).Attempt = 2
			h.Lease(0, "blob.lease.release", k, "L1", checks.OK)
			h.Lease(1, "blob.lease.acquire", k, "L2", checks.OK)
			h.LeaseGet(1, k, "L2", 1, "a0-1")
			h.LeasePut(1, k, "L2", 2, "a1-1", checks.OK)
			h.Lease(1, "blob.lease.release", k, "L2", checks.OK)
			h.Final(k, 2, "a1-1", "E9")
			return checkstest.Want{Verdict: checks.Pass, Summary: "2 acknowledged increments, 1 unknown (1 resolved), final 2: no update lost"}
		}},
		{"500 OperationTimedOut put that took effect", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			p := h.Put(0, k, "E0", 1, "a0-1", checks.Throttled, "")
			h.Op(p).Out = checks.Output{Status: 500, ErrorCode: "OperationTimedOut"}
			h.Rmw(1, k, 1, "a0-1", "E1", "a1-1", "E2")
			h.Final(k, 2, "a1-1", "E2")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 unknown (1 resolved)"}
		}},

		// Violations.
		{"fork: two acknowledged puts on one ETag", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			g0 := h.Get(0, k, 0, "setup-1", "E0")
			g1 := h.Get(1, k, 0, "setup-1", "E0")
			p0 := h.Put(0, k, "E0", 1, "a0-1", checks.OK, "E1")
			p1 := h.Put(1, k, "E0", 1, "a1-1", checks.OK, "E2")
			f := h.Final(k, 1, "a1-1", "E2")
			return checkstest.Want{Verdict: checks.Fail, Total: 2, Vios: []checkstest.ExpectViolation{
				checkstest.Vio("fork: #4 and #5 both took effect with If-Match E0", p0, p1, g0, g1),
				checkstest.Vio("lost update: 2 increments acknowledged, final value 1", f),
			}}
		}},
		{"fork stays a violation when unknowns exist", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Get(2, k, 0, "setup-1", "E0")
			h.Put(2, k, "E0", 1, "a2-1", checks.Unknown, "") // lost: E0 was consumed
			g0 := h.Get(0, k, 0, "setup-1", "E0")
			g1 := h.Get(1, k, 0, "setup-1", "E0")
			p0 := h.Put(0, k, "E0", 1, "a0-1", checks.OK, "E1")
			p1 := h.Put(1, k, "E0", 1, "a1-1", checks.OK, "E2")
			h.Get(2, k, 1, "a1-1", "E2")
			h.Put(2, k, "E2", 2, "a2-2", checks.Unknown, "") // open
			h.Put(2, k, "E2", 2, "a2-3", checks.Unknown, "") // open
			f := h.Final(k, 1, "a1-1", "E2")
			return checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{
				checkstest.Vio("fork:", p0, p1, g0, g1),
				checkstest.Vio("lost update: 2 increments acknowledged, final value 1", f),
			}}
		}},
		{"fork between an acknowledged put and an unknown one that was read", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			h.Get(1, k, 0, "setup-1", "E0")
			u := h.Put(0, k, "E0", 1, "a0-1", checks.Unknown, "")
			p := h.Put(1, k, "E0", 1, "a1-1", checks.OK, "E1")
			h.Get(2, k, 1, "a0-1", "E7")
			h.Final(k, 1, "a1-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{checkstest.Vio("fork:", u, p)}}
		}},
		{"final below the acknowledged count, unknowns open", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			h.Rmw(1, k, 1, "a0-1", "E1", "a1-1", "E2")
			_, p3 := h.Rmw(0, k, 2, "a1-1", "E2", "a0-2", "E3")
			h.Get(1, k, 3, "a0-2", "E3")
			h.Put(1, k, "E3", 4, "a1-2", checks.Unknown, "")
			h.Put(2, k, "E3", 4, "a2-1", checks.Unknown, "")
			f := h.Final(k, 2, "a1-1", "E2")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{
				checkstest.Vio("lost update: 3 increments acknowledged, final value 2", f, p3),
			}}
		}},
		{"final below a stored counter, count within bounds", func(h *checkstest.Hist) checkstest.Want {
			// Four unknown writes in a chain whose reads timed out, then an
			// acknowledged 5; the final read shows 2: the count allows it
			// (lower 2, upper 5), but 5 was stored, so the counter went back.
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			for i := int64(1); i <= 4; i++ {
				h.Put(0, k, fmt.Sprintf("E%d", i-1), i, fmt.Sprintf("a0-%d", i), checks.Unknown, "")
				h.FailedGet(0, k, checks.Unknown)
			}
			p := h.Put(0, k, "E4", 5, "a0-5", checks.OK, "E5")
			f := h.Final(k, 2, "a0-2", "E2")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{
				checkstest.Vio("lost update: final value 2 is below counter 5", f, p),
			}}
		}},
		{"lease mutex, two holders at once", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Lease(0, "blob.lease.acquire", k, "L1", checks.OK)
			g0 := h.LeaseGet(0, k, "L1", 0, "setup-1")
			h.Lease(1, "blob.lease.acquire", k, "L2", checks.OK) // should have been 409
			g1 := h.LeaseGet(1, k, "L2", 0, "setup-1")
			p0 := h.LeasePut(0, k, "L1", 1, "a0-1", checks.OK)
			p1 := h.LeasePut(1, k, "L2", 1, "a1-1", checks.OK)
			h.Lease(0, "blob.lease.release", k, "L1", checks.OK)
			h.Lease(1, "blob.lease.release", k, "L2", checks.OK)
			h.Lease(2, "blob.lease.acquire", k, "L3", checks.OK)
			h.LeaseGet(2, k, "L3", 1, "a1-1")
			h.LeasePut(2, k, "L3", 2, "a2-1", checks.OK)
			h.Lease(2, "blob.lease.release", k, "L3", checks.OK)
			f := h.Final(k, 2, "a2-1", "E9")
			return checkstest.Want{Verdict: checks.Fail, Total: 2, Vios: []checkstest.ExpectViolation{
				checkstest.Vio("duplicate increment: #6 and #7 both stored counter 1", p0, p1, g0, g1),
				checkstest.Vio("lost update: 3 increments acknowledged, final value 2", f),
			}}
		}},
		{"duplicate increment proven through an unknown put", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.LeaseGet(0, k, "L1", 0, "setup-1")
			h.LeaseGet(1, k, "L2", 0, "setup-1")
			p0 := h.LeasePut(0, k, "L1", 1, "a0-1", checks.OK)
			u1 := h.LeasePut(1, k, "L2", 1, "a1-1", checks.Unknown)
			h.Final(k, 1, "a1-1", "E9")
			return checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{checkstest.Vio("duplicate increment:", p0, u1)}}
		}},
		{"read a value nobody wrote", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			g := h.Get(1, k, 7, "zz-9", "E7")
			h.Final(k, 1, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("read a value nobody wrote", g)}}
		}},
		{"final read of a value nobody wrote", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			f := h.Final(k, 1, "ghost", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("read a value nobody wrote", f)}}
		}},
		{"read the right tag with the wrong counter", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			_, p := h.Rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			g := h.Get(1, k, 5, "a0-1", "E1")
			h.Final(k, 1, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("read a value nobody wrote: counter 5 with the tag of #3", g, p)}}
		}},
		{"a later read of the same tag with another counter", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			_, p := h.Rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			h.Get(1, k, 1, "a0-1", "E1")
			g := h.Get(2, k, 4, "a0-1", "E1")
			h.Get(2, k, 4, "a0-1", "E1") // the same wrong read again: reported once
			h.Final(k, 1, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("read a value nobody wrote: counter 4 with the tag of #3", g, p)}}
		}},
		{"read a value that is not a counter", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			g := h.Get(1, k, 0, "setup-1", "E0")
			h.Op(g).Out.Value = "garbage"
			h.Final(k, 0, "setup-1", "E0")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("read a value nobody wrote", g)}}
		}},
		{"final value exceeds every possible increment", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			h.Put(0, k, "E0", 5, "a0-1", checks.OK, "E1")
			f := h.Final(k, 5, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("final value 5 exceeds initial 0 + 1 acknowledged", f)}}
		}},
		{"an unknown put that lost the race does not widen the upper bound", func(h *checkstest.Hist) checkstest.Want {
			// a0-1 cannot have taken effect (E0 went to a1-1), so nothing
			// explains the jump to 3.
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			h.Get(1, k, 0, "setup-1", "E0")
			h.Put(0, k, "E0", 1, "a0-1", checks.Unknown, "")
			h.Put(1, k, "E0", 1, "a1-1", checks.OK, "E1")
			h.Get(1, k, 1, "a1-1", "E1")
			h.Put(1, k, "E1", 3, "a1-2", checks.OK, "E2")
			f := h.Final(k, 3, "a1-2", "E2")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("final value 3 exceeds initial 0 + 2 acknowledged + 0 proven + 0 possible", f)}}
		}},
		{"the counter blob vanished", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			f := h.Final404(k)
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("the counter blob vanished", f)}}
		}},
		{"the counter blob vanished after its setup alone", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			f := h.Final404(k)
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("the counter blob vanished: the final read found no blob after 0 acknowledged increments", f)}}
		}},
		{"the counter blob vanished, no setup write", func(h *checkstest.Hist) checkstest.Want {
			p := h.Put(0, k, "", 1, "a0-1", checks.OK, "E1")
			f := h.Final404(k)
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("the counter blob vanished: the final read found no blob after 1 acknowledged increments", f, p)}}
		}},
		{"no blob at the end after a refused setup and no increment", func(h *checkstest.Hist) checkstest.Want {
			s := h.Setup(k, "")
			h.Op(s).Outcome, h.Op(s).Out = checks.Throttled, checkstest.Answered(checks.KindBlobPut, checks.Throttled)
			h.Final404(k)
			return checkstest.Want{Verdict: checks.Undecided}
		}},
		{"a fork's two writes are the evidence of the count it lost", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			h.Get(1, k, 0, "setup-1", "E0")
			p0 := h.Put(0, k, "E0", 1, "a0-1", checks.OK, "E1")
			p1 := h.Put(1, k, "E0", 1, "a1-1", checks.OK, "E2")
			f := h.Final(k, 1, "a1-1", "E2")
			return checkstest.Want{Verdict: checks.Fail, Total: 2, Vios: []checkstest.ExpectViolation{checkstest.Vio("fork:", p0, p1),
				checkstest.Vio("lost update: 2 increments acknowledged, final value 1", f, p0, p1)}}
		}},

		// Missing or unusable information: never a pass.
		{"no final read", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			h.FailedGet(checks.ActorFinal, k, checks.Unknown)
			return checkstest.Want{Verdict: checks.Undecided, Summary: "undecided, no final read of 1 key"}
		}},
		{"no final read, but a fork", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Get(0, k, 0, "setup-1", "E0")
			h.Get(1, k, 0, "setup-1", "E0")
			p0 := h.Put(0, k, "E0", 1, "a0-1", checks.OK, "E1")
			p1 := h.Put(1, k, "E0", 1, "a1-1", checks.OK, "E2")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("fork:", p0, p1)}}
		}},
		{"no final read, a read whose writer is not recorded", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			h.Get(1, k, 2, "a0-2", "E2") // a0-2 may have been in flight when the run was killed
			return checkstest.Want{Verdict: checks.Undecided, Summary: "1 read of values with no recorded write"}
		}},
		{"write attempts reusing a tag", func(h *checkstest.Hist) checkstest.Want {
			h.Setup(k, "E0")
			h.Rmw(0, k, 0, "setup-1", "E0", "a0-1", "E1")
			h.Rmw(1, k, 1, "a0-1", "E1", "a0-1", "E2")
			h.Final(k, 2, "a0-1", "E2")
			return checkstest.Want{Verdict: checks.Undecided, Summary: "1 write attempt reusing a tag"}
		}},
		{"no setup write", func(h *checkstest.Hist) checkstest.Want {
			h.Put(0, k, "E0", 1, "a0-1", checks.OK, "E1")
			h.Final(k, 1, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "no update lost (no setup write for 1 key: initial 0 assumed)"}
		}},
		{"empty history", func(h *checkstest.Hist) checkstest.Want {
			return checkstest.Want{Verdict: checks.Undecided, Summary: "nothing to check"}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := checkstest.NewHist()
			w := tc.build(h)
			w.Assert(t, h.Check(t, nlu))
		})
	}
}

// A refused write (412, 503, 4xx) whose value is later read took effect.
func TestNoLostUpdatesRefusedWriteRead(t *testing.T) {
	for _, o := range []checks.Outcome{checks.Conflict, checks.Throttled, checks.Error} {
		t.Run(o.String(), func(t *testing.T) {
			h := checkstest.NewHist()
			h.Setup("k", "E0")
			h.Get(0, "k", 0, "setup-1", "E0")
			p := h.Put(0, "k", "E0", 1, "a0-1", o, "")
			g := h.Get(1, "k", 1, "a0-1", "E1")
			f := h.Final("k", 1, "a0-1", "E1")
			checkstest.Want{Verdict: checks.Fail, Total: 2, Vios: []checkstest.ExpectViolation{
				checkstest.Vio("a refused write took effect: #4 read the value of #3, which was answered "+o.String(), g, p),
				checkstest.Vio("final value 1 exceeds initial 0 + 0 acknowledged", f),
			}}.Assert(t, h.Check(t, nlu))
		})
	}
}

// The checker is registered under its name and reports its name.
func TestNoLostUpdatesRegistered(t *testing.T) {
	c, err := checks.New(NoLostUpdatesName)
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
	h := checkstest.NewHist()
	h.Setup("k", "E0")
	for a := range 10 {
		h.Get(a, "k", 0, "setup-1", "E0")
	}
	for a := range 10 {
		h.Put(a, "k", "E0", 1, fmt.Sprintf("a%d-1", a), checks.OK, fmt.Sprintf("E%d", a+1))
	}
	h.Final("k", 1, "a9-1", "E10")
	r := h.Check(t, nlu)
	if r.Verdict != checks.Fail || r.Total != 9+1 {
		t.Fatalf("want 9 forks and a lost update:\n%s", checkstest.Describe(r))
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
		cfg := checkstest.RandomCounterConfig(rand.New(rand.NewPCG(seed, 1)))
		ops := checkstest.SimulateCounter(rand.New(rand.NewPCG(seed, 2)), &cfg)
		unknowns += cfg.UnknownRecords
		if r := checks.Run(ops, NewNoLostUpdates())[0]; r.Verdict != checks.Pass {
			t.Fatalf("seed %d (%v): valid history judged %s\n%s", seed, cfg, r.Verdict, checkstest.Describe(r))
		}

		cfg.Inject = true
		s := &checkstest.CounterSim{}
		ops = checkstest.SimulateCounterWith(rand.New(rand.NewPCG(seed, 2)), &cfg, s)
		if !s.Injected {
			continue // fewer acknowledged puts than injectAfter
		}
		injected++
		if r := checks.Run(ops, NewNoLostUpdates())[0]; r.Verdict != checks.Fail {
			t.Fatalf("seed %d (%v): history with a lost update judged %s\n%s", seed, cfg, r.Verdict, checkstest.Describe(r))
		} else {
			checkstest.CheckKinds(t, r)
		}
	}
	if unknowns == 0 || injected < int(seeds)*9/10 {
		t.Fatalf("generator too tame: %d unknown records, %d/%d histories injected", unknowns, injected, seeds)
	}
	t.Logf("%d histories, %d unknown records, %d with an injected lost update", seeds, unknowns, injected)
}

var benchHistory = sync.OnceValue(func() []checks.Op {
	cfg := checkstest.CounterConfig{Actors: 32, Keys: 4, Iters: 1 << 30, Pad: 64, Probs: checkstest.SimProbs{
		Throttle: 0.02, Err: 0.005, Lost: 0.002, Applied: 0.002, Late: 0.002, T500: 0.001, Retry: 0.5, BadGet: 0.01}}
	const n = 1_000_000
	s := &checkstest.CounterSim{}
	s.StopAt = n
	return checkstest.SimulateCounterWith(rand.New(rand.NewPCG(7, 7)), &cfg, s)
})

// BenchmarkNoLostUpdates checks a generated 1M-operation etag-counter
// history (32 actors on 4 keys, mostly 412s, some unknowns).
func BenchmarkNoLostUpdates(b *testing.B) {
	ops := benchHistory()
	b.ReportAllocs()
	var r checks.Result
	for b.Loop() {
		r = checks.Run(ops, NewNoLostUpdates())[0]
	}
	if r.Verdict != checks.Pass {
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
		h := &checkstest.Hist{}
		h.Setup("k", "e0")
		h.Rmw(0, "k", 0, "setup-1", "e0", "a0-1", "e1")
		h.Add(checks.Op{Actor: 0, Kind: checks.KindBlobGet, Key: "k", In: checks.Input{IfNoneMatch: "e1"}, Out: checks.Output{Status: 304, ETag: "e1"}})
		h.Put(0, "k", "e1", 2, "a0-2", checks.OK, "e2")
		if lose { // actor 1 also writes 2 on e1: a lost update
			h.Put(1, "k", "e1", 2, "a1-1", checks.OK, "e3")
			h.Final("k", 2, "a1-1", "e3")
		} else {
			h.Final("k", 2, "a0-2", "e2")
		}
		r := h.Check(t, "no-lost-updates")
		if want := map[bool]checks.Verdict{false: checks.Pass, true: checks.Fail}[lose]; r.Verdict != want {
			t.Errorf("lose=%v: %s (%s) %+v", lose, r.Verdict, r.Summary, r.Violations)
		}
	}
}
