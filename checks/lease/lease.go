package lease

import (
	"math"
	"strings"
	"time"

	"github.com/stormcheck/stormcheck/checks"
)

// The lease model shared by lease-exclusion, lease-protocol and
// container-lease (CHECKERS.md, "Leases with clocks").
//
// The service enforces leases with its own clock; the harness measures Call
// and Return with its own monotonic clock. A call took effect at some
// instant of [Call, Return] (its linearization point); a duration of d
// seconds on the service's clock lasts between d(1-rho) and d(1+rho) on the
// harness's. So an acquire or renew of duration d that succeeded over
// [call, return] leaves its lease
//
//   - certainly held over [return, call + d(1-rho)], cut short where a
//     release, a change or a break of it (after the break period), a delete
//     of the resource, or an acquire of the same id with a shorter duration
//     may have taken effect after the grant;
//   - possibly held over [call, return + d(1+rho)], cut short where one of
//     those, or another grant (which then decides the lease), certainly took
//     effect after it.
//
// A change keeps the lease's expiry; a break keeps the lease locked for
// min(break period, remaining time) (an infinite lease without a period
// breaks at once).
//
// An operation whose outcome is unknown (a timeout, a 500) may take effect at
// any time after its Call, also after its Return (CHECKERS.md, unknown
// outcomes), unless LeaseUnknownHorizon bounds it: it widens "possibly" and
// never creates "certainly".
//
// Sources for the state machine and the codes, where they agree:
//   - REST "Lease Blob" / "Lease Container" (modes, break period semantics,
//     acquire with the same id renews, durations 15..60 s or -1);
//   - the Blob Storage dev guide's lease table ("storage-dev-guide-blob-lease":
//     Available: acquire; Leased: acquire (same id), renew, change, release,
//     break; Expired: acquire, renew, release, break; Breaking: release,
//     break; Broken: acquire, release, break) and its note that after an
//     expiry "a client may need to wait up to one minute before a new lease
//     can be acquired" (LeaseReacquireGrace);
//   - Blob Storage error codes (all lease-operation failures are 409; all
//     lease failures of other operations are 412);
//   - the codes the legacy .NET client's lease tests expect from the cloud
//     service for every state (azure-storage-net BlobLeaseTests), which the
//     Azurite emulator also implements.
//
// Where those disagree with the brief, the checker accepts both and says so
// next to the table (leaseAllowed).

// LeaseClockRho bounds the rate difference between the harness's clock and
// the service's: a service duration d lasts between d(1-rho) and d(1+rho) on
// the harness's clock.
var LeaseClockRho = 0.01

// LeaseReacquireGrace is how long after a lease may have expired the service
// may still refuse a new acquire (documented: "up to one minute"). Only
// refusals are excused by it; nothing accepted is.
var LeaseReacquireGrace = time.Minute

// LeaseUnknownHorizon bounds how long after its Return an operation with an
// unknown outcome may still take effect. Zero means unbounded, the
// CHECKERS.md rule; a runner that sends every lease call with the service's
// timeout parameter may set it to that timeout plus the client's.
var LeaseUnknownHorizon time.Duration

func shortestOnHarness(d int64) int64 {
	if d == checks.LsInf {
		return checks.LsInf
	}
	return int64(float64(d) * (1 - LeaseClockRho))
}

func longestOnHarness(d int64) int64 {
	if d == checks.LsInf {
		return checks.LsInf
	}
	return int64(math.Ceil(float64(d) * (1 + LeaseClockRho)))
}

// normLeaseID makes lease ids comparable: the service accepts "any valid
// GUID string format" and compares them without case, so a GUID is reduced
// to its 32 lower-case hex digits.
func normLeaseID(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	hex := make([]byte, 0, 32)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f':
			hex = append(hex, c)
		case c >= 'A' && c <= 'F':
			hex = append(hex, c+'a'-'A')
		case c == '-' || c == '{' || c == '}' || c == '(' || c == ')':
		default:
			return strings.ToLower(s)
		}
	}
	if len(hex) == 32 {
		return string(hex)
	}
	return strings.ToLower(s)
}

// Error codes (Blob Storage error codes).
const (
	lcAlreadyPresent      = "LeaseAlreadyPresent"
	lcMismatchLeaseOp     = "LeaseIdMismatchWithLeaseOperation"
	lcNotPresentLeaseOp   = "LeaseNotPresentWithLeaseOperation"
	lcBrokenNoRenew       = "LeaseIsBrokenAndCannotBeRenewed"
	lcBreakingNoAcquire   = "LeaseIsBreakingAndCannotBeAcquired"
	lcBreakingNoChange    = "LeaseIsBreakingAndCannotBeChanged"
	lcIDMissing           = "LeaseIdMissing"
	lcMismatchBlob        = "LeaseIdMismatchWithBlobOperation"
	lcNotPresentBlob      = "LeaseNotPresentWithBlobOperation"
	lcMismatchContainer   = "LeaseIdMismatchWithContainerOperation"
	lcNotPresentContainer = "LeaseNotPresentWithContainerOperation"
	lcLeaseLost           = "LeaseLost"
)

// The answers a judged call can give: "ok", an error code, or a bare status
// ("409", "412") when the service sent no code.
const lsOK = "ok"

// isLeaseOpCode reports whether code is one a lease call fails with.
func isLeaseOpCode(code string) bool {
	switch code {
	case lcAlreadyPresent, lcMismatchLeaseOp, lcNotPresentLeaseOp, lcBrokenNoRenew,
		lcBreakingNoAcquire, lcBreakingNoChange, "LeaseAlreadyBroken", "LeaseIsAlreadyBroken":
		return true
	}
	return false
}

// isLeaseDataCode reports whether code is one another operation fails with
// because of a lease.
func isLeaseDataCode(code string) bool {
	switch code {
	case lcIDMissing, lcMismatchBlob, lcNotPresentBlob, lcMismatchContainer, lcNotPresentContainer, lcLeaseLost:
		return true
	}
	return false
}

// lsConditional reports whether the call sent a condition that could itself
// fail with 412.
func lsConditional(op *checks.Op) bool {
	return op.In.IfMatch != "" || op.In.IfNoneMatch != "" || op.In.IfModifiedSince != "" || op.In.IfUnmodifiedSince != ""
}
