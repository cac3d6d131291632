package delivery

import (
	"testing"

	"github.com/stormcheck/stormcheck/checks"
)

func TestPopReceipt(t *testing.T) {
	const q1, q2 = "q1", "q2"
	m := func(r string, n int64) checks.Message { return qm("m1", r, n, "w0-1") }
	cases := []qcase{
		// Clean histories.
		{"a chain: put, get, two updates, delete", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			h.Get(1, q1, 30, 20, 30, m("r1", 1))
			h.update(1, q1, "m1", "r1", 30, "w0-1#p1", checks.OK, "r2", 40, 50)
			h.update(1, q1, "m1", "r2", 30, "w0-1#p2", checks.OK, "r3", 60, 70)
			h.del(1, q1, "m1", "r3", checks.OK, 80, 90)
			return qwant{verdict: checks.Pass, summary: "1 queue, 1 message, 4 receipts, 2 updates and 1 delete accepted: no superseded receipt accepted, no deleted message reappeared, dequeue counts rose"}
		}},
		{"a stale receipt refused after a redelivery", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			h.Get(1, q1, 5, 20, 30, m("r1", 1))
			h.Get(2, q1, 5, 6000, 6010, m("r2", 2))
			h.update(1, q1, "m1", "r1", 5, "w0-1#p1", checks.Conflict, "", 6100, 6110)
			h.del(1, q1, "m1", "r1", checks.Conflict, 6200, 6210)
			h.del(2, q1, "m1", "r2", checks.OK, 6300, 6310)
			return qwant{verdict: checks.Pass, summary: "0 updates and 1 delete accepted"}
		}},
		{"deleted with the put's receipt", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			h.del(0, q1, "m1", "r0", checks.OK, 20, 30)
			return qwant{verdict: checks.Pass}
		}},
		{"an issuer concurrent with the receipt's issuer does not certainly supersede it", func(h *qhist) qwant {
			h.Get(1, q1, 30, 0, 1000, m("r1", 1))
			h.Get(2, q1, 30, 500, 2000, m("r2", 1)) // sent before #1 returned
			h.del(1, q1, "m1", "r1", checks.OK, 3000, 3100)
			return qwant{verdict: checks.Pass}
		}},
		{"an issuer that returned after the use was sent does not supersede it", func(h *qhist) qwant {
			h.Get(1, q1, 5, 0, 100, m("r1", 1))
			h.Get(2, q1, 5, 6000, 7000, m("r2", 2))
			h.del(1, q1, "m1", "r1", checks.OK, 6500, 6600) // sent before #2 returned
			return qwant{verdict: checks.Pass}
		}},
		{"an unknown get raised the dequeue count unseen", func(h *qhist) qwant {
			h.Get(1, q1, 5, 0, 100, m("r1", 1))
			h.failedGet(2, q1, 5, checks.Unknown, 6000, 11000)
			h.Get(3, q1, 5, 20000, 20100, m("r3", 3))
			h.del(3, q1, "m1", "r3", checks.OK, 20200, 20300)
			return qwant{verdict: checks.Pass}
		}},
		{"an unknown update, its retry refused", func(h *qhist) qwant {
			h.Get(1, q1, 30, 0, 100, m("r1", 1))
			h.update(1, q1, "m1", "r1", 30, "w0-1#p1", checks.Unknown, "", 200, 5000)
			s := h.update(1, q1, "m1", "r1", 30, "w0-1#p1", checks.Conflict, "", 5100, 5200)
			h.Op(s).Attempt = 2
			h.Op(s).Out.Status, h.Op(s).Out.ErrorCode = 400, "PopReceiptMismatch"
			h.Get(2, q1, 30, 40000, 40100, qm("m1", "r3", 2, "w0-1#p1"))
			return qwant{verdict: checks.Pass}
		}},
		{"an unknown delete, the message delivered again", func(h *qhist) qwant {
			h.Get(1, q1, 5, 0, 100, m("r1", 1))
			h.del(1, q1, "m1", "r1", checks.Unknown, 200, 5000)
			h.Get(2, q1, 5, 10000, 10100, m("r2", 2))
			return qwant{verdict: checks.Pass}
		}},
		{"a receipt no recorded call returned", func(h *qhist) qwant {
			h.Get(1, q1, 30, 0, 100, m("r1", 1))
			h.del(1, q1, "m1", "r-from-nowhere", checks.OK, 200, 300)
			return qwant{verdict: checks.Pass, summary: "(1 with a receipt no recorded call returned)"}
		}},
		{"deliveries without a dequeue count are skipped", func(h *qhist) qwant {
			h.Get(1, q1, 5, 0, 100, m("r1", 0))
			h.Get(2, q1, 5, 6000, 6100, m("r2", 0))
			return qwant{verdict: checks.Pass, summary: "2 deliveries without a dequeue count"}
		}},

		{"an issuer that returned the instant the use was sent does not supersede it", func(h *qhist) qwant {
			h.Get(1, q1, 5, 0, 100, m("r1", 1))
			h.Get(2, q1, 5, 6000, 7000, m("r2", 2))
			h.del(1, q1, "m1", "r1", checks.OK, 7000, 7100)
			return qwant{verdict: checks.Pass}
		}},
		{"a receipt issued again later is judged from its latest issuer", func(h *qhist) qwant {
			h.Get(1, q1, 5, 0, 100, m("r1", 1))
			h.Get(2, q1, 5, 6000, 6100, m("r2", 2))
			h.Get(3, q1, 5, 12000, 12100, m("r1", 3)) // r1 again, after r2
			h.del(3, q1, "m1", "r1", checks.OK, 13000, 13100)
			return qwant{verdict: checks.Pass}
		}},
		{"calls sent the instant another returned are concurrent with it", func(h *qhist) qwant {
			h.Get(1, q1, 5, 0, 100, m("r1", 1))
			h.Get(2, q1, 5, 100, 200, m("r2", 1)) // not after #1: no newer receipt, no count to beat
			h.del(1, q1, "m1", "r1", checks.OK, 300, 400)
			h.Get(3, q1, 5, 400, 500, m("r3", 3)) // sent the instant the delete returned
			return qwant{verdict: checks.Pass}
		}},
		// Violations.
		{"a delete with a superseded receipt accepted", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			a := h.Get(1, q1, 5, 20, 30, m("r1", 1))
			b := h.Get(2, q1, 5, 6000, 6010, m("r2", 2))
			d := h.del(1, q1, "m1", "r1", checks.OK, 6100, 6110)
			return qwant{verdict: checks.Fail, summary: "1 violation",
				vios: []qexp{qvio(q1, "stale pop receipt accepted: the delete #4 of message m1 was answered OK with the receipt issued by #2, although #3 had issued a newer one", a, b, d)}}
		}},
		{"an update with the receipt an earlier update used", func(h *qhist) qwant {
			a := h.Get(1, q1, 30, 0, 10, m("r1", 1))
			b := h.update(1, q1, "m1", "r1", 30, "w0-1#p1", checks.OK, "r2", 20, 30)
			c := h.update(1, q1, "m1", "r1", 30, "w0-1#p2", checks.OK, "r3", 40, 50)
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "the update #3 of message m1 was answered OK with the receipt issued by #1, although #2 had issued a newer one", a, b, c)}}
		}},
		{"the put's receipt used after a delivery", func(h *qhist) qwant {
			p := h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			g := h.Get(1, q1, 30, 20, 30, m("r1", 1))
			d := h.del(0, q1, "m1", "r0", checks.OK, 40, 50)
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "stale pop receipt accepted", p, g, d)}}
		}},
		{"a stale receipt on the second queue", func(h *qhist) qwant {
			h.Get(1, q1, 30, 0, 10, m("r1", 1))
			a := h.Get(1, q2, 30, 0, 10, m("r1", 1))
			h.update(1, q1, "m1", "r1", 30, "w0-1#p1", checks.OK, "r2", 20, 30)
			b := h.update(1, q2, "m1", "r1", 30, "w0-1#p1", checks.OK, "r2", 20, 30)
			h.del(1, q1, "m1", "r2", checks.OK, 40, 50)
			c := h.del(1, q2, "m1", "r1", checks.OK, 40, 50)
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q2, "the delete #6 of message m1", a, b, c)}}
		}},
		{"a deleted message delivered again", func(h *qhist) qwant {
			h.Get(1, q1, 5, 0, 100, m("r1", 1))
			d := h.del(1, q1, "m1", "r1", checks.OK, 200, 300)
			g := h.Get(2, q1, 5, 40000, 40100, m("r2", 2))
			h.Get(3, q1, 5, 50000, 50100, m("r3", 3))
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "deleted message reappeared: m1 was deleted by #2, then delivered by #3, sent after the delete returned (2 calls on it after its delete)", d, g)}}
		}},
		{"a deleted message updated", func(h *qhist) qwant {
			h.Get(1, q1, 30, 0, 100, m("r1", 1))
			d := h.del(1, q1, "m1", "r1", checks.OK, 200, 300)
			u := h.update(1, q1, "m1", "r1", 30, "w0-1#p1", checks.OK, "r2", 400, 500)
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "then updated (OK) by #3", d, u)}}
		}},
		{"a deleted message deleted again", func(h *qhist) qwant {
			h.Get(1, q1, 30, 0, 100, m("r1", 1))
			d := h.del(1, q1, "m1", "r1", checks.OK, 200, 300)
			e := h.del(2, q1, "m1", "r1", checks.OK, 400, 500)
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "then deleted again (OK) by #3", d, e)}}
		}},
		{"the dequeue count went down", func(h *qhist) qwant {
			a := h.Get(1, q1, 5, 0, 100, m("r1", 2))
			b := h.Get(2, q1, 5, 6000, 6100, m("r2", 1))
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "dequeue count did not rise: #2 returned message m1 with dequeue count 1, sent after #1 had returned it with 2", a, b)}}
		}},
		{"the dequeue count stayed", func(h *qhist) qwant {
			a := h.Get(1, q1, 5, 0, 100, m("r1", 1))
			b := h.Get(2, q1, 5, 6000, 6100, m("r2", 1))
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "dequeue count did not rise", a, b)}}
		}},
		{"the dequeue count lower than the gets before it", func(h *qhist) qwant {
			a := h.Get(1, q1, 5, 0, 1000, m("r1", 1))
			b := h.Get(2, q1, 5, 500, 800, m("r2", 1)) // concurrent: both 1 is not judged here
			c := h.Get(3, q1, 5, 9000, 9100, m("r3", 2))
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "dequeue count too low: #3 returned message m1 with dequeue count 2, but 2 other gets had returned it before it was sent", a, b, c)}}
		}},

		// Nothing to judge.
		{"of two issuers of one receipt returning at once, the first recorded is named", func(h *qhist) qwant {
			a := h.Get(1, q1, 5, 0, 100, m("r1", 1))
			h.Get(2, q1, 5, 50, 100, m("r1", 1))
			b := h.Get(3, q1, 5, 6000, 6100, m("r2", 3))
			d := h.del(1, q1, "m1", "r1", checks.OK, 7000, 7100)
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "with the receipt issued by #1, although #3 had issued a newer one", a, b, d)}}
		}},
		{"of two deletes returning at once, the first recorded is named", func(h *qhist) qwant {
			h.Get(1, q1, 5, 0, 100, m("r1", 1))
			d := h.del(1, q1, "m1", "r1", checks.OK, 150, 200)
			h.del(2, q1, "m1", "r1", checks.OK, 160, 200)
			g := h.Get(3, q1, 5, 1000, 1100, m("r3", 2))
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "m1 was deleted by #2, then delivered by #4", d, g)}}
		}},
		{"of two calls sent at once after the delete, the first recorded is named", func(h *qhist) qwant {
			h.Get(1, q1, 5, 0, 100, m("r1", 1))
			d := h.del(1, q1, "m1", "r1", checks.OK, 150, 200)
			g := h.Get(2, q1, 5, 1000, 1100, m("r2", 2))
			h.Get(3, q1, 5, 1000, 1050, m("r3", 2))
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "m1 was deleted by #2, then delivered by #3, sent after the delete returned (2 calls on it after its delete)", d, g)}}
		}},
		{"of two earlier gets with the same dequeue count, the first to return is named", func(h *qhist) qwant {
			a := h.Get(1, q1, 5, 0, 100, m("r1", 1))
			h.Get(2, q1, 5, 50, 150, m("r2", 1))
			g := h.Get(3, q1, 5, 1000, 1100, m("r3", 1))
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "dequeue count did not rise: #3 returned message m1 with dequeue count 1, sent after #1 had returned it with 1", a, g)}}
		}},
		{"a too-low dequeue count shows every get that returned before it", func(h *qhist) qwant {
			a := h.Get(1, q1, 5, 0, 100, m("r1", 1))
			b := h.Get(2, q1, 5, 50, 150, m("r2", 2)) // the highest count, not the first to return
			c := h.Get(3, q1, 5, 60, 170, m("r3", 1))
			d := h.Get(4, q1, 5, 1000, 1100, m("r4", 3))
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "dequeue count too low: #4 returned message m1 with dequeue count 3, but 3 other gets had returned it before it was sent", a, b, c, d)}}
		}},
		{"empty history", func(h *qhist) qwant {
			return qwant{verdict: checks.Undecided, summary: "undecided, nothing to check"}
		}},
		{"only unknown and refused calls", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.Unknown, "", "", 0, 5000)
			h.failedGet(1, q1, 30, checks.Throttled, 10, 20)
			h.del(1, q1, "m1", "r1", checks.Conflict, 30, 40)
			return qwant{verdict: checks.Undecided, summary: "undecided, nothing to check"}
		}},
	}
	runQueueCases(t, PopReceiptName, cases)
}

// TestPopReceiptDecided: every receipt issued and every update and delete
// accepted is decided.
func TestPopReceiptDecided(t *testing.T) {
	h := &qhist{}
	m := func(r string, n int64) checks.Message { return qm("m1", r, n, "w0-1") }
	h.Put(0, "q1", "w0-1", checks.OK, "m1", "r0", 0, 10)
	h.Get(1, "q1", 30, 20, 30, m("r1", 1))
	h.update(1, "q1", "m1", "r1", 30, "w0-1#p1", checks.OK, "r2", 40, 50)
	h.update(1, "q1", "m1", "r2", 30, "w0-1#p2", checks.OK, "r3", 60, 70)
	h.del(1, "q1", "m1", "r3", checks.OK, 80, 90)
	r := h.Check(t, PopReceiptName)
	if r.Verdict != checks.Pass || r.Decided != 7 || r.Judgeable != 7 {
		t.Errorf("%s, %d of %d decided, want pass, 7 of 7 (4 receipts, 2 updates, 1 delete): %s", r.Verdict, r.Decided, r.Judgeable, r.Summary)
	}
}
