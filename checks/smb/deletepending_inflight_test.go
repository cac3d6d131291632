package smb

import (
	"slices"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
)

const fileOpenIf = 3 // FILE_OPEN_IF: opens, or creates when missing

// inFlight: actor 0 creates f; actor 1's FILE_OPEN is sent before actor 0
// sets the delete disposition and answered after that was sent (granted
// before it, while actor 0's handle held the file); actor 0 closes, so
// actor 1 holds the delete-pending file until it closes at 80. then adds
// what each case does while it is held.
func inFlight(then func(h *hist)) *hist {
	h := &hist{}
	h.openDisp(0, "f", fileCreate, 0, checks.OK, "", 0, 10)
	h.openDisp(1, "f", fileOpen, 0, checks.OK, "", 15, 25)
	h.dispose(0, "f", "delete", 20, 30)
	h.close(0, "f", 40, 50)
	then(h)
	h.close(1, "f", 80, 90)
	h.openDisp(2, "f", fileOpen, 0, checks.Conflict, statusNotFound, 100, 110)
	return h
}

// TestDeletePendingCountsAHandleInFlightWithTheDelete: a handle whose open
// was in flight with the delete and must have been granted before it holds
// the pending file: an open refused not found, or granted with a create
// disposition, while it is open is a violation on Azure Files (and a
// granted one on Samba, where that handle's open could not race a last
// close); a delete-on-close delete counts it the same way on other targets.
func TestDeletePendingCountsAHandleInFlightWithTheDelete(t *testing.T) {
	for _, tc := range []struct {
		name    string
		h       *hist
		targets []string
		want    string
	}{
		{"not found while it is open", inFlight(func(h *hist) {
			h.openDisp(2, "f", fileOpen, 0, checks.Conflict, statusNotFound, 60, 65)
		}), []string{"connection-string", "account-key", ""}, "STATUS_OBJECT_NAME_NOT_FOUND while the file's delete was pending and a handle still open"},
		{"opened (FILE_OPEN_IF) while it is open", inFlight(func(h *hist) {
			h.openDisp(2, "f", fileOpenIf, 0, checks.OK, "", 60, 65)
			h.close(2, "f", 66, 67)
		}), []string{"connection-string", "account-key", "", "samba"}, "granted while the file's delete was pending and a handle open"},
		{"delete-on-close: not found while it is open", func() *hist {
			h := &hist{}
			h.openDisp(0, "f", fileCreate, fileDeleteOnClose, checks.OK, "", 0, 10)
			h.openDisp(1, "f", fileOpen, 0, checks.OK, "", 25, 35) // in flight with the close
			h.close(0, "f", 30, 40)
			h.openDisp(2, "f", fileOpen, 0, checks.Conflict, statusNotFound, 50, 55)
			h.close(1, "f", 80, 90)
			return h
		}(), []string{"connection-string", "account-key", ""}, "STATUS_OBJECT_NAME_NOT_FOUND while the file's delete was pending"},
	} {
		for _, target := range tc.targets {
			t.Run(tc.name+"/"+target, func(t *testing.T) {
				r := runDPOn(target, tc.h)
				if r.Verdict != checks.Fail || len(r.Violations) != 1 || len(r.Known) != 0 {
					t.Fatalf("%s %s %+v known %+v", r.Verdict, r.Summary, r.Violations, r.Known)
				}
				v := r.Violations[0]
				if !strings.Contains(v.Message, tc.want) || !strings.Contains(v.Message, "in flight with it") || v.Ops[len(v.Ops)-1].Actor != 2 {
					t.Fatalf("violation %+v", v)
				}
			})
		}
	}
	// The same history with the open refused as it should be passes, and
	// the in-flight holder's window is one more claim decided.
	ok := inFlight(func(h *hist) {
		h.openDisp(2, "f", fileOpen, 0, checks.Conflict, statusDeletePending, 60, 65)
	})
	r := runDPOn("connection-string", ok)
	if r.Verdict != checks.Pass {
		t.Fatalf("refused pending: %s %s %+v", r.Verdict, r.Summary, r.Violations)
	}
	if s := runDPOn("samba", ok); s.Verdict != checks.Pass || len(s.Known) != 0 || s.Decided != r.Decided {
		t.Fatalf("samba, refused pending: %s %s %+v (decided %d, want %d)", s.Verdict, s.Summary, s.Violations, s.Decided, r.Decided)
	}
}

