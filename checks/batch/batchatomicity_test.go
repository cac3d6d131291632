package batch

import (
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

func TestBatchAtomicity(t *testing.T) {
	const p, q = "p1", "p2"
	cases := []struct {
		name  string
		build func(h *checkstest.Hist) checkstest.Want
	}{
		// Clean histories.
		{"setup, overlapping committed batches, pages and a final read", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b", "c")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.OK, 100, 110)
			h.TbBatch(1, p, "b2", checkstest.TbRows("b", "c"), checks.OK, 105, 120)
			h.TbPage(2, p, 130, 140, "a=b1", "b=b2", "c=b2")
			h.TbFinal(p, "a=b1", "b=b2", "c=b2")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 partition, 2 batches (2 committed, 0 unknown, 0 refused), 2 reads: every batch all or nothing"}
		}},
		{"overlapping batches applied in the other order", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b", "c")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.OK, 100, 130)
			h.TbBatch(1, p, "b2", checkstest.TbRows("b", "c"), checks.OK, 105, 120)
			h.TbFinal(p, "a=b1", "b=b1", "c=b2")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"final read in two pages, together one state", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b", "c", "d")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a", "d"), checks.OK, 100, 110)
			h.TbPage(checks.ActorFinal, p, 10_000, 10_010, "a=b1", "b=setup-p1")
			h.TbPage(checks.ActorFinal, p, 10_020, 10_030, "c=setup-p1", "d=b1")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"a refused batch built to fail is read nowhere", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			h.TbFailing(0, p, "b1", checkstest.TbRows("a", "b"), "b", 100, 110)
			h.TbBatch(1, p, "b2", checkstest.TbRows("a"), checks.Throttled, 100, 110)
			h.TbPage(2, p, 120, 130, "a=setup-p1", "b=setup-p1")
			h.TbFinal(p, "a=setup-p1", "b=setup-p1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "2 batches (0 committed, 0 unknown, 2 refused)"}
		}},
		{"two partitions judged apart, the same row names in both", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			h.TbSetup(q, "a", "b")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.OK, 100, 110)
			h.TbBatch(1, q, "b2", checkstest.TbRows("a"), checks.OK, 100, 110)
			h.TbFinal(p, "a=b1", "b=b1")
			h.TbFinal(q, "a=b2", "b=setup-p2")
			return checkstest.Want{Verdict: checks.Pass, Summary: "2 partitions"}
		}},
		{"a point read of a committed stamp", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.OK, 100, 110)
			h.Add(checks.Op{Actor: 1, Kind: checks.KindTableGet, Key: p, Call: 120, Return: 130, Out: checks.Output{Status: 200, Props: map[string]string{"stamp": "b1"}}})
			h.TbFinal(p, "a=b1", "b=b1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "2 reads"}
		}},

		// Unknown outcomes: quiet.
		{"an unknown batch visible nowhere", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.Unknown, 100, 110)
			h.TbPage(1, p, 200, 210, "a=setup-p1", "b=setup-p1")
			h.TbFinal(p, "a=setup-p1", "b=setup-p1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 batch (0 committed, 1 unknown, 0 refused)"}
		}},
		{"an unknown batch fully visible", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b", "c")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.Unknown, 100, 110)
			h.TbPage(1, p, 200, 210, "a=b1", "b=b1", "c=setup-p1")
			h.TbFinal(p, "a=b1", "b=b1", "c=setup-p1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "(1 batch of unknown outcome seen applied)"}
		}},
		{"an unknown batch applied after it timed out, over a later batch", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b", "c")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.Unknown, 100, 130)
			h.TbBatch(1, p, "b0", checkstest.TbRows("a", "c"), checks.OK, 200, 210) // returned after b1 gave up; b1 landed later still
			h.TbFinal(p, "a=b1", "b=b1", "c=b0")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"an unknown batch retried: the first attempt may land after the acknowledged retry", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.Unknown, 100, 110)
			s := h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.OK, 120, 130)
			h.Op(s).Attempt = 2
			h.TbBatch(1, p, "b2", checkstest.TbRows("a"), checks.OK, 140, 150)
			h.TbFinal(p, "a=b1", "b=b1")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"an unknown batch read mid-run, later overwritten on every row", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.Unknown, 100, 110)
			h.TbPage(1, p, 120, 130, "a=b1", "b=b1")
			h.TbBatch(1, p, "b2", checkstest.TbRows("a"), checks.OK, 140, 150)
			h.TbBatch(2, p, "b3", checkstest.TbRows("b"), checks.OK, 140, 150)
			h.TbFinal(p, "a=b2", "b=b3")
			return checkstest.Want{Verdict: checks.Pass}
		}},

		// Violations.
		{"half a batch visible in the final read", func(h *checkstest.Hist) checkstest.Want {
			s := h.TbSetup(p, "a", "b")
			b := h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.OK, 100, 110)
			f := h.TbFinal(p, "a=b1", "b=setup-p1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{
				checkstest.Vio(`half a batch visible in the final read: row "a" shows batch "b1" (#2) but the final read shows the older setup batch "setup-p1" (#1) on row "b" (1 of 2 rows)`, s, b, f)}}
		}},
		{"a batch built to fail acknowledged", func(h *checkstest.Hist) checkstest.Want {
			s := h.TbSetup(p, "a", "b")
			b := h.TbFailing(0, p, "b1", checkstest.TbRows("a", "b"), "b", 100, 110)
			h.Op(b).Outcome, h.Op(b).Out = checks.OK, checks.Output{Status: 202}
			h.TbFinal(p, "a=b1", "b=setup-p1")
			return checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{
				checkstest.Vio(`batch built to fail acknowledged: batch "b1" (#2) inserts row "b", which setup batch "setup-p1" (#1) had written before it was sent, and was answered ok 202; the whole transaction must be refused`, s, b)}}
		}},
		{"a batch built to fail, acknowledged, but its row not certainly there yet: quiet on that rule", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a")
			h.TbBatch(1, p, "b0", checkstest.TbRows("b"), checks.OK, 100, 130) // writes b, acknowledged only after b1 was sent
			b := h.TbFailing(0, p, "b1", checkstest.TbRows("a", "b"), "b", 110, 120)
			h.Op(b).Outcome, h.Op(b).Out = checks.OK, checks.Output{Status: 202}
			h.TbFinal(p, "a=b1", "b=b0")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"half of an unknown batch visible in the final read", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b", "c")
			b := h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b", "c"), checks.Unknown, 100, 110)
			f := h.TbFinal(p, "a=b1", "b=b1", "c=setup-p1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio(`half a batch visible in the final read`, b, f)}}
		}},
		{"half a batch visible: an older batch's row in the final read", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			old := h.TbBatch(0, p, "b0", checkstest.TbRows("b"), checks.OK, 50, 60)
			b := h.TbBatch(1, p, "b1", checkstest.TbRows("a", "b"), checks.OK, 100, 110)
			f := h.TbFinal(p, "a=b1", "b=b0")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio(`shows the older batch "b0" (#2) on row "b"`, old, b, f)}}
		}},
		{"committed write lost: the final read shows the setup on every row", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			b := h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.OK, 100, 110)
			f := h.TbFinal(p, "a=setup-p1", "b=setup-p1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{
				checkstest.Vio(`committed write lost: batch "b1" (#2) was acknowledged but the final read shows the older setup batch "setup-p1" (#1) on row "a" (2 of 2 rows)`, b, f)}}
		}},
		{"committed write lost: a row missing from the final read", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			b := h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.OK, 100, 110)
			f := h.TbFinal(p, "a=b1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio(`committed write lost: row "b" is missing from the final read, although batch "b1" (#2) wrote it (and 1 other batch)`, b, f)}}
		}},
		{"half a batch visible: an unknown batch read mid-run, lost on one row", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			b := h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.Unknown, 100, 110)
			rd := h.TbPage(1, p, 120, 130, "a=b1", "b=b1")
			h.TbBatch(1, p, "b2", checkstest.TbRows("a"), checks.OK, 140, 150)
			f := h.TbFinal(p, "a=b2", "b=setup-p1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{
				checkstest.Vio(`half a batch visible: batch "b1" (#2) (unknown) was read on row "a" but the final read shows the older setup batch`, b, rd, f)}}
		}},
		{"refused batch visible", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b", "c")
			b := h.TbFailing(0, p, "b1", checkstest.TbRows("a", "c"), "c", 100, 110)
			rd := h.TbPage(1, p, 120, 130, "a=b1", "b=setup-p1", "c=setup-p1")
			h.TbFinal(p, "a=setup-p1", "b=setup-p1", "c=setup-p1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{
				checkstest.Vio(`refused batch visible: row "a" shows the stamp of batch "b1" (#2), which was answered conflict 409 EntityAlreadyExists, built to fail on row "c"`, b, rd)}}
		}},
		{"refused batch visible on a point read and in the final read", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a")
			b := h.TbBatch(0, p, "b1", checkstest.TbRows("a"), checks.Throttled, 100, 110)
			g := h.Add(checks.Op{Actor: 1, Kind: checks.KindTableGet, Key: p, Call: 120, Return: 130,
				Out: checks.Output{Status: 200, Entities: []checks.Entity{{Row: "a", Value: "b1"}}}})
			h.TbFinal(p, "a=b1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio(`refused batch visible: row "a" shows the stamp of batch "b1" (#2), which was answered throttled 503 ServerBusy (2 entities read show it)`, b, g)}}
		}},
		{"a stamp nobody wrote", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			rd := h.TbPage(1, p, 120, 130, "a=ghost", "b=setup-p1")
			h.TbFinal(p, "a=setup-p1", "b=setup-p1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio(`stamp nobody wrote: row "a" shows stamp "ghost"`, rd)}}
		}},
		{"a batch's stamp on a row it did not write", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b", "c")
			b := h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.OK, 100, 110)
			rd := h.TbPage(1, p, 120, 130, "a=b1", "b=b1", "c=b1")
			h.TbFinal(p, "a=b1", "b=b1", "c=setup-p1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio(`row "c" shows the stamp of batch "b1" (#2), which did not write that row`, b, rd)}}
		}},
		{"a stamp read before its batch was sent", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a")
			rd := h.TbPage(1, p, 50, 60, "a=b1")
			b := h.TbBatch(0, p, "b1", checkstest.TbRows("a"), checks.OK, 100, 110)
			h.TbFinal(p, "a=b1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio(`stamp read before its batch was sent: row "a"`, rd, b)}}
		}},

		// Missing information: never a pass.
		{"no final read", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.OK, 100, 110)
			h.TbPage(1, p, 120, 130, "a=b1", "b=b1")
			h.Add(checks.Op{Actor: checks.ActorFinal, Kind: checks.KindTableQuery, Key: p, Outcome: checks.Unknown, Call: 10_000, Return: 10_100, Out: checks.Output{Err: "timeout"}})
			return checkstest.Want{Verdict: checks.Undecided, Summary: "undecided, no final read of 1 partition"}
		}},
		{"no final read, but a refused batch visible is still a violation", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a")
			b := h.TbBatch(0, p, "b1", checkstest.TbRows("a"), checks.Error, 100, 110)
			rd := h.TbPage(1, p, 120, 130, "a=b1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("refused batch visible", b, rd)}}
		}},
		{"a row absent from a final read with a failed page", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.OK, 100, 110)
			h.TbFinal(p, "a=b1")
			h.Add(checks.Op{Actor: checks.ActorFinal, Kind: checks.KindTableQuery, Key: p, Outcome: checks.Throttled, Call: 10_100, Return: 10_110, Out: checks.Output{Status: 503}})
			return checkstest.Want{Verdict: checks.Undecided, Summary: "undecided, 1 row absent from an incomplete final read"}
		}},
		{"a stamp reused by two actors", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a"), checks.OK, 100, 110)
			h.TbBatch(1, p, "b1", checkstest.TbRows("b"), checks.OK, 100, 110)
			h.TbFinal(p, "a=b1", "b=setup-p1")
			return checkstest.Want{Verdict: checks.Undecided, Summary: "1 stamp reused by several batches"}
		}},
		{"empty history", func(h *checkstest.Hist) checkstest.Want {
			return checkstest.Want{Verdict: checks.Undecided, Summary: "nothing to check"}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := checkstest.NewHist()
			w := tc.build(h)
			r := h.Check(t, BatchAtomicityName)
			w.Assert(t, r)
			tbCheckKeys(t, r)
		})
	}
}

// A violation's excerpt cuts a page down to the entities that show it.
func TestBatchAtomicityExcerptTrimsPages(t *testing.T) {
	h := checkstest.NewHist()
	h.TbSetup("p", "a", "b", "c", "d")
	h.TbBatch(0, "p", "b1", checkstest.TbRows("a", "b"), checks.OK, 100, 110)
	f := h.TbFinal("p", "a=b1", "b=setup-p", "c=setup-p", "d=setup-p")
	r := h.Check(t, BatchAtomicityName)
	if r.Verdict != checks.Fail || len(r.Violations) != 1 {
		t.Fatalf("%s", checkstest.Describe(r))
	}
	for _, op := range r.Violations[0].Ops {
		if op.Seq != f {
			continue
		}
		if len(op.Out.Entities) != 2 || op.Out.Entities[0].Row != "a" || op.Out.Entities[1].Row != "b" {
			t.Fatalf("final page excerpt holds %+v, want rows a and b", op.Out.Entities)
		}
		return
	}
	t.Fatalf("the final page is not in the excerpt\n%s", checkstest.Describe(r))
}
