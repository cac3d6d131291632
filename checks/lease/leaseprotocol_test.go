package lease

import (
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

func TestLeaseProtocol(t *testing.T) {
	const b = "b0"
	const (
		present    = "409 LeaseAlreadyPresent"
		mismatch   = "409 LeaseIdMismatchWithLeaseOperation"
		notPresent = "409 LeaseNotPresentWithLeaseOperation"
		brokenRen  = "409 LeaseIsBrokenAndCannotBeRenewed"
		breakingAc = "409 LeaseIsBreakingAndCannotBeAcquired"
		breakingCh = "409 LeaseIsBreakingAndCannotBeChanged"
		idMissing  = "412 LeaseIdMissing"
		mismatchB  = "412 LeaseIdMismatchWithBlobOperation"
	)
	// leased: A holds a 60 s lease from 1.1 (certainly until 60.4).
	leased := func(h lh) uint64 { return h.acq(0, b, "A", 60, 1, 1.1, "ok") }
	// breaking: A's lease is breaking from 3 with a 20 s period (until 22.8 at least).
	breaking := func(h lh) (uint64, uint64) {
		a := leased(h)
		return a, h.brk(2, b, pint(20), 3, 3.1, "ok")
	}
	fail := func(msg string, seqs ...uint64) checkstest.Want {
		return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio(msg, seqs...)}}
	}
	pass := checkstest.Want{Verdict: checks.Pass}

	runLeaseCases(t, LeaseProtocolName, "blob.", []leaseCase{
		// Acquire.
		{"acquire while leased by another: 409 LeaseAlreadyPresent", func(h lh) checkstest.Want {
			leased(h)
			h.acq(1, b, "B", 60, 5, 5.1, present)
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 blob, 2 lease calls and 0 blob calls judged (0 ambiguous, not judged)"}
		}},
		{"acquire while leased by another: ok", func(h lh) checkstest.Want {
			a := leased(h)
			return fail("answered ok 201 while the lease was leased(a); the documented answer there is 409 LeaseAlreadyPresent",
				h.acq(1, b, "B", 60, 5, 5.1, "ok"), a)
		}},
		{"acquire while leased by another: wrong code", func(h lh) checkstest.Want {
			leased(h)
			return fail("the documented answer there is 409 LeaseAlreadyPresent", h.acq(1, b, "B", 60, 5, 5.1, mismatch))
		}},
		{"acquire without proposed id while leased: ok", func(h lh) checkstest.Want {
			leased(h)
			return fail("LeaseAlreadyPresent", h.acq(1, b, "", 60, 5, 5.1, "ok"))
		}},
		{"acquire with the holder's id renews: ok", func(h lh) checkstest.Want {
			leased(h)
			h.acq(0, b, "A", 60, 5, 5.1, "ok")
			return pass
		}},
		{"acquire with the holder's id: refused", func(h lh) checkstest.Want {
			leased(h)
			return fail("documented answer there is ok (201)", h.acq(0, b, "A", 60, 5, 5.1, present))
		}},
		{"acquire after a release must succeed", func(h lh) checkstest.Want {
			leased(h)
			r := h.release(0, b, "A", 3, 3.1, "ok")
			return fail("was available", h.acq(1, b, "B", 60, 5, 5.1, present), r)
		}},
		{"acquire overlapping a release may go either way", func(h lh) checkstest.Want {
			leased(h)
			h.release(0, b, "A", 3, 3.5, "ok")
			h.acq(1, b, "B", 60, 3.2, 3.4, present)
			h.acq(2, b, "C", 60, 3.2, 3.4, "ok")
			return pass
		}},
		{"acquire refused within a minute after expiry", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 15, 1, 1.1, "ok")
			h.acq(1, b, "B", 15, 30, 30.1, present) // possibly expired at 16.25: the grace
			h.acq(1, b, "B", 15, 70, 70.1, "ok")
			return pass
		}},
		{"acquire refused long after expiry", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 15, 1, 1.1, "ok")
			return fail("expired(a)", h.acq(1, b, "B", 15, 90, 90.1, present))
		}},
		{"acquire returns another id than proposed", func(h lh) checkstest.Want {
			s := h.acq(0, b, "A", 60, 1, 1.1, "ok")
			h.Op(s).Out.Value = "Q"
			return fail("returned lease id q, not the proposed a", s)
		}},
		{"acquire succeeds with the wrong status", func(h lh) checkstest.Want {
			return fail("succeeded with status 200; Lease Blob acquire answers 201", h.acq(0, b, "A", 60, 1, 1.1, "ok 200"))
		}},
		{"lease failure with a status other than 409", func(h lh) checkstest.Want {
			leased(h)
			return fail("lease call failures are 409", h.acq(1, b, "B", 60, 5, 5.1, "412 LeaseAlreadyPresent"))
		}},

		// Renew, release and change with a non-matching id.
		{"renew with another id: 409 mismatch", func(h lh) checkstest.Want {
			leased(h)
			h.renew(1, b, "B", 5, 5.1, mismatch)
			return pass
		}},
		{"renew with another id: ok", func(h lh) checkstest.Want {
			leased(h)
			return fail("409 LeaseIdMismatchWithLeaseOperation", h.renew(1, b, "B", 5, 5.1, "ok"))
		}},
		{"renew with another id: wrong code", func(h lh) checkstest.Want {
			leased(h)
			return fail("409 LeaseIdMismatchWithLeaseOperation", h.renew(1, b, "B", 5, 5.1, present))
		}},
		{"renew by the holder: refused", func(h lh) checkstest.Want {
			leased(h)
			return fail("ok (200)", h.renew(0, b, "A", 5, 5.1, mismatch))
		}},
		{"release with another id: ok", func(h lh) checkstest.Want {
			leased(h)
			return fail("409 LeaseIdMismatchWithLeaseOperation", h.release(1, b, "B", 5, 5.1, "ok"))
		}},
		{"release with another id: wrong code", func(h lh) checkstest.Want {
			leased(h)
			return fail("409 LeaseIdMismatchWithLeaseOperation", h.release(1, b, "B", 5, 5.1, present))
		}},
		{"change with another id: ok", func(h lh) checkstest.Want {
			leased(h)
			return fail("409 LeaseIdMismatchWithLeaseOperation", h.change(1, b, "B", "C", 5, 5.1, "ok"))
		}},
		{"change to the current id from another: ok (idempotent)", func(h lh) checkstest.Want {
			leased(h)
			h.change(1, b, "B", "A", 5, 5.1, "ok")
			h.renew(0, b, "A", 6, 6.1, "ok")
			return pass
		}},

		// No lease ever acquired.
		{"release before any acquire: both documented codes", func(h lh) checkstest.Want {
			h.release(0, b, "A", 1, 1.1, notPresent)
			h.release(0, b, "A", 2, 2.1, mismatch)
			h.renew(0, b, "A", 3, 3.1, notPresent)
			h.change(0, b, "A", "B", 4, 4.1, notPresent)
			h.brk(0, b, nil, 5, 5.1, notPresent)
			return checkstest.Want{Verdict: checks.Pass, Summary: "5 lease calls"}
		}},
		{"release before any acquire: ok", func(h lh) checkstest.Want {
			return fail("was available", h.release(0, b, "A", 1, 1.1, "ok"))
		}},
		{"renew before any acquire: ok", func(h lh) checkstest.Want {
			return fail("was available", h.renew(0, b, "A", 1, 1.1, "ok"))
		}},
		{"break before any acquire: ok", func(h lh) checkstest.Want {
			return fail("409 LeaseNotPresentWithLeaseOperation", h.brk(0, b, nil, 1, 1.1, "ok"))
		}},
		{"release before any acquire: wrong code", func(h lh) checkstest.Want {
			return fail("was available", h.release(0, b, "A", 1, 1.1, present))
		}},

		// Breaks.
		{"renew while breaking: LeaseIsBrokenAndCannotBeRenewed", func(h lh) checkstest.Want {
			breaking(h)
			h.renew(0, b, "A", 5, 5.1, brokenRen)
			h.renew(1, b, "B", 5, 5.1, mismatch)
			return pass
		}},
		{"renew while breaking: ok", func(h lh) checkstest.Want {
			_, br := breaking(h)
			return fail("breaking(a)", h.renew(0, b, "A", 5, 5.1, "ok"), br)
		}},
		{"renew while breaking: wrong code", func(h lh) checkstest.Want {
			breaking(h)
			return fail("409 LeaseIsBrokenAndCannotBeRenewed", h.renew(0, b, "A", 5, 5.1, mismatch))
		}},
		{"renew after the break period: broken", func(h lh) checkstest.Want {
			breaking(h)
			h.renew(0, b, "A", 30, 30.1, brokenRen)
			return pass
		}},
		{"renew after the break period: ok", func(h lh) checkstest.Want {
			breaking(h)
			return fail("was broken(a)", h.renew(0, b, "A", 30, 30.1, "ok"))
		}},
		{"renew after the break period: wrong code", func(h lh) checkstest.Want {
			breaking(h)
			return fail("409 LeaseIsBrokenAndCannotBeRenewed", h.renew(0, b, "A", 30, 30.1, mismatch))
		}},
		{"renew after break and a write: either code", func(h lh) checkstest.Want {
			breaking(h)
			h.data(1, "blob.put", b, "", 25, 25.1, "ok") // broken: writes need no id; the id may be forgotten
			h.renew(0, b, "A", 30, 30.1, mismatch)
			return pass
		}},
		{"acquire while breaking, another id: either code", func(h lh) checkstest.Want {
			breaking(h)
			h.acq(1, b, "B", 60, 5, 5.1, present)
			h.acq(1, b, "B", 60, 6, 6.1, breakingAc)
			return pass
		}},
		{"acquire while breaking, another id: ok", func(h lh) checkstest.Want {
			_, br := breaking(h)
			return fail("breaking(a)", h.acq(1, b, "B", 60, 5, 5.1, "ok"), br)
		}},
		{"acquire while breaking, the same id: LeaseIsBreakingAndCannotBeAcquired", func(h lh) checkstest.Want {
			breaking(h)
			h.acq(0, b, "A", 60, 5, 5.1, breakingAc)
			return pass
		}},
		{"acquire while breaking, the same id: ok", func(h lh) checkstest.Want {
			breaking(h)
			return fail("409 LeaseIsBreakingAndCannotBeAcquired", h.acq(0, b, "A", 60, 5, 5.1, "ok"))
		}},
		{"acquire while breaking, the same id: wrong code", func(h lh) checkstest.Want {
			breaking(h)
			return fail("409 LeaseIsBreakingAndCannotBeAcquired", h.acq(0, b, "A", 60, 5, 5.1, present))
		}},
		{"acquire after the break period must succeed", func(h lh) checkstest.Want {
			breaking(h)
			h.acq(1, b, "B", 60, 30, 30.1, "ok")
			return pass
		}},
		{"acquire after the break period: refused", func(h lh) checkstest.Want {
			breaking(h)
			return fail("was broken(a)", h.acq(1, b, "B", 60, 30, 30.1, present))
		}},
		{"change while breaking: LeaseIsBreakingAndCannotBeChanged", func(h lh) checkstest.Want {
			breaking(h)
			h.change(0, b, "A", "C", 5, 5.1, breakingCh)
			return pass
		}},
		{"change while breaking: ok", func(h lh) checkstest.Want {
			breaking(h)
			return fail("409 LeaseIsBreakingAndCannotBeChanged", h.change(0, b, "A", "C", 5, 5.1, "ok"))
		}},
		{"release while breaking, and a second break: ok", func(h lh) checkstest.Want {
			breaking(h)
			h.brk(2, b, pint(5), 4, 4.1, "ok")
			h.release(0, b, "A", 5, 5.1, "ok")
			h.acq(1, b, "B", 60, 6, 6.1, "ok")
			return pass
		}},
		{"change after the break period: LeaseNotPresentWithLeaseOperation", func(h lh) checkstest.Want {
			breaking(h)
			h.change(0, b, "A", "C", 30, 30.1, notPresent)
			h.release(0, b, "A", 31, 31.1, "ok") // a broken lease can be released
			return pass
		}},
		{"break period 0, then breaking is over", func(h lh) checkstest.Want {
			leased(h)
			h.brk(2, b, pint(0), 3, 3.1, "ok")
			h.renew(0, b, "A", 4, 4.1, brokenRen)
			h.acq(1, b, "B", 60, 5, 5.1, "ok")
			return pass
		}},

		// Expiry.
		{"renew of an expired lease, not leased again: ok", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 15, 1, 1.1, "ok")
			h.read(1, b, "", "E1", 20, 20.1, "ok")
			h.renew(0, b, "A", 30, 30.1, "ok")
			return pass
		}},
		{"renew of an expired lease, not leased again: refused", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 15, 1, 1.1, "ok")
			return fail("was expired(a)", h.renew(0, b, "A", 30, 30.1, mismatch))
		}},
		{"renew of an expired lease after a write: refused", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 15, 1, 1.1, "ok")
			h.data(1, "blob.setmeta", b, "", 20, 20.1, "ok")
			h.renew(0, b, "A", 30, 30.1, mismatch)
			return pass
		}},
		{"release of an expired lease: ok", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 15, 1, 1.1, "ok")
			h.release(0, b, "A", 30, 30.1, "ok")
			return pass
		}},
		{"renew at the expiry boundary: either", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 15, 1, 1.1, "ok")
			h.renew(0, b, "A", 16, 16.1, "ok")
			return pass
		}},

		// Other operations.
		{"write without id while leased: 412 LeaseIdMissing", func(h lh) checkstest.Want {
			leased(h)
			h.data(1, "blob.put", b, "", 5, 5.1, idMissing)
			h.data(1, "blob.setmeta", b, "", 5, 5.1, "412") // HEAD-like answer without a code
			return checkstest.Want{Verdict: checks.Pass, Summary: "2 blob calls judged (0 ambiguous, not judged), 2 while certainly leased"}
		}},
		{"write without id while leased: ok", func(h lh) checkstest.Want {
			a := leased(h)
			return fail("412 LeaseIdMissing", h.data(1, "blob.put", b, "", 5, 5.1, "ok"), a)
		}},
		{"write without id while leased: wrong code", func(h lh) checkstest.Want {
			leased(h)
			return fail("412 LeaseIdMissing", h.data(1, "blob.put", b, "", 5, 5.1, mismatchB))
		}},
		{"write without id while breaking: refused", func(h lh) checkstest.Want {
			breaking(h)
			h.data(1, "blob.commit", b, "", 5, 5.1, idMissing)
			return pass
		}},
		{"write without id after release: refused", func(h lh) checkstest.Want {
			leased(h)
			h.release(0, b, "A", 3, 3.1, "ok")
			return fail("documented answer there is ok", h.data(1, "blob.put", b, "", 5, 5.1, idMissing))
		}},
		{"conditional write refused 412 for its condition", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 1, 1.1, "ok")
			s := h.data(0, "blob.put", b, "A", 5, 5.1, "412 ConditionNotMet")
			h.Op(s).In.IfMatch = "E0"
			return pass
		}},
		{"write by the holder: refused with a lease code", func(h lh) checkstest.Want {
			leased(h)
			return fail("ok", h.data(0, "blob.put", b, "A", 5, 5.1, mismatchB))
		}},
		{"write with another id while leased: 412 mismatch", func(h lh) checkstest.Want {
			leased(h)
			h.data(1, "blob.put", b, "B", 5, 5.1, mismatchB)
			return pass
		}},
		{"write with another id while leased: ok", func(h lh) checkstest.Want {
			leased(h)
			return fail("412 LeaseIdMismatchWithBlobOperation", h.data(1, "blob.put", b, "B", 5, 5.1, "ok"))
		}},
		{"read without id while leased: ok", func(h lh) checkstest.Want {
			leased(h)
			h.read(1, b, "", "E1", 5, 5.1, "ok")
			return pass
		}},
		{"read without id while leased: refused", func(h lh) checkstest.Want {
			leased(h)
			return fail("a read never needs the lease", h.read(1, b, "", "", 5, 5.1, idMissing))
		}},
		{"read with a wrong id while leased: ok", func(h lh) checkstest.Want {
			leased(h)
			return fail("412 LeaseIdMismatchWithBlobOperation", h.read(1, b, "B", "E1", 5, 5.1, "ok"))
		}},
		{"read with the holder's id: ok", func(h lh) checkstest.Want {
			leased(h)
			h.read(0, b, "A", "E1", 5, 5.1, "ok")
			return pass
		}},
		{"404 answers are not judged", func(h lh) checkstest.Want {
			leased(h)
			h.data(1, "blob.put", b, "", 5, 5.1, "404 BlobNotFound")
			h.acq(1, b, "B", 60, 5, 5.1, "404 BlobNotFound")
			return pass
		}},

		// Unknown outcomes.
		{"unknown acquire by another, then conflicts: ambiguous", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 1, 1.1, "ok")
			h.release(0, b, "A", 2, 2.1, "ok")
			h.acq(1, b, "B", 60, 3, 33, "unknown")
			h.acq(2, b, "C", 60, 40, 40.1, present) // B may hold it
			h.data(2, "blob.put", b, "", 41, 41.1, idMissing)
			return checkstest.Want{Verdict: checks.Pass, Summary: "2 ambiguous"}
		}},
		{"unknown release: the lease may be gone", func(h lh) checkstest.Want {
			h.acq(0, b, "A", 60, 1, 1.1, "ok")
			h.release(0, b, "A", 2, 32, "unknown")
			h.acq(2, b, "C", 60, 40, 40.1, "ok")
			return pass
		}},
		{"throttled lease calls are not judged", func(h lh) checkstest.Want {
			leased(h)
			h.acq(1, b, "B", 60, 5, 5.1, "503")
			return pass
		}},

		// ETags.
		{"ETag changed across only lease calls", func(h lh) checkstest.Want {
			r1 := h.read(1, b, "", "E1", 1, 1.1, "ok")
			h.acq(0, b, "A", 60, 2, 2.1, "ok")
			h.release(0, b, "A", 3, 3.1, "ok")
			return fail("the ETag changed from E1 (#1) to E2 (#4) with only lease calls in between", h.read(1, b, "", "E2", 4, 4.1, "ok"), r1)
		}},
		{"ETag returned by a lease call differs from the blob's", func(h lh) checkstest.Want {
			h.read(1, b, "", "E1", 1, 1.1, "ok")
			a := h.acq(0, b, "A", 60, 2, 2.1, "ok")
			h.Op(a).Out.ETag = "E9"
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("from E1 (#1) to E9 (#2)", a)}}
		}},
		{"ETag unchanged across lease calls", func(h lh) checkstest.Want {
			h.read(1, b, "", "E1", 1, 1.1, "ok")
			a := h.acq(0, b, "A", 60, 2, 2.1, "ok")
			h.Op(a).Out.ETag = "E1"
			h.release(0, b, "A", 3, 3.1, "ok")
			h.read(1, b, "", "E1", 4, 4.1, "ok")
			return checkstest.Want{Verdict: checks.Pass, Summary: "2 ETag comparisons across lease calls"}
		}},
		{"ETag changed with a write in between", func(h lh) checkstest.Want {
			h.read(1, b, "", "E1", 1, 1.1, "ok")
			h.acq(0, b, "A", 60, 2, 2.1, "ok")
			h.data(0, "blob.put", b, "A", 2.5, 2.6, "ok")
			h.release(0, b, "A", 3, 3.1, "ok")
			h.read(1, b, "", "E2", 4, 4.1, "ok")
			return pass
		}},
		{"ETag changed with an unknown write long before", func(h lh) checkstest.Want {
			h.data(2, "blob.put", b, "", 0.1, 0.2, "unknown") // may land any time later
			h.read(1, b, "", "E1", 1, 1.1, "ok")
			h.acq(0, b, "A", 60, 2, 2.1, "ok")
			h.read(1, b, "", "E2", 4, 4.1, "ok")
			return pass
		}},
		{"ETag changed with a refused write in between", func(h lh) checkstest.Want {
			h.read(1, b, "", "E1", 1, 1.1, "ok")
			h.acq(0, b, "A", 60, 2, 2.1, "ok")
			h.data(2, "blob.put", b, "", 2.5, 2.6, idMissing)
			return fail("with only lease calls in between", h.read(1, b, "", "E2", 4, 4.1, "ok"))
		}},
		{"ETag of overlapping reads is not compared", func(h lh) checkstest.Want {
			h.read(1, b, "", "E1", 1, 3, "ok")
			h.acq(0, b, "A", 60, 1.5, 1.6, "ok")
			h.read(2, b, "", "E2", 2, 4, "ok")
			return pass
		}},
	})
}

func TestLeaseProtocolUndecided(t *testing.T) {
	h := newLH("blob.")
	h.read(0, "b", "", "E1", 1, 1.1, "ok")
	if r := h.Check(t, LeaseProtocolName); r.Verdict != checks.Undecided {
		t.Errorf("no lease calls: %s (%s), want undecided", r.Verdict, r.Summary)
	}
}
