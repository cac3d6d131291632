package smb

import (
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
)

// raced is the shape of Samba's race: actor 1 holds the last handle of f
// after actor 0 set the delete disposition and closed; actor 2's FILE_OPEN
// is sent while actor 1's close is in flight and is granted; then after
// tweaks, the first open after that close (actor 3's) finds no file.
func raced(tweak func(h *hist)) *hist {
	h := &hist{}
	h.openDisp(0, "f", fileCreate, 0, checks.OK, "", 0, 10)
	h.openDisp(1, "f", fileOpen, 0, checks.OK, "", 10, 20)
	h.dispose(0, "f", "delete", 20, 30)
	h.close(0, "f", 31, 32)
	h.close(1, "f", 40, 50)
	h.openDisp(2, "f", fileOpen, 0, checks.OK, "", 41, 60)
	if tweak != nil {
		tweak(h)
	} else {
		h.openDisp(3, "f", fileOpen, 0, checks.Conflict, statusNotFound, 65, 70)
	}
	h.close(2, "f", 71, 72)
	return h
}

func runDPOn(target string, h *hist) checks.Result {
	c := NewDeletePending()
	c.SetTarget(target)
	for i := range h.ops {
		c.Observe(&h.ops[i])
	}
	return c.Finish()
}

// TestDeletePendingSambaRaceIsAKnownDivergenceOfSambaOnly: the shape of
// Samba's race is a known divergence against target samba (shown, counted,
// not failing) and a violation against any other target; every other
// shape, a kept file above all, fails against samba too.
func TestDeletePendingSambaRaceIsAKnownDivergenceOfSambaOnly(t *testing.T) {
	r := runDPOn("samba", raced(nil))
	if r.Verdict != checks.Pass || r.Total != 0 || len(r.Known) != 1 {
		t.Fatalf("samba: %s %s violations %+v known %+v", r.Verdict, r.Summary, r.Violations, r.Known)
	}
	k := r.Known[0]
	if k.Kind != racedCloseKind || k.Count != 1 || k.Of != sambaKnown || len(k.Examples) != 1 || len(k.Examples[0].Ops) != 3 {
		t.Fatalf("known divergence %+v", k)
	}
	if !strings.Contains(r.Summary, "known divergence of Samba (not Azure Files behaviour): 1 × open granted racing the last close") {
		t.Fatalf("summary %q does not name the known divergence", r.Summary)
	}
	lost := runDPOn("samba", raced(func(h *hist) {
		h.openDisp(6, "f", fileOpen, 0, checks.Unknown, "", 12, 18) // lost with its connection
		h.openDisp(3, "f", fileOpen, 0, checks.Conflict, statusNotFound, 65, 70)
	}))
	if lost.Verdict != checks.Pass || len(lost.Known) != 1 {
		t.Fatalf("samba, a handle of unknown outcome and the file gone: %s %s %+v", lost.Verdict, lost.Summary, lost.Violations)
	}
	// A create sent before the last close answered leaves nothing after
	// that close to show the file gone; an open refused not found while
	// the granted handle was certainly open shows it did not hold the name.
	whileOpen := runDPOn("samba", raced(func(h *hist) {
		h.openDisp(4, "f", fileCreate, 0, checks.OK, "", 49, 80)
		h.openDisp(3, "f", fileOpen, 0, checks.Conflict, statusNotFound, 61, 66)
	}))
	if whileOpen.Verdict != checks.Pass || len(whileOpen.Known) != 1 || whileOpen.Known[0].Examples[0].Ops[2].Actor != 3 {
		t.Fatalf("samba, not found while the granted handle was open: %s %s %+v known %+v", whileOpen.Verdict, whileOpen.Summary, whileOpen.Violations, whileOpen.Known)
	}
	created := runDPOn("samba", raced(func(h *hist) { h.openDisp(4, "f", fileCreate, 0, checks.OK, "", 65, 70) }))
	if created.Verdict != checks.Pass || len(created.Known) != 1 {
		t.Fatalf("samba, a create granted after the close: %s %s %+v", created.Verdict, created.Summary, created.Violations)
	}

	for _, target := range []string{"connection-string", "account-key", ""} {
		r := runDPOn(target, raced(nil))
		if r.Verdict != checks.Fail || r.Total != 1 || len(r.Known) != 0 || !strings.Contains(r.Violations[0].Message, "called after the file's delete became pending") {
			t.Fatalf("target %q: %s %s %+v known %+v", target, r.Verdict, r.Summary, r.Violations, r.Known)
		}
	}

	for _, tc := range []struct {
		name string
		h    *hist
	}{
		{"a handle of unknown outcome kept it: the next open is refused pending", raced(func(h *hist) {
			h.openDisp(6, "f", fileOpen, 0, checks.Unknown, "", 12, 18)
			h.openDisp(3, "f", fileOpen, 0, checks.Conflict, statusDeletePending, 65, 70)
		})},
		{"the file kept: the next open is granted", raced(func(h *hist) {
			h.openDisp(3, "f", fileOpen, 0, checks.OK, "", 65, 70)
			h.close(3, "f", 70, 71)
		})},
		{"the file still pending after the close", raced(func(h *hist) {
			h.openDisp(3, "f", fileOpen, 0, checks.Conflict, statusDeletePending, 65, 70)
		})},
		{"nothing after the close shows the file gone", raced(func(h *hist) {})},
		{"another handle closed after the open's answer", raced(func(h *hist) {
			h.openDisp(5, "f", fileOpen, 0, checks.OK, "", 11, 19)
			h.close(5, "f", 61, 62)
			h.openDisp(3, "f", fileOpen, 0, checks.Conflict, statusNotFound, 65, 70)
		})},
		{"a close of unknown outcome, nothing seen while the open was held", func() *hist {
			h := &hist{}
			h.openDisp(0, "f", fileCreate, 0, checks.OK, "", 0, 10)
			h.openDisp(1, "f", fileOpen, 0, checks.OK, "", 10, 20)
			h.dispose(0, "f", "delete", 20, 30)
			h.close(0, "f", 31, 32)
			h.add(1, opClose, "f", checks.Unknown, 40, 50, checks.Input{}, checks.Output{})
			h.openDisp(2, "f", fileOpen, 0, checks.OK, "", 41, 60)
			h.close(2, "f", 61, 62) // closed before anything showed the name gone
			h.openDisp(3, "f", fileOpen, 0, checks.Conflict, statusNotFound, 65, 70)
			return h
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runDPOn("samba", tc.h)
			if r.Verdict != checks.Fail || len(r.Known) != 0 {
				t.Fatalf("%s %s %+v known %+v", r.Verdict, r.Summary, r.Violations, r.Known)
			}
		})
	}
}

