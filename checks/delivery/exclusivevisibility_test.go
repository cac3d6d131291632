package delivery

import (
	"testing"

	"github.com/stormcheck/stormcheck/checks"
)

func TestExclusiveVisibility(t *testing.T) {
	const q1, q2 = "q1", "q2"
	m := func(r string, n int64) checks.Message { return qm("m1", r, n, "w0-1") }
	cases := []qcase{
		// Clean histories. Visibility 10 s sent at 0: certainly invisible
		// over [return, 8.5 s].
		{"redelivered after the window", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 5)
			h.Get(1, q1, 10, 10, 100, m("r1", 1))
			h.Get(2, q1, 10, 10000, 10100, m("r2", 2))
			h.del(2, q1, "m1", "r2", checks.OK, 10200, 10300)
			return qwant{verdict: checks.Pass, summary: "1 queue, 1 message, 2 deliveries, 2 invisibility windows, 1 redelivery: no delivery inside an invisibility window"}
		}},
		{"redelivered within the clock slack", func(h *qhist) qwant {
			h.Get(1, q1, 10, 0, 100, m("r1", 1))
			h.Get(2, q1, 10, 8400, 8600, m("r2", 2)) // returned after 8.5 s
			return qwant{verdict: checks.Pass}
		}},
		{"overlapping gets are not ordered", func(h *qhist) qwant {
			h.Get(1, q1, 10, 0, 2000, m("r1", 1))
			h.Get(2, q1, 10, 1000, 1500, m("r2", 2)) // sent before the first returned
			return qwant{verdict: checks.Pass}
		}},
		{"a window that closes the instant it opens still counts", func(h *qhist) qwant {
			h.Get(1, q1, 10, 0, 8500, m("r1", 1)) // certainly invisible over [8.5 s, 8.5 s]
			h.Get(2, q1, 10, 20000, 20100, m("r2", 2))
			return qwant{verdict: checks.Pass, summary: "2 deliveries, 2 invisibility windows, 1 redelivery"}
		}},
		{"an update with visibility 0 made it visible again", func(h *qhist) qwant {
			h.Get(1, q1, 30, 0, 100, m("r1", 1))
			h.update(1, q1, "m1", "r1", 0, "w0-1#p1", checks.OK, "r2", 1000, 1100)
			h.Get(2, q1, 30, 2000, 2100, m("r3", 2))
			return qwant{verdict: checks.Pass, summary: "no delivery inside an invisibility window (1 inside one explained by an update)"}
		}},
		{"an update answered after the opener was sent may have applied after it", func(h *qhist) qwant {
			h.Get(1, q1, 30, 1000, 1100, m("r1", 1))
			h.update(1, q1, "m1", "r0", 0, "w0-1#p1", checks.OK, "r2", 500, 1050) // with the put's receipt, overlapping the get
			h.Get(2, q1, 30, 2000, 2100, m("r3", 2))
			return qwant{verdict: checks.Pass, summary: "(1 inside one explained by an update)"}
		}},
		{"an update with an unknown outcome may have made it visible", func(h *qhist) qwant {
			h.Get(1, q1, 30, 0, 100, m("r1", 1))
			h.update(1, q1, "m1", "r1", 0, "w0-1#p1", checks.Unknown, "", 1000, 1500)
			h.Get(2, q1, 30, 2000, 2100, m("r3", 2))
			return qwant{verdict: checks.Pass}
		}},
		{"a get with an unknown outcome changes nothing", func(h *qhist) qwant {
			h.Get(1, q1, 10, 0, 100, m("r1", 1))
			h.failedGet(2, q1, 10, checks.Unknown, 200, 5000)
			h.Get(3, q1, 10, 9000, 9100, m("r3", 3))
			return qwant{verdict: checks.Pass}
		}},
		{"an unknown put with a visibility delay opens no window", func(h *qhist) qwant {
			p := h.Put(0, q1, "w0-1", checks.Unknown, "", "", 0, 2000)
			h.Op(p).In.Visibility = qVis(60)
			h.Get(1, q1, 10, 3000, 3100, m("r1", 1))
			return qwant{verdict: checks.Pass, summary: "1 invisibility window, 0 redeliveries"}
		}},
		{"a get without a visibility timeout opens no window", func(h *qhist) qwant {
			h.Get(1, q1, -1, 0, 100, m("r1", 1))
			h.Get(2, q1, 30, 1000, 1100, m("r2", 2))
			return qwant{verdict: checks.Pass, summary: "1 invisibility window, 1 redelivery (1 delivery or update without a visibility timeout)"}
		}},
		{"visibility 1 s leaves no certain window", func(h *qhist) qwant {
			h.Get(1, q1, 1, 0, 10, m("r1", 1))
			h.Get(2, q1, 1, 20, 30, m("r2", 2))
			h.Get(3, q1, 10, 40, 50, m("r3", 3))
			return qwant{verdict: checks.Pass, summary: "1 invisibility window"}
		}},

		// Violations.
		{"delivered again inside the window", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 5)
			a := h.Get(1, q1, 10, 10, 100, m("r1", 1))
			b := h.Get(2, q1, 10, 5000, 5100, qm("m0", "x", 1, "w9-9"), m("r2", 2))
			return qwant{verdict: checks.Fail, summary: "1 violation",
				vios: []qexp{qvio(q1, "message m1 was delivered again by #3 inside its invisibility window: delivered by #2 with visibility 10s", a, b)}}
		}},
		{"delivered again inside the window, on the second queue", func(h *qhist) qwant {
			h.Get(1, q1, 10, 0, 100, m("r1", 1))
			a := h.Get(1, q2, 10, 0, 100, m("r1", 1))
			h.Get(2, q1, 10, 20000, 20100, m("r2", 2))
			b := h.Get(2, q2, 10, 3000, 3100, m("r2", 2))
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q2, "delivered again", a, b)}}
		}},
		{"delivered again by a get sent the instant the window opened", func(h *qhist) qwant {
			a := h.Get(1, q1, 30, 0, 100, m("r1", 1))
			b := h.Get(2, q1, 30, 100, 200, m("r2", 2))
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "delivered again by #2", a, b)}}
		}},
		{"delivered again by a get answered the instant the window closed", func(h *qhist) qwant {
			a := h.Get(1, q1, 10, 0, 100, m("r1", 1)) // certainly invisible over [0.1 s, 8.5 s]
			b := h.Get(2, q1, 10, 8000, 8500, m("r2", 2))
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "delivered again by #2", a, b)}}
		}},
		{"an update sent the instant the redelivery returned does not excuse it", func(h *qhist) qwant {
			a := h.Get(1, q1, 30, 0, 100, m("r1", 1))
			b := h.Get(2, q1, 30, 2000, 2100, m("r2", 2))
			h.update(1, q1, "m1", "r1", 0, "w0-1#p1", checks.OK, "r3", 2100, 2200)
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "delivered again by #2", a, b)}}
		}},
		{"delivered again by a get sent and answered the instant the window closed", func(h *qhist) qwant {
			a := h.Get(1, q1, 10, 0, 100, m("r1", 1))
			b := h.Get(2, q1, 10, 8500, 8500, m("r2", 2))
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "delivered again by #2", a, b)}}
		}},
		{"an update answered the instant the opener was sent took effect before it", func(h *qhist) qwant {
			h.update(1, q1, "m1", "r0", 0, "w0-1#p1", checks.OK, "r1", 500, 1000)
			a := h.Get(1, q1, 30, 1000, 1100, m("r2", 1))
			b := h.Get(2, q1, 30, 2000, 2100, m("r3", 2))
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "delivered again by #3", a, b)}}
		}},
		{"delivered again inside the window by the drain", func(h *qhist) qwant {
			a := h.Get(1, q1, 30, 0, 100, m("r1", 1))
			b := h.Get(checks.ActorFinal, q1, 30, 10000, 10100, m("r2", 2))
			h.drained(q1, 10200)
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "delivered again by #2", a, b)}}
		}},
		{"a refused update does not make it visible", func(h *qhist) qwant {
			a := h.Get(1, q1, 30, 0, 100, m("r1", 1))
			h.update(1, q1, "m1", "stale", 0, "w0-1#p1", checks.Conflict, "", 1000, 1100)
			b := h.Get(2, q1, 30, 2000, 2100, m("r3", 2))
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "delivered by #1", a, b)}}
		}},
		{"an update that returned before the opener was sent excuses nothing", func(h *qhist) qwant {
			h.update(1, q1, "m1", "r0", 0, "w0-1#p1", checks.OK, "r1", 0, 50)
			a := h.Get(1, q1, 30, 100, 200, m("r2", 1))
			b := h.Get(2, q1, 30, 2000, 2100, m("r3", 2))
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "delivered by #2", a, b)}}
		}},
		{"an update's own window applies", func(h *qhist) qwant {
			h.Get(1, q1, 30, 0, 100, m("r1", 1))
			u := h.update(1, q1, "m1", "r1", 20, "w0-1#p1", checks.OK, "r2", 1000, 1100)
			b := h.Get(2, q1, 30, 5000, 5100, m("r3", 2))
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "updated by #2 with visibility 20s", u, b)}}
		}},
		{"a put's initial visibility delay", func(h *qhist) qwant {
			p := h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			h.Op(p).In.Visibility = qVis(60)
			b := h.Get(1, q1, 30, 1000, 1100, m("r1", 1))
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "put by #1 with visibility 60s", p, b)}}
		}},
		{"one report per delivery inside several windows", func(h *qhist) qwant {
			a := h.Get(1, q1, 30, 0, 100, m("r1", 1))
			h.Get(2, q1, 30, 200, 300, m("r2", 2))
			h.Get(3, q1, 30, 400, 500, m("r3", 3))
			return qwant{verdict: checks.Fail, total: 2, vios: []qexp{qvio(q1, "delivered again by #2", a), qvio(q1, "delivered again by #3")}}
		}},

		// Nothing to judge.
		{"empty history", func(h *qhist) qwant {
			return qwant{verdict: checks.Undecided, summary: "undecided, nothing to check"}
		}},
		{"no visibility timeouts at all", func(h *qhist) qwant {
			h.Get(1, q1, -1, 0, 100, m("r1", 1))
			h.Get(2, q1, -1, 200, 300, m("r2", 2))
			return qwant{verdict: checks.Undecided, summary: "undecided, nothing to check"}
		}},
	}
	runQueueCases(t, ExclusiveVisibilityName, cases)
}

