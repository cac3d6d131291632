package lease

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
)

// What each state allows: the answers (status and code) the service may give to a lease call or a data call in that state.

// --- what each state allows ---

// leaseAllowed lists the documented answers of a lease call in a state: x is
// the id the call names (acquire: the proposed id), p a change's proposed id.
//
// Where the sources differ:
//   - renew or release with no lease present: the brief says 409
//     LeaseNotPresentWithLeaseOperation; the cloud service answers 409
//     LeaseIdMismatchWithLeaseOperation (azure-storage-net's lease tests,
//     "renew/release a lease when no lease is held"). Both are accepted.
//   - acquire while breaking: the brief says LeaseIsBreakingAndCannotBeAcquired
//     for any id; the error code's text ("the lease ID matched, but ...") and
//     the cloud tests give it only for the breaking lease's own id, and
//     LeaseAlreadyPresent for another. For another id both are accepted.
//   - break, change or renew on a broken or expired lease after the blob was
//     changed: the lease id is forgotten (available); the model adds that
//     state whenever a change may have happened.
//   - in the minute after an expiry a new acquire may be refused with
//     LeaseAlreadyPresent (LeaseReacquireGrace).
func leaseAllowed(s leaseState, act leaseAction, x, p string) []string {
	eq := x != "" && x == s.id
	switch s.kind {
	case lsAvailable:
		switch act {
		case laAcquire:
			return []string{lsOK}
		case laRenew, laRelease:
			return []string{lcMismatchLeaseOp, lcNotPresentLeaseOp}
		case laChange:
			return []string{lcNotPresentLeaseOp, lcMismatchLeaseOp}
		case laBreak:
			return []string{lcNotPresentLeaseOp}
		}
	case lsLeased:
		switch act {
		case laAcquire, laRenew, laRelease:
			if eq {
				return []string{lsOK}
			}
			if act == laAcquire {
				return []string{lcAlreadyPresent}
			}
			return []string{lcMismatchLeaseOp}
		case laChange:
			if eq || (p != "" && p == s.id) {
				return []string{lsOK}
			}
			return []string{lcMismatchLeaseOp}
		case laBreak:
			return []string{lsOK}
		}
	case lsBreaking:
		switch act {
		case laAcquire:
			if eq {
				return []string{lcBreakingNoAcquire}
			}
			return []string{lcAlreadyPresent, lcBreakingNoAcquire}
		case laRenew:
			if eq {
				return []string{lcBrokenNoRenew}
			}
			return []string{lcMismatchLeaseOp}
		case laChange:
			if eq {
				return []string{lcBreakingNoChange}
			}
			return []string{lcMismatchLeaseOp, lcBreakingNoChange}
		case laRelease:
			if eq {
				return []string{lsOK}
			}
			return []string{lcMismatchLeaseOp}
		case laBreak:
			return []string{lsOK}
		}
	case lsBroken, lsExpired:
		switch act {
		case laAcquire:
			if s.kind == lsExpired && s.grace {
				return []string{lsOK, lcAlreadyPresent}
			}
			return []string{lsOK}
		case laRenew:
			switch {
			case eq && s.kind == lsBroken:
				return []string{lcBrokenNoRenew}
			case eq:
				return []string{lsOK}
			}
			return []string{lcMismatchLeaseOp, lcNotPresentLeaseOp}
		case laRelease:
			if eq {
				return []string{lsOK}
			}
			return []string{lcMismatchLeaseOp, lcNotPresentLeaseOp}
		case laChange:
			return []string{lcNotPresentLeaseOp, lcMismatchLeaseOp}
		case laBreak:
			return []string{lsOK}
		}
	case lsUnlocked:
		switch act {
		case laAcquire:
			if s.grace {
				return []string{lsOK, lcAlreadyPresent}
			}
			return []string{lsOK}
		case laChange:
			return []string{lcNotPresentLeaseOp, lcMismatchLeaseOp}
		case laBreak:
			return []string{lsOK, lcNotPresentLeaseOp}
		}
	}
	return nil // anything
}

// dataAllowed lists the documented lease answers of another operation in a
// state: x is the lease id it sent. Refusals for other reasons (a failed
// If-Match, 404) are not judged.
func (sp *leaseSpace) dataAllowed(s leaseState, c leaseDataClass, x string) []string {
	if x == "" {
		if !c.enforced {
			return []string{lsOK}
		}
		switch s.kind {
		case lsLeased, lsBreaking:
			return []string{lcIDMissing}
		case lsAvailable, lsBroken:
			return []string{lsOK}
		case lsExpired, lsUnlocked:
			// In the minute after an expiry the service may still act as if
			// leased (see LeaseReacquireGrace): a refusal is excused there.
			if s.grace {
				return []string{lsOK, lcIDMissing}
			}
			return []string{lsOK}
		}
		return nil
	}
	switch s.kind {
	case lsLeased, lsBreaking:
		if x == s.id {
			return []string{lsOK}
		}
		return []string{sp.mismatch}
	case lsAvailable:
		return []string{sp.notPresent, lcLeaseLost, sp.mismatch}
	case lsBroken, lsExpired, lsUnlocked:
		return []string{sp.notPresent, lcLeaseLost, sp.mismatch}
	}
	return nil
}

// leaseAnswer is how a lease call was answered, for judging: "ok", a 409's
// code, or "" (not a lease answer: 400, 404, 503, unknown).
func leaseAnswer(op *checks.Op) string {
	if op.Outcome == checks.OK {
		return lsOK
	}
	if op.Out.Status == http.StatusConflict {
		if op.Out.ErrorCode == "" {
			return "409"
		}
		return op.Out.ErrorCode
	}
	if isLeaseOpCode(op.Out.ErrorCode) {
		return op.Out.ErrorCode
	}
	return ""
}

// dataAnswer is how another operation was answered, for judging: "ok", a
// lease code, "412" for a precondition failure the call's own conditions
// cannot explain, or "" (not judged).
func dataAnswer(op *checks.Op) string {
	switch {
	case op.Outcome == checks.OK:
		return lsOK
	case isLeaseDataCode(op.Out.ErrorCode):
		return op.Out.ErrorCode
	case op.Out.Status == http.StatusPreconditionFailed && !lsConditional(op):
		return "412"
	}
	return ""
}

// answerAllowed reports whether ans is among the allowed answers; a bare status
// ("409", "412": no code sent) matches any refusal.
func answerAllowed(allowed []string, ans string) bool {
	for _, a := range allowed {
		if a == ans || (a != lsOK && (ans == "409" || ans == "412")) {
			return true
		}
	}
	return false
}

// allowedInAny merges allowed answers over candidate states; nil means anything.
func allowedInAny(c candidateStates, fn func(s leaseState) []string) []string {
	var out []string
	for _, s := range c.states {
		a := fn(s)
		if a == nil {
			return nil
		}
		for _, x := range a {
			if !containsString(out, x) {
				out = append(out, x)
			}
		}
	}
	return out
}

func containsInt(list []int, x int) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// describeAllowed renders allowed answers: "ok", "409 LeaseAlreadyPresent".
func describeAllowed(allowed []string, act leaseAction, status int) string {
	parts := make([]string, len(allowed))
	for i, a := range allowed {
		switch {
		case a == lsOK && act != laNone:
			parts[i] = fmt.Sprintf("ok (%d)", leaseOKStatus[act])
		case a == lsOK:
			parts[i] = "ok"
		default:
			parts[i] = fmt.Sprintf("%d %s", status, a)
		}
	}
	return strings.Join(parts, " or ")
}

// evidenceOps builds an excerpt: the judged op first, then the evidence.
