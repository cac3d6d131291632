package batch

import (
	"fmt"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

func TestSnapshotReads(t *testing.T) {
	const p, q = "p1", "p2"
	cases := []struct {
		name  string
		build func(h *checkstest.Hist) checkstest.Want
	}{
		// Clean histories.
		{"consistent pages while batches overlap", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b", "c")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.OK, 100, 200)
			h.TbBatch(1, p, "b2", checkstest.TbRows("b", "c"), checks.OK, 150, 250)
			h.TbPage(2, p, 90, 95, "a=setup-p1", "b=setup-p1", "c=setup-p1")
			h.TbPage(2, p, 160, 170, "a=b1", "b=b1", "c=setup-p1") // b1 applied, b2 not yet
			h.TbPage(3, p, 160, 170, "a=setup-p1", "b=b2", "c=b2") // b2 applied, b1 not yet
			h.TbPage(2, p, 260, 270, "a=b1", "b=b2", "c=b2")       // b1 then b2
			h.TbPage(3, p, 260, 270, "a=b1", "b=b1", "c=b2")       // b2 then b1
			h.TbFinal(p, "a=b1", "b=b1", "c=b2")
			return checkstest.Want{Verdict: checks.Pass, Summary: "6 pages with 18 entities in 1 partition, 5 pairs of batches compared: every page a consistent snapshot"}
		}},
		{"a page holding part of the partition", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b", "c", "d")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a", "d"), checks.OK, 100, 110)
			h.TbPage(1, p, 120, 130, "b=setup-p1", "c=setup-p1", "d=b1")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"a query across two pages is two snapshots", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.OK, 100, 110)
			h.TbPage(1, p, 50, 60, "a=setup-p1")
			h.TbPage(1, p, 120, 130, "b=b1")
			return checkstest.Want{Verdict: checks.Undecided, Summary: "nothing to check (no query page with two entities)"}
		}},
		{"rows of two partitions on one page are judged apart", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			h.TbSetup(q, "a", "b")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.OK, 100, 110)
			h.Add(checks.Op{Actor: 1, Kind: checks.KindTableQuery, Key: "*", Call: 120, Return: 130, Out: checks.Output{Status: 200, Entities: []checks.Entity{
				{Partition: p, Row: "a", Value: "b1"}, {Partition: p, Row: "b", Value: "b1"},
				{Partition: q, Row: "a", Value: "setup-p2"}, {Partition: q, Row: "b", Value: "setup-p2"}}}})
			return checkstest.Want{Verdict: checks.Pass, Summary: "in 2 partitions"}
		}},

		// Unknown outcomes: quiet.
		{"an unknown batch visible nowhere", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.Unknown, 100, 110)
			h.TbPage(1, p, 120, 130, "a=setup-p1", "b=setup-p1")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"an unknown batch fully visible", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b", "c")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.Unknown, 100, 110)
			h.TbPage(1, p, 120, 130, "a=b1", "b=b1", "c=setup-p1")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"an unknown batch applied after it timed out, after a later batch", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b", "c")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.Unknown, 100, 130)
			h.TbBatch(1, p, "b0", checkstest.TbRows("a", "c"), checks.OK, 200, 210)
			h.TbPage(2, p, 300, 310, "a=b1", "b=b1", "c=b0")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"entities of a refused batch are left to batch-atomicity", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			h.TbFailing(0, p, "b1", checkstest.TbRows("a", "b"), "b", 100, 110)
			h.TbPage(1, p, 120, 130, "a=b1", "b=setup-p1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "(1 entity with a stamp batch-atomicity rejects or a repeated row not judged)"}
		}},

		// Violations.
		{"torn read: each row shows a batch the other overwrote", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			b1 := h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.OK, 100, 200)
			b2 := h.TbBatch(1, p, "b2", checkstest.TbRows("a", "b"), checks.OK, 150, 250)
			rd := h.TbPage(2, p, 260, 270, "a=b1", "b=b2")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{
				checkstest.Vio(`torn read: one page shows batch "b1" (#2) on row "a" and batch "b2" (#3) on row "b"`, rd, b1, b2)}}
		}},
		{"torn read of two unknown batches", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b", "c")
			b1 := h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b", "c"), checks.Unknown, 100, 110)
			b2 := h.TbBatch(1, p, "b2", checkstest.TbRows("b", "c"), checks.Unknown, 100, 110)
			rd := h.TbPage(2, p, 260, 270, "a=b1", "b=b2", "c=b1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio(`torn read`, rd, b1, b2)}}
		}},
		{"stale row: the setup on a row the page shows a batch wrote", func(h *checkstest.Hist) checkstest.Want {
			s := h.TbSetup(p, "a", "b", "c")
			b1 := h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.OK, 100, 110)
			rd := h.TbPage(1, p, 200, 210, "a=b1", "b=setup-p1", "c=setup-p1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{
				checkstest.Vio(`stale row in one page: row "a" shows batch "b1" (#2), which also wrote row "b", but that row shows setup batch "setup-p1" (#1), which took effect before "b1" was sent`, s, b1, rd)}}
		}},
		{"stale row: an older batch, even while the newer one's outcome is unknown", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			b0 := h.TbBatch(0, p, "b0", checkstest.TbRows("b"), checks.OK, 50, 60)
			b1 := h.TbBatch(1, p, "b1", checkstest.TbRows("a", "b"), checks.Unknown, 100, 110)
			rd := h.TbPage(2, p, 200, 210, "b=b0", "a=b1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{
				checkstest.Vio(`row "a" shows batch "b1" (#3), which also wrote row "b", but that row shows batch "b0" (#2)`, b0, b1, rd)}}
		}},
		{"stale row in the final read", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			b1 := h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.OK, 100, 110)
			f := h.TbFinal(p, "a=b1", "b=setup-p1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("stale row in one page", b1, f)}}
		}},
		{"stale row in the second partition of a page holding two", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			h.TbSetup(q, "a", "b")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b"), checks.OK, 100, 110)
			bq := h.TbBatch(1, q, "bq", checkstest.TbRows("a", "b"), checks.OK, 100, 110)
			rd := h.Add(checks.Op{Actor: 1, Kind: checks.KindTableQuery, Key: "*", Call: 120, Return: 130, Out: checks.Output{Status: 200, Entities: []checks.Entity{
				{Partition: p, Row: "a", Value: "b1"}, {Partition: p, Row: "b", Value: "b1"},
				{Partition: q, Row: "a", Value: "bq"}, {Partition: q, Row: "b", Value: "setup-p2"}}}})
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio(`row "a" shows batch "bq" (#4), which also wrote row "b", but that row shows setup batch "setup-p2"`, bq, rd)}}
		}},
		{"one violation per pair of batches per page", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b", "c", "d")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a", "b", "c", "d"), checks.OK, 100, 110)
			rd1 := h.TbPage(1, p, 200, 210, "a=b1", "b=setup-p1", "c=setup-p1", "d=b1")
			rd2 := h.TbPage(1, p, 300, 310, "a=setup-p1", "b=b1", "c=b1", "d=b1")
			return checkstest.Want{Verdict: checks.Fail, Total: 2, Vios: []checkstest.ExpectViolation{checkstest.Vio("stale row", rd1), checkstest.Vio("stale row", rd2)}}
		}},

		// Missing information.
		{"a stamp reused by two actors", func(h *checkstest.Hist) checkstest.Want {
			h.TbSetup(p, "a", "b")
			h.TbBatch(0, p, "b1", checkstest.TbRows("a"), checks.OK, 100, 110)
			h.TbBatch(1, p, "b1", checkstest.TbRows("b"), checks.OK, 100, 110)
			h.TbPage(2, p, 120, 130, "a=b1", "b=b1")
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
			r := h.Check(t, SnapshotReadsName)
			w.Assert(t, r)
			tbCheckKeys(t, r)
		})
	}
}

// A page of a thousand entities from a hundred batches of ten rows each is
// judged in time linear in the rows its batches wrote.
func TestSnapshotReadsLargePage(t *testing.T) {
	h := checkstest.NewHist()
	var all []string
	for i := range 1000 {
		all = append(all, fmt.Sprintf("r%04d", i))
	}
	for i := 0; i < len(all); i += 100 {
		h.TbBatch(checks.ActorSetup, "p", "setup", all[i:i+100], checks.OK, 1, 2)
	}
	var ents []string
	for b := range 100 {
		stamp := fmt.Sprintf("b%d", b)
		h.TbBatch(b%8, "p", stamp, all[b*10:b*10+10], checks.OK, 100, 110)
		for _, r := range all[b*10 : b*10+10] {
			ents = append(ents, r+"="+stamp)
		}
	}
	h.TbPage(0, "p", 200, 210, ents...)
	ents[555] = all[555] + "=setup" // row 555 of batch b55 shows the setup
	stale := h.TbPage(0, "p", 300, 310, ents...)
	w := checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio(`but that row shows setup batch "setup"`, stale)}}
	w.Assert(t, h.Check(t, SnapshotReadsName))
}