// TestExclusiveVisibilityCounts: the pass summary names no excused
// deliveries when there are none, and every delivery is decided once a
// window exists (none when there is no window to check them against).
func TestExclusiveVisibilityCounts(t *testing.T) {
	m := func(r string, n int64) checks.Message { return qm("m1", r, n, "w0-1") }
	h := &qhist{}
	h.Get(1, "q1", 10, 10, 100, m("r1", 1))
	h.Get(2, "q1", 10, 10000, 10100, m("r2", 2))
	r := h.Check(t, ExclusiveVisibilityName)
	const sum = "1 queue, 1 message, 2 deliveries, 2 invisibility windows, 1 redelivery: no delivery inside an invisibility window"
	if r.Verdict != checks.Pass || r.Summary != sum || r.Decided != 2 || r.Judgeable != 2 {
		t.Errorf("%s %q, %d of %d decided; want pass %q, 2 of 2", r.Verdict, r.Summary, r.Decided, r.Judgeable, sum)
	}

	h = &qhist{}
	h.Get(1, "q1", -1, 10, 100, m("r1", 1))
	h.Get(2, "q1", -1, 10000, 10100, m("r2", 2))
	r = h.Check(t, ExclusiveVisibilityName)
	if r.Verdict != checks.Undecided || r.Decided != 0 || r.Judgeable != 2 {
		t.Errorf("no window: %s %q, %d of %d decided; want undecided, 0 of 2", r.Verdict, r.Summary, r.Decided, r.Judgeable)
	}
}
