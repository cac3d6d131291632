package smb

import (
	"testing"

	"github.com/stormcheck/stormcheck/checks"
)

// When a holder's connection breaks, the server closes its handles (and
// drops their locks and leases) at a time the history cannot tell: a close,
// unlock or acknowledgement that got no answer does not prove the handle
// was held until its call. A competitor granted in between is no violation.
func TestChecksDoNotJudgePastABrokenConnection(t *testing.T) {
	t.Run("share-modes", func(t *testing.T) {
		h := &hist{}
		h.open(0, "f", rw, 0, checks.OK, 0, 10)
		h.add(0, opRead, "f", checks.Unknown, 20, 30, checks.Input{}, checks.Output{})
		h.open(1, "f", rw, 0, checks.OK, 40, 50) // after the reset, before 0's close was sent
		h.add(0, opClose, "f", checks.Unknown, 60, 70, checks.Input{}, checks.Output{})
		h.close(1, "f", 80, 90)
		if r := run(h); r.Verdict == checks.Fail {
			t.Fatalf("%s %+v", r.Summary, r.Violations)
		}
	})
	t.Run("byte-range-locks", func(t *testing.T) {
		h := &hist{}
		h.open(0, "f", rw, 7, checks.OK, 0, 5)
		h.open(1, "f", rw, 7, checks.OK, 0, 5)
		h.lock(0, "f", 0, 16, lockExclusive, checks.OK, 5, 10)
		h.lock(1, "f", 0, 16, lockExclusive, checks.OK, 20, 30)
		h.rangeIO(1, opWrite, "f", 0, 16, checks.OK, 31, 32)
		h.add(0, opUnlock, "f", checks.Unknown, 40, 50, checks.Input{Offset: 0, Length: 16, Flags: 4}, checks.Output{})
		h.add(0, opClose, "f", checks.Unknown, 60, 70, checks.Input{}, checks.Output{})
		if r := runBRL(h); r.Verdict == checks.Fail {
			t.Fatalf("%s %+v", r.Summary, r.Violations)
		}
	})
	t.Run("delete-pending", func(t *testing.T) {
		h := &hist{}
		h.openDisp(0, "f", 2, 0, checks.OK, "", 0, 10)
		h.openDisp(1, "f", fileOpen, 0, checks.OK, "", 10, 20)
		h.dispose(0, "f", "delete", 20, 30)
		h.add(1, opClose, "f", checks.Unknown, 35, 36, checks.Input{}, checks.Output{}) // 1's connection broke
		h.add(0, opClose, "f", checks.Unknown, 36, 37, checks.Input{}, checks.Output{}) // and 0's: the file is gone at some time
		h.openDisp(2, "f", fileOpen, 0, checks.Conflict, statusNotFound, 31, 34)
		if r := runDP(h); r.Verdict == checks.Fail {
			t.Fatalf("%s %+v", r.Summary, r.Violations)
		}
	})
	t.Run("lease-breaks", func(t *testing.T) {
		h := &hist{}
		h.openLease(0, "f", "lease RWH", 0, 10)
		h.openLease(1, "f", "", 20, 30)
		h.add(0, opClose, "f", checks.Unknown, 40, 50, checks.Input{}, checks.Output{})
		h.add(0, opAck, "f", checks.Unknown, 45, 55, checks.Input{Value: "lease RH"}, checks.Output{})
		if r := runLB(h); r.Verdict == checks.Fail {
			t.Fatalf("%s %+v", r.Summary, r.Violations)
		}
	})
}