// TestDeletePendingSambaDelayedOpen: an open sent before the delete became
// pending and answered after the last close of the file (a delayed open,
// e.g. under net.latency) is of the same shape on Samba: counted as a
// known divergence, and its handle keeps nothing of the name, so the next
// delete's claims do not count on it. A kept file still fails.
func TestDeletePendingSambaDelayedOpen(t *testing.T) {
	delayed := func(after func(h *hist)) *hist {
		h := &hist{}
		h.openDisp(0, "f", fileCreate, 0, checks.OK, "", 0, 10)
		h.openDisp(1, "f", fileOpen, 0, checks.OK, "", 5, 60) // in flight over the delete and its last close
		h.dispose(0, "f", "delete", 20, 30)
		h.close(0, "f", 40, 50)
		after(h)
		return h
	}
	// Not found while actor 1's handle is open; then the next incarnation:
	// created, delete-on-close, closed while actor 1's handle (on the
	// unlinked file) is still open.
	nextIncarnation := func(h *hist) {
		h.openDisp(3, "f", fileOpen, 0, checks.Conflict, statusNotFound, 65, 70)
		h.openDisp(2, "f", fileCreate, fileDeleteOnClose, checks.OK, "", 75, 80)
		h.close(2, "f", 85, 90)
		h.openDisp(3, "f", fileOpen, 0, checks.Conflict, statusNotFound, 95, 100)
		h.close(1, "f", 110, 120)
	}
	r := runDPOn("samba", delayed(nextIncarnation))
	if r.Verdict != checks.Pass || len(r.Known) != 1 || r.Known[0].Count != 1 {
		t.Fatalf("samba, a delayed open: %s %s %+v known %+v", r.Verdict, r.Summary, r.Violations, r.Known)
	}
	other := runDPOn("connection-string", delayed(nextIncarnation))
	if other.Verdict != checks.Fail || len(other.Known) != 0 {
		t.Fatalf("another target, a delayed open: %s %s %+v", other.Verdict, other.Summary, other.Violations)
	}
	kept := runDPOn("samba", delayed(func(h *hist) {
		h.openDisp(3, "f", fileOpen, 0, checks.OK, "", 65, 70)
		h.close(3, "f", 71, 72)
		h.close(1, "f", 110, 120)
	}))
	if kept.Verdict != checks.Fail || len(kept.Known) != 0 {
		t.Fatalf("samba, the file kept: %s %s %+v known %+v", kept.Verdict, kept.Summary, kept.Violations, kept.Known)
	}
}

// TestDeletePendingSambaRacedCreate: a FILE_CREATE sent while the file was
// delete-pending and granted as its last close ended lands on Samba on the
// file that close unlinked: opens of the name find nothing while it is
// open, and the delete it then asks for is of no file. On Samba that is
// the known divergence (its delete judged for nothing); elsewhere the
// not-found opens while its delete is pending are violations.
func TestDeletePendingSambaRacedCreate(t *testing.T) {
	h := &hist{}
	h.openDisp(0, "f", fileCreate, fileDeleteOnClose, checks.OK, "", 0, 10)
	h.openDisp(1, "f", fileOpen, 0, checks.OK, "", 10, 20)
	h.close(0, "f", 30, 40)                                  // delete pending, actor 1 holds the last handle
	h.openDisp(2, "f", fileCreate, 0, checks.OK, "", 41, 60) // racing actor 1's close
	h.close(1, "f", 45, 55)
	h.dispose(2, "f", "delete", 61, 62)
	h.openDisp(3, "f", fileOpen, 0, checks.Conflict, statusNotFound, 63, 64) // while actor 2's handle is open
	h.close(2, "f", 70, 71)
	r := runDPOn("samba", h)
	if r.Verdict != checks.Pass || len(r.Known) != 1 || !strings.Contains(r.Known[0].Examples[0].Message, "FILE_CREATE") {
		t.Fatalf("samba: %s %s %+v known %+v", r.Verdict, r.Summary, r.Violations, r.Known)
	}
	if o := runDPOn("connection-string", h); o.Verdict != checks.Fail || len(o.Known) != 0 {
		t.Fatalf("another target: %s %s", o.Verdict, o.Summary)
	}
}
