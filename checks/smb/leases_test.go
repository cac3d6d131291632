package smb

import (
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
)

func (h *hist) openLease(actor int, key, granted string, call, ret int64) {
	h.add(actor, opOpen, key, checks.OK, call, ret, checks.Input{Access: rw, Share: 7}, checks.Output{Value: granted})
}

func (h *hist) brk(actor int, key, from, to string, at int64) {
	h.add(actor, opBreak, key, checks.OK, at, at, checks.Input{Value: from}, checks.Output{Value: to})
}

func (h *hist) ack(actor int, key, state string, call, ret int64) {
	h.add(actor, opAck, key, checks.OK, call, ret, checks.Input{Value: state}, checks.Output{Value: state})
}

func runLB(h *hist) checks.Result { return runCheck(LeaseBreaksName, h) }

// broken: actor 0 holds RWH from 10; actor 1's open (called at 20) must
// wait for the acknowledgement (called at 40).
func broken(openReturn int64) *hist {
	h := &hist{}
	h.openLease(0, "f", "lease RWH", 0, 10)
	h.brk(0, "f", "lease RWH", "lease RH", 30)
	h.ack(0, "f", "lease RH", 40, 45)
	h.openLease(1, "f", "", 20, openReturn)
	h.close(0, "f", 60, 70)
	h.close(1, "f", openReturn+1, openReturn+2)
	return h
}

func TestLeaseBreaksPassesWhenTheOpenWaitsForTheAck(t *testing.T) {
	r := runLB(broken(50))
	if r.Verdict != checks.Pass || !strings.Contains(r.Summary, "1 opens called while write caching was held") {
		t.Fatalf("%s %s %+v", r.Verdict, r.Summary, r.Violations)
	}
	// The break and its acknowledgement recorded before the open's own
	// answer (the server broke the lease while the CREATE was in flight).
	h := &hist{}
	h.brk(0, "f", "lease RWH", "lease RH", 5)
	h.ack(0, "f", "lease RH", 6, 8)
	h.openLease(0, "f", "lease RWH", 0, 10)
	h.openLease(1, "f", "", 2, 12)
	if r := runLB(h); r.Verdict != checks.Pass {
		t.Fatalf("ack before the open's answer: %s %s %+v", r.Verdict, r.Summary, r.Violations)
	}
}

func TestLeaseBreaksViolations(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    *hist
	}{
		{"open completed before the ack was sent", broken(35)},
		{"open completed while a batch oplock was held, no break at all", func() *hist {
			h := &hist{}
			h.openLease(0, "f", "oplock batch", 0, 10)
			h.openLease(1, "f", "", 20, 25)
			h.close(0, "f", 60, 70)
			return h
		}()},
		{"open called before the grant, answered after it, before the ack", func() *hist {
			h := &hist{}
			h.openLease(0, "f", "lease RWH", 0, 10)
			h.openLease(1, "f", "", 5, 15)
			h.ack(0, "f", "lease RH", 40, 45)
			return h
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runLB(tc.h)
			if r.Verdict != checks.Fail || !strings.Contains(r.Violations[0].Message, "had not acknowledged its break") {
				t.Fatalf("%s %s %+v", r.Verdict, r.Summary, r.Violations)
			}
		})
	}
}

// TestLeaseBreaksAllowsTheTimeout: an open answered BreakTimeoutFloor after
// the lease was asked for, with no acknowledgement, is the server's break
// timeout, not a violation; a read-handle lease caches no writes.
func TestLeaseBreaksAllowsTheTimeout(t *testing.T) {
	h := &hist{}
	h.openLease(0, "f", "lease RWH", 0, 10)
	floor := BreakTimeoutFloor.Microseconds()
	h.openLease(1, "f", "", 20, floor+1)
	h.openLease(2, "g", "lease RH", 0, 10)
	h.openLease(3, "g", "", 20, 25)
	h.close(0, "f", floor+5, floor+6)
	if r := runLB(h); r.Verdict != checks.Pass {
		t.Fatalf("%s %s %+v", r.Verdict, r.Summary, r.Violations)
	}
}
