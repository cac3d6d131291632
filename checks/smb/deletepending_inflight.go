package smb

import (
	"fmt"
	"sort"

	"github.com/stormcheck/stormcheck/checks"
)

// inFlightHolders calls fn with each handle whose open was in flight with
// the delete of p (sent before the delete was answered, answered after it
// was sent) and that the history shows must have been granted before the
// delete took effect, so it holds the delete-pending file from its answer
// until it closes. (Handles granted before the delete was sent are claim
// (1)'s own holders.)
//
// Under MS-FSA a handle granted before the delete became pending holds the
// file, and an open processed after it gets STATUS_DELETE_PENDING until
// the disposition is cleared (the windows stop at the first clear sent
// once the delete was) or the file is removed at its last close. So a
// granted open in flight with the delete was granted before it unless the
// name then referred to another file or none, which the history rules out
// when, in either of these cases:
//
//   - (held) a certain handle granted by the earlier of the open's call
//     and the delete's call was known open until the open was answered:
//     that handle holds the file the delete is of (both were open when the
//     delete was sent), nothing could unlink it while it was open, so the
//     open was granted on that file and not after the delete;
//   - (not created) on a target other than Samba, nothing that could have
//     created the file again was sent before the open was answered and
//     answered after the delete was sent: had the file been removed before
//     the open, the open would have been refused not found.
//
// Against Samba only (held) counts: Samba's race grants an open landing
// inside the last close of a delete-pending file a handle on the unlinked
// file, which (not created) cannot tell from a holder; (held) rules out a
// last close while the open was in flight. A delete asked for on a handle
// that may itself be on an unlinked file (uncertain) has no holders here.
//
// Every other granted open in flight with the delete stays what it was: a
// possible holder of the file (claim (3) and Samba's race shape wait for
// its close), never a certain one.
func (f *dpFile) inFlightHolders(p pending, samba bool, fn func(h *dpHandle)) {
	if p.by.uncertain {
		return
	}
	// byReturn holds the certain handles; an answered open lasts at most
	// longestOpen, so those sent before p.from were answered before
	// p.from+longestOpen.
	i := sort.Search(len(f.byReturn), func(i int) bool { return f.byReturn[i].open.Return > p.sent })
	for ; i < len(f.byReturn) && f.byReturn[i].open.Return-f.longestOpen < p.from; i++ {
		h := f.byReturn[i]
		if h.open.Call >= p.from {
			continue // sent once the delete was pending: claims (1) and (1b) judge it
		}
		held := f.heldThroughOpen(p, h)
		notCreated := !samba && f.mayCreateAfter(p.sent) >= h.open.Return
		if held || notCreated {
			fn(h)
		}
	}
}

// judgeInFlightHolders is claim (1) for the holders inFlightHolders finds:
// from the later of the delete's and the holder's answer until the holder
// is last known open (or the first clear sent), every open gets
// STATUS_DELETE_PENDING. It returns how many windows it judged.
func (f *dpFile) judgeInFlightHolders(k string, p pending, samba bool, flag func(string, checks.Op, string, checks.Op)) int {
	judged := 0
	f.inFlightHolders(p, samba, func(h *dpHandle) {
		from, to := max(p.from, h.open.Return), min(h.end, p.clear)
		if to <= from {
			return
		}
		judged++
		why := fmt.Sprintf("(%s answered at %s; the holder's open, sent at %s and answered at %s, was in flight with it and must have been granted before it)", p.op.Kind, ms(p.from), ms(h.open.Call), ms(h.open.Return))
		f.opensIn(from, to, func(o checks.Op) {
			switch {
			case o.Outcome == checks.OK:
				flag(k, o, "an open was granted while the file's delete was pending and a handle open "+why, p.op)
			case o.Out.ErrorCode == statusNotFound:
				flag(k, o, "an open got STATUS_OBJECT_NAME_NOT_FOUND while the file's delete was pending and a handle still open (want STATUS_DELETE_PENDING) "+why, p.op)
			}
		})
	})
	return judged
}

// heldThroughOpen reports whether a certain handle granted by the earlier
// of h's open's call and p's delete's call was known open until h's open
// was answered ((held) of inFlightHolders).
func (f *dpFile) heldThroughOpen(p pending, h *dpHandle) bool {
	return f.openUntil(min(h.open.Call, p.sent)) >= h.open.Return
}

// mustHold reports whether h certainly held the file when p's delete
// became pending: granted before the delete was sent, or granted while a
// certain handle held the file throughout its open.
func (f *dpFile) mustHold(p pending, h *dpHandle) bool {
	return h.open.Outcome == checks.OK && !h.uncertain && (h.open.Return <= p.sent || f.heldThroughOpen(p, h))
}
