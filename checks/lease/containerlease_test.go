package lease

import (
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

func TestContainerLease(t *testing.T) {
	const c = "c0"
	leased := func(h lh) uint64 { return h.acq(0, c, "A", 60, 1, 1.1, "ok") }
	fail := func(msg string, seqs ...uint64) checkstest.Want {
		return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio(msg, seqs...)}}
	}
	pass := checkstest.Want{Verdict: checks.Pass}

	runLeaseCases(t, ContainerLeaseName, "container.", []leaseCase{
		{"set metadata without id on a leased container: ok", func(h lh) checkstest.Want {
			leased(h)
			h.data(1, "container.setmeta", c, "", 5, 5.1, "ok")
			h.data(1, "container.getprops", c, "", 6, 6.1, "ok")
			h.data(1, "container.setacl", c, "", 7, 7.1, "ok")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 container, 1 acquisition, 0 breaks, 0 expiries, 0 deletes, 1 lease call and 3 container calls judged: only Delete Container enforced the lease"}
		}},
		{"set metadata without id on a leased container: 412", func(h lh) checkstest.Want {
			leased(h)
			return fail("only Delete Container needs the lease", h.data(1, "container.setmeta", c, "", 5, 5.1, "412 LeaseIdMissing"))
		}},
		{"get properties without id refused, bare 412", func(h lh) checkstest.Want {
			leased(h)
			return fail("over-enforced", h.data(1, "container.getprops", c, "", 5, 5.1, "412"))
		}},
		{"set ACL without id refused even with no lease", func(h lh) checkstest.Want {
			return fail("over-enforced", h.data(1, "container.setacl", c, "", 5, 5.1, "412 LeaseIdMissing"))
		}},
		{"set metadata refused for its own condition", func(h lh) checkstest.Want {
			leased(h)
			s := h.data(1, "container.setmeta", c, "", 5, 5.1, "412 ConditionNotMet")
			h.Op(s).In.IfModifiedSince = "Mon, 01 Jan 2024 00:00:00 GMT"
			return pass
		}},
		{"delete without id while leased: refused 412 LeaseIdMissing", func(h lh) checkstest.Want {
			leased(h)
			h.data(1, "container.delete", c, "", 5, 5.1, "412 LeaseIdMissing")
			return checkstest.Want{Verdict: checks.Pass, Summary: "(1 call while certainly leased)"}
		}},
		{"delete without id while leased: ok", func(h lh) checkstest.Want {
			a := leased(h)
			return fail("no holder: #2 (container.delete) without a lease id was accepted while lease a", h.data(1, "container.delete", c, "", 5, 5.1, "ok"), a)
		}},
		{"delete without id while leased: wrong code", func(h lh) checkstest.Want {
			leased(h)
			return fail("412 LeaseIdMissing", h.data(1, "container.delete", c, "", 5, 5.1, "412 LeaseIdMismatchWithContainerOperation"))
		}},
		{"delete with the holder's id: ok", func(h lh) checkstest.Want {
			leased(h)
			h.data(0, "container.delete", c, "A", 5, 5.1, "ok")
			return pass
		}},
		{"delete with another id while leased: 412 mismatch", func(h lh) checkstest.Want {
			leased(h)
			h.data(1, "container.delete", c, "B", 5, 5.1, "412 LeaseIdMismatchWithContainerOperation")
			return pass
		}},
		{"delete with another id while leased: ok", func(h lh) checkstest.Want {
			leased(h)
			return fail("lease b", h.data(1, "container.delete", c, "B", 5, 5.1, "ok"))
		}},
		{"delete without id after the lease broke: ok", func(h lh) checkstest.Want {
			leased(h)
			h.brk(2, c, pint(0), 3, 3.1, "ok")
			h.data(1, "container.delete", c, "", 5, 5.1, "ok")
			return pass
		}},
		{"delete without id after the lease expired: ok", func(h lh) checkstest.Want {
			h.acq(0, c, "A", 15, 1, 1.1, "ok")
			h.data(1, "container.delete", c, "", 20, 20.1, "ok")
			return pass
		}},
		{"set metadata with a stale lease id accepted", func(h lh) checkstest.Want {
			leased(h)
			r := h.release(0, c, "A", 3, 3.1, "ok")
			return fail("released it", h.data(0, "container.setmeta", c, "A", 5, 5.1, "ok"), r)
		}},
		{"set metadata with the holder's id: ok", func(h lh) checkstest.Want {
			leased(h)
			h.data(0, "container.setmeta", c, "A", 5, 5.1, "ok")
			h.data(1, "container.setmeta", c, "B", 6, 6.1, "412 LeaseIdMismatchWithContainerOperation")
			return pass
		}},
		{"set metadata with a lease id when none is held: ok", func(h lh) checkstest.Want {
			return fail("before any grant", h.data(0, "container.setmeta", c, "A", 5, 5.1, "ok"))
		}},

		// The lease itself: the blob lease state machine.
		{"two holders of a container lease", func(h lh) checkstest.Want {
			a := leased(h)
			return fail("two holders", h.acq(1, c, "B", 60, 5, 5.1, "ok"), a)
		}},
		{"container acquire while leased: wrong code", func(h lh) checkstest.Want {
			leased(h)
			return fail("409 LeaseAlreadyPresent", h.acq(1, c, "B", 60, 5, 5.1, "409 LeaseIdMismatchWithLeaseOperation"))
		}},
		{"container renew after break: wrong code", func(h lh) checkstest.Want {
			leased(h)
			h.brk(2, c, pint(10), 3, 3.1, "ok")
			return fail("LeaseIsBrokenAndCannotBeRenewed", h.renew(0, c, "A", 5, 5.1, "409 LeaseIdMismatchWithLeaseOperation"))
		}},
		{"container lease life cycle", func(h lh) checkstest.Want {
			h.acq(0, c, "A", -1, 1, 1.1, "ok")
			h.renew(0, c, "A", 2, 2.1, "ok")
			h.change(0, c, "A", "B", 3, 3.1, "ok")
			h.acq(1, c, "C", 60, 4, 4.1, "409 LeaseAlreadyPresent")
			h.brk(2, c, pint(0), 5, 5.1, "ok")
			h.data(1, "container.delete", c, "", 6, 6.1, "ok")
			return pass
		}},
		{"blob operations are not container operations", func(h lh) checkstest.Want {
			leased(h)
			h.call(1, "blob.put", c, checks.Input{}, 5, 5.1, "ok")
			return pass
		}},
		{"no container lease calls", func(h lh) checkstest.Want {
			h.data(1, "container.setmeta", c, "", 5, 5.1, "ok")
			return checkstest.Want{Verdict: checks.Undecided, Summary: "no container lease calls"}
		}},
	})
}

// TestContainerLeaseJudgeable: calls the checker cannot judge (an answer
// that may or may not have acted, a lease id whose lease may never have been
// granted) are counted as judgeable and not decided, each once.
func TestContainerLeaseJudgeable(t *testing.T) {
	const c = "c0"
	h := newLH("container.")
	h.acq(0, c, "A", 60, 1, 1.1, "unknown")                            // unanswered lease call: nothing settles it
	h.data(0, "container.delete", c, "", 5, 5.1, "412 LeaseIdMissing") // ambiguous: was A granted?
	h.data(1, "container.setmeta", c, "", 5, 5.1, "ok")                // judged
	h.data(1, "container.setmeta", c, "", 6, 6.1, "500")               // unanswered
	h.data(1, "container.delete", c, "A", 7, 7.1, "unknown")           // unanswered
	r := h.Check(t, ContainerLeaseName)
	if r.Verdict != checks.Undecided || r.Decided != 1 || r.Judgeable != 5 {
		t.Errorf("%s, %d of %d decided, want undecided, 1 of 5 (1 judged, 1 ambiguous, 3 unanswered): %s",
			r.Verdict, r.Decided, r.Judgeable, r.Summary)
	}
}