// TestDeletePendingInFlightOpensACorrectServerCanGrant: histories a correct
// server produces in which a granted open was in flight with the delete
// and did not hold the pending file: the history cannot exclude that it
// was granted after the file was removed (a create could have made it
// anew) or after a clear; they pass on every target.
func TestDeletePendingInFlightOpensACorrectServerCanGrant(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    *hist
	}{
		{"delete-on-close removed the file, the open created it anew", func() *hist {
			h := &hist{}
			h.openDisp(0, "f", fileCreate, fileDeleteOnClose, checks.OK, "", 0, 10)
			h.openDisp(1, "f", fileOpenIf, 0, checks.OK, "", 25, 45) // the last close at 32, created at 35
			h.close(0, "f", 30, 40)
			h.openDisp(2, "f", fileOpen, 0, checks.OK, "", 50, 55) // a1's new file
			h.close(2, "f", 56, 57)
			h.close(1, "f", 80, 90)
			return h
		}()},
		{"answered after the last close and a create", func() *hist {
			h := &hist{}
			h.openDisp(0, "f", fileCreate, 0, checks.OK, "", 0, 10)
			h.openDisp(1, "f", fileOpen, 0, checks.OK, "", 25, 70) // granted at 65 on actor 3's file
			h.dispose(0, "f", "delete", 20, 30)
			h.close(0, "f", 40, 50)
			h.openDisp(3, "f", fileCreate, 0, checks.OK, "", 52, 58)
			h.close(3, "f", 60, 61)
			h.openDisp(2, "f", fileOpen, 0, checks.OK, "", 72, 75)
			h.close(2, "f", 76, 77)
			h.close(1, "f", 80, 90)
			return h
		}()},
		{"answered after a clear", func() *hist {
			h := &hist{}
			h.openDisp(0, "f", fileCreate, 0, checks.OK, "", 0, 10)
			h.openDisp(1, "f", fileOpen, 0, checks.OK, "", 15, 45) // granted after the clear
			h.dispose(0, "f", "delete", 20, 30)
			h.dispose(0, "f", "keep", 31, 35)
			h.openDisp(2, "f", fileOpen, 0, checks.OK, "", 50, 55)
			h.close(2, "f", 56, 57)
			h.close(0, "f", 60, 70)
			h.close(1, "f", 80, 90)
			return h
		}()},
		{"held and refused pending until it closed", inFlight(func(h *hist) {
			h.openDisp(2, "f", fileOpen, 0, checks.Conflict, statusDeletePending, 60, 65)
			h.openDisp(3, "f", fileOpenIf, 0, checks.Conflict, statusDeletePending, 70, 75)
		})},
	} {
		for _, target := range []string{"connection-string", "account-key", "", "samba"} {
			t.Run(tc.name+"/"+target, func(t *testing.T) {
				if r := runDPOn(target, tc.h); r.Verdict != checks.Pass {
					t.Fatalf("%s %s %+v known %+v", r.Verdict, r.Summary, r.Violations, r.Known)
				}
			})
		}
	}
}

// racers: actor 0 creates f, sets the delete disposition and closes; actor
// 3's FILE_OPEN is sent during the delete and answered after actor 0's
// close was sent (a3Ret), actor 2's is sent once the delete is pending and
// answered inside actor 0's close; both are granted. Against Samba both
// can be the race (actor 3's handle may be on the unlinked file too), so
// actor 2's open is the known divergence when nothing shows the file
// pending after the close. then runs before the closes of actors 2 and 3.
func racers(a3Ret int64, then func(h *hist)) *hist {
	h := &hist{}
	h.openDisp(0, "f", fileCreate, 0, checks.OK, "", 0, 10)
	h.dispose(0, "f", "delete", 20, 30)
	h.openDisp(3, "f", fileOpen, 0, checks.OK, "", 25, a3Ret)
	h.openDisp(2, "f", fileOpen, 0, checks.OK, "", 35, 55)
	h.close(0, "f", 40, 50)
	then(h)
	h.close(2, "f", 61, 62)
	h.close(3, "f", 70, 71)
	h.openDisp(1, "f", fileOpen, 0, checks.Conflict, statusNotFound, 80, 85)
	return h
}

// TestDeletePendingSambaRaceWithARacerInFlightWithTheDelete: a handle in
// flight with the delete that the history does not show granted before it
// does not rule out Samba's race for another open; one that must have been
// granted before it (answered before the last close was sent) does, and
// so does an open that finds the file still pending after the close.
func TestDeletePendingSambaRaceWithARacerInFlightWithTheDelete(t *testing.T) {
	r := runDPOn("samba", racers(60, func(*hist) {}))
	if r.Verdict != checks.Pass || len(r.Known) != 1 || !slices.ContainsFunc(r.Known[0].Examples[0].Ops, func(o checks.Op) bool { return o.Actor == 2 && o.Kind == opOpen }) {
		t.Fatalf("samba: %s %s %+v known %+v", r.Verdict, r.Summary, r.Violations, r.Known)
	}
	if o := runDPOn("connection-string", racers(60, func(*hist) {})); o.Verdict != checks.Fail || len(o.Known) != 0 {
		t.Fatalf("another target: %s %s", o.Verdict, o.Summary)
	}
	for _, tc := range []struct {
		name string
		h    *hist
	}{
		{"actor 3 held the file", racers(38, func(*hist) {})},
		{"the file still pending after the close", racers(60, func(h *hist) {
			h.openDisp(1, "f", fileOpen, 0, checks.Conflict, statusDeletePending, 56, 58)
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runDPOn("samba", tc.h)
			if r.Verdict != checks.Fail || len(r.Known) != 0 || !strings.Contains(r.Violations[0].Message, "called after the file's delete became pending") {
				t.Fatalf("%s %s %+v known %+v", r.Verdict, r.Summary, r.Violations, r.Known)
			}
		})
	}
}
