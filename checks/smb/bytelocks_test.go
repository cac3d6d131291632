package smb

import (
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
)

func (h *hist) lock(actor int, key string, off, n int64, flags int, o checks.Outcome, call, ret int64) {
	code := ""
	if o == checks.Conflict {
		code = "STATUS_LOCK_NOT_GRANTED"
	}
	h.add(actor, opLock, key, o, call, ret, checks.Input{Offset: off, Length: n, Flags: flags}, checks.Output{ErrorCode: code})
}

func (h *hist) unlock(actor int, key string, off, n int64, call, ret int64) {
	h.add(actor, opUnlock, key, checks.OK, call, ret, checks.Input{Offset: off, Length: n, Flags: 4}, checks.Output{})
}

func (h *hist) rangeIO(actor int, kind, key string, off, n int64, o checks.Outcome, call, ret int64) {
	h.add(actor, kind, key, o, call, ret, checks.Input{Offset: off, Length: n}, checks.Output{})
}

func runBRL(h *hist) checks.Result { return runCheck(ByteRangeLocksName, h) }

// locked: actor 0 holds [0,16) exclusive over 10..50; actor 1 holds
// [8,24) shared; extra adds what each case needs.
func locked(extra func(h *hist)) *hist {
	h := &hist{}
	h.open(0, "f", rw, 7, checks.OK, 0, 5)
	h.open(1, "f", rw, 7, checks.OK, 0, 5)
	h.lock(0, "f", 0, 16, lockExclusive|lockFailImmediately, checks.OK, 5, 10)
	h.lock(1, "f", 8, 16, lockShared|lockFailImmediately, checks.Conflict, 12, 14)
	h.rangeIO(1, opRead, "f", 4, 4, checks.Conflict, 15, 16)
	h.rangeIO(1, opRead, "f", 16, 16, checks.OK, 16, 17) // outside
	h.rangeIO(0, opWrite, "f", 0, 16, checks.OK, 17, 18) // its own range
	if extra != nil {
		extra(h)
	}
	h.unlock(0, "f", 0, 16, 50, 55)
	h.close(0, "f", 56, 57)
	h.lock(1, "f", 8, 16, lockShared, checks.OK, 60, 65) // after the release
	h.close(1, "f", 70, 71)
	return h
}

func TestByteRangeLocksPassesAWellBehavedHistory(t *testing.T) {
	h := locked(func(h *hist) {
		h.open(2, "f", rw, 7, checks.OK, 0, 5)
		h.lock(2, "f", 100, 16, lockShared, checks.OK, 20, 21) // no overlap
		h.lock(2, "f", 8, 8, lockExclusive, checks.OK, 30, 58) // waited, answered after the release
		h.close(2, "f", 59, 59)
	})
	// Shared locks may overlap.
	h.open(3, "g", rw, 7, checks.OK, 0, 1)
	h.open(4, "g", rw, 7, checks.OK, 0, 1)
	h.lock(3, "g", 0, 16, lockShared, checks.OK, 1, 2)
	h.lock(4, "g", 0, 16, lockShared, checks.OK, 1, 2)
	h.rangeIO(4, opRead, "g", 0, 16, checks.OK, 3, 4)
	h.close(3, "g", 5, 6)
	h.close(4, "g", 5, 6)
	r := runBRL(h)
	if r.Verdict != checks.Pass || r.Decided == 0 {
		t.Fatalf("%s %s %+v", r.Verdict, r.Summary, r.Violations)
	}
}

func TestByteRangeLocksViolations(t *testing.T) {
	for _, tc := range []struct {
		name  string
		extra func(h *hist)
		want  string
	}{
		{"exclusive and shared held at once", func(h *hist) {
			h.lock(1, "f", 8, 16, lockShared|lockFailImmediately, checks.OK, 20, 22)
		}, "two conflicting locks were held at the same time"},
		{"two exclusive held at once", func(h *hist) {
			h.open(2, "f", rw, 7, checks.OK, 0, 5)
			h.lock(2, "f", 15, 1, lockExclusive|lockFailImmediately, checks.OK, 20, 22)
		}, "two conflicting locks were held at the same time"},
		{"waiting lock granted before the release", func(h *hist) {
			h.open(2, "f", rw, 7, checks.OK, 0, 5)
			h.lock(2, "f", 0, 4, lockExclusive, checks.OK, 20, 40)
		}, "a waiting lock was granted while the conflicting lock was still held"},
		{"read inside another's exclusive lock", func(h *hist) {
			h.rangeIO(1, opRead, "f", 4, 4, checks.OK, 20, 21)
		}, "read of [4,8) answered OK inside another handle's exclusive lock"},
		{"write across another's exclusive lock", func(h *hist) {
			h.rangeIO(1, opWrite, "f", 12, 8, checks.OK, 20, 21)
		}, "write of [12,20) answered OK"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runBRL(locked(tc.extra))
			if r.Verdict != checks.Fail || !strings.Contains(r.Violations[0].Message, tc.want) {
				t.Fatalf("%s %s %+v", r.Verdict, r.Summary, r.Violations)
			}
		})
	}
}

// TestByteRangeLocksJudgesOnlyCertainOverlaps: a lock answered after the
// holder's unlock was sent, I/O answered after it, a lock of unknown
// outcome, and locks of one handle are not violations.
func TestByteRangeLocksJudgesOnlyCertainOverlaps(t *testing.T) {
	h := locked(func(h *hist) {
		h.open(2, "f", rw, 7, checks.OK, 0, 5)
		h.lock(2, "f", 0, 16, lockExclusive, checks.OK, 20, 58)                  // answered after the holder's close call
		h.rangeIO(1, opRead, "f", 0, 4, checks.OK, 45, 51)                       // answered after it too
		h.lock(1, "f", 0, 16, lockExclusive, checks.Unknown, 20, 30)             // may or may not hold
		h.lock(0, "f", 0, 16, lockShared|lockFailImmediately, checks.OK, 20, 21) // its own handle
	})
	if r := runBRL(h); r.Verdict != checks.Pass {
		t.Fatalf("%s %s %+v", r.Verdict, r.Summary, r.Violations)
	}
}
