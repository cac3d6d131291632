package delivery

import (
	"testing"

	"github.com/stormcheck/stormcheck/checks"
)

func TestAtLeastOnce(t *testing.T) {
	const q1, q2 = "q1", "q2"
	cases := []qcase{
		// Clean histories.
		{"every put delivered and deleted, the drain ends empty", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			h.Put(0, q1, "w0-2", checks.OK, "m2", "r0b", 20, 30)
			h.Get(1, q1, 30, 40, 50, qm("m1", "r1", 1, "w0-1"))
			h.del(1, q1, "m1", "r1", checks.OK, 60, 70)
			h.Get(2, q1, 30, 45, 55, qm("m2", "r2", 1, "w0-2"))
			h.del(2, q1, "m2", "r2", checks.OK, 60, 70)
			h.drained(q1, 1000)
			return qwant{verdict: checks.Pass, summary: "1 queue, 2 acknowledged puts, 0 unknown, 2 deliveries: every acknowledged message delivered"}
		}},
		{"redelivered after a consumer crashed", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			h.Get(1, q1, 5, 20, 30, qm("m1", "r1", 1, "w0-1")) // actor 1 crashes holding it
			h.Get(2, q1, 5, 6000, 6010, qm("m1", "r2", 2, "w0-1"))
			h.del(2, q1, "m1", "r2", checks.OK, 6020, 6030)
			h.drained(q1, 60000)
			return qwant{verdict: checks.Pass, summary: "2 deliveries (1 message delivered more than once, 1 extra): every acknowledged message delivered"}
		}},
		{"delivered only by the drain", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			h.Get(checks.ActorFinal, q1, 30, 1000, 1010, qm("m1", "r1", 1, "w0-1"))
			h.del(checks.ActorFinal, q1, "m1", "r1", checks.OK, 1020, 1030)
			h.drained(q1, 1040)
			return qwant{verdict: checks.Pass, summary: "every acknowledged message delivered"}
		}},
		{"delivered before the put's answer was recorded", func(h *qhist) qwant {
			h.Get(1, q1, 30, 20, 30, qm("m1", "r1", 1, "w0-1"))
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 40)
			h.drained(q1, 1000)
			return qwant{verdict: checks.Pass, summary: "every acknowledged message delivered"}
		}},
		{"an updated message keeps its original text", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.Unknown, "", "", 0, 5000)
			h.Get(1, q1, 30, 100, 110, qm("m9", "r1", 1, "w0-1"))
			h.update(1, q1, "m9", "r1", 30, "w0-1#p1", checks.OK, "r2", 120, 130)
			h.Get(2, q1, 30, 40000, 40010, qm("m9", "r3", 2, "w0-1#p1"))
			h.drained(q1, 100000)
			return qwant{verdict: checks.Pass, summary: "unknown puts: 1 delivered, 0 maybe-enqueued, not found"}
		}},
		{"an acknowledged put with no recorded id is found by its text", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "", "", 0, 10)
			h.Get(1, q1, 30, 20, 30, qm("m1", "r1", 1, "w0-1#p3"))
			h.drained(q1, 1000)
			return qwant{verdict: checks.Pass, summary: "every acknowledged message delivered"}
		}},
		{"a throttled put retried and acknowledged", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.Throttled, "", "", 0, 10)
			s := h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 20, 30)
			h.Op(s).Attempt = 2
			h.Get(1, q1, 30, 40, 50, qm("m1", "r1", 1, "w0-1"))
			h.drained(q1, 1000)
			return qwant{verdict: checks.Pass, summary: "1 acknowledged put, 0 unknown"}
		}},
		{"an acknowledged message deleted with the put's receipt", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			h.del(0, q1, "m1", "r0", checks.OK, 20, 30)
			h.drained(q1, 1000)
			return qwant{verdict: checks.Pass, summary: "1 message removed by a delete before any delivery"}
		}},
		{"two queues, both drained", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			h.Put(0, q2, "w0-2", checks.OK, "m2", "r0", 0, 10)
			h.Get(1, q2, 30, 20, 30, qm("m2", "r1", 1, "w0-2"))
			h.Get(1, q1, 30, 20, 30, qm("m1", "r1", 1, "w0-1"))
			h.drained(q1, 1000)
			h.drained(q2, 1000)
			return qwant{verdict: checks.Pass, summary: "2 queues, 2 acknowledged puts"}
		}},
		{"queue operations only: other kinds are ignored", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			h.Add(checks.Op{Kind: checks.KindQueuePeek, Key: q1, Out: checks.Output{Messages: []checks.Message{qm("zz", "", 0, "nobody")}}}, 11, 12)
			h.Add(checks.Op{Kind: checks.KindBlobGet, Key: q1, Out: checks.Output{Value: "x"}}, 11, 12)
			h.Get(1, q1, 30, 20, 30, qm("m1", "r1", 1, "w0-1"))
			h.drained(q1, 1000)
			return qwant{verdict: checks.Pass}
		}},

		// Unknown outcomes: quiet.
		{"an unknown put never delivered", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.Unknown, "", "", 0, 5000)
			h.Put(0, q1, "w0-2", checks.OK, "m2", "r0", 6000, 6010)
			h.Get(1, q1, 30, 7000, 7010, qm("m2", "r1", 1, "w0-2"))
			h.drained(q1, 100000)
			return qwant{verdict: checks.Pass, summary: "unknown puts: 0 delivered, 1 maybe-enqueued, not found"}
		}},
		{"a 500 put never delivered counts as unknown", func(h *qhist) qwant {
			s := h.Put(0, q1, "w0-1", checks.Throttled, "", "", 0, 5000)
			h.Op(s).Out = checks.Output{Status: 500, ErrorCode: "OperationTimedOut"}
			h.drained(q1, 100000)
			return qwant{verdict: checks.Pass, summary: "1 maybe-enqueued, not found"}
		}},
		{"an unknown put retried: both attempts enqueued, both delivered", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.Unknown, "", "", 0, 5000)
			s := h.Put(0, q1, "w0-1", checks.OK, "m2", "r0", 5010, 5020)
			h.Op(s).Attempt = 2
			h.Get(1, q1, 30, 6000, 6010, qm("m1", "r1", 1, "w0-1"), qm("m2", "r2", 1, "w0-1"))
			h.drained(q1, 100000)
			return qwant{verdict: checks.Pass, summary: "1 acknowledged put, 0 unknown, 2 deliveries"}
		}},
		{"an unknown get may hold the message at the final empty get", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			h.failedGet(1, q1, 30, checks.Unknown, 20, 5000)
			h.drained(q1, 60000) // before 5 s + 30 s horizon + 30 s * 1.05 + 1 s
			return qwant{verdict: checks.Undecided, summary: "undecided, 1 acknowledged message never delivered but possibly still invisible at the final empty get"}
		}},
		{"an unknown drain get may hold the message at the final empty get", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			h.failedGet(checks.ActorFinal, q1, 30, checks.Unknown, 1000, 6000)
			h.drained(q1, 6010)
			return qwant{verdict: checks.Undecided, summary: "possibly still invisible"}
		}},
		{"an unknown update may have hidden the message", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			h.update(0, q1, "m1", "r0", 120, "w0-1#p1", checks.Unknown, "", 20, 5000)
			h.drained(q1, 100000) // before 5 s + 30 s + 126 s + 1 s
			return qwant{verdict: checks.Undecided, summary: "possibly still invisible"}
		}},
		{"a put's initial visibility delay outlasts the drain", func(h *qhist) qwant {
			s := h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			h.Op(s).In.Visibility = qVis(600)
			h.drained(q1, 60000)
			return qwant{verdict: checks.Undecided, summary: "possibly still invisible"}
		}},
		{"an unknown delete may have removed it", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			h.del(0, q1, "m1", "r0", checks.Unknown, 20, 5000)
			h.drained(q1, 100000)
			return qwant{verdict: checks.Pass, summary: "1 message removed by a delete"}
		}},

		// Violations.
		{"lost: an acknowledged message never delivered", func(h *qhist) qwant {
			p := h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			h.Put(0, q1, "w0-2", checks.OK, "m2", "r0b", 20, 30)
			h.Get(1, q1, 30, 40, 50, qm("m2", "r1", 1, "w0-2"))
			f := h.drained(q1, 1000)
			return qwant{verdict: checks.Fail, summary: "1 violation (1 lost, 0 unexpected)",
				vios: []qexp{qvio(q1, "lost message: m1 was acknowledged by #1 but never delivered", p, f)}}
		}},
		{"lost on the second queue only", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			p := h.Put(0, q2, "w0-2", checks.OK, "m2", "r0", 0, 10)
			h.Get(1, q1, 30, 20, 30, qm("m1", "r1", 1, "w0-1"))
			h.drained(q1, 1000)
			f := h.drained(q2, 1000)
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q2, "lost message: m2", p, f)}}
		}},
		{"lost long after an unknown get", func(h *qhist) qwant {
			p := h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			h.failedGet(1, q1, 30, checks.Unknown, 20, 5000)
			f := h.drained(q1, 68000) // after 5 s + 30 s + 31.5 s + 1 s
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "lost message", p, f)}}
		}},
		{"lost: its retry's twin was delivered, not the acknowledged message", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.Unknown, "", "", 0, 5000)
			p := h.Put(0, q1, "w0-1", checks.OK, "m2", "r0", 5010, 5020)
			h.Op(p).Attempt = 2
			h.Get(1, q1, 30, 6000, 6010, qm("m1", "r1", 1, "w0-1"))
			f := h.drained(q1, 100000)
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "lost message: m2", p, f)}}
		}},
		{"unexpected: a message no put sent", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			g := h.Get(1, q1, 30, 20, 30, qm("m1", "r1", 1, "w0-1"), qm("zz", "r9", 1, "ghost#p1"))
			h.drained(q1, 1000)
			return qwant{verdict: checks.Fail, summary: "(0 lost, 1 unexpected)",
				vios: []qexp{qvio(q1, `unexpected message: zz (text "ghost") was delivered`, g)}}
		}},
		{"a refused put was delivered", func(h *qhist) qwant {
			p := h.Put(0, q1, "w0-1", checks.Throttled, "", "", 0, 10)
			g := h.Get(1, q1, 30, 20, 30, qm("m1", "r1", 1, "w0-1"))
			h.drained(q1, 1000)
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "a refused put was delivered: m1", p, g)}}
		}},
		{"unexpected message without a drain is still reported", func(h *qhist) qwant {
			g := h.Get(1, q1, 30, 20, 30, qm("zz", "r9", 1, "ghost"))
			return qwant{verdict: checks.Fail, vios: []qexp{qvio(q1, "unexpected message: zz", g)}}
		}},

		// Incomplete drain: undecided, never a lost message.
		{"no final drain", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			return qwant{verdict: checks.Undecided, summary: "undecided, the final drain did not end with an empty get on 1 queue (q1; 1 acknowledged message not delivered yet)"}
		}},
		{"the last drain get still returned messages", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			h.Put(0, q1, "w0-2", checks.OK, "m2", "r0", 0, 10)
			h.drained(q1, 500)
			h.Get(checks.ActorFinal, q1, 30, 1000, 1010, qm("m1", "r1", 1, "w0-1"))
			return qwant{verdict: checks.Undecided, summary: "did not end with an empty get on 1 queue"}
		}},
		{"the last drain get timed out", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			h.drained(q1, 500)
			h.failedGet(checks.ActorFinal, q1, 30, checks.Unknown, 1000, 6000)
			return qwant{verdict: checks.Undecided, summary: "did not end with an empty get"}
		}},
		{"drained one queue of two", func(h *qhist) qwant {
			h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			h.Put(0, q2, "w0-2", checks.OK, "m2", "r0", 0, 10)
			h.Get(1, q1, 30, 20, 30, qm("m1", "r1", 1, "w0-1"))
			h.drained(q1, 1000)
			return qwant{verdict: checks.Undecided, summary: "on 1 queue (q2; 1 acknowledged message not delivered yet)"}
		}},
		{"lost on a drained queue, another undrained", func(h *qhist) qwant {
			p := h.Put(0, q1, "w0-1", checks.OK, "m1", "r0", 0, 10)
			h.Put(0, q2, "w0-2", checks.OK, "m2", "r0", 0, 10)
			f := h.drained(q1, 1000)
			return qwant{verdict: checks.Fail, summary: "1 violation (1 lost, 0 unexpected); also undecided: the final drain did not end with an empty get on 1 queue (q2",
				vios: []qexp{qvio(q1, "lost message: m1", p, f)}}
		}},
		{"empty history", func(h *qhist) qwant {
			return qwant{verdict: checks.Undecided, summary: "no queue operations in the history: undecided, nothing to check"}
		}},
	}
	runQueueCases(t, AtLeastOnceName, cases)
}
