package batch

import (
	"fmt"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
)

// SnapshotReadsName is the name scenarios use for the snapshot-reads check.
const SnapshotReadsName = "snapshot-reads"

func init() {
	checks.Register(SnapshotReadsName, func() checks.Checker { return NewSnapshotReads() })
}

// SnapshotReads checks that one page of a table query never sees part of a
// batch (table.batch stamps every row it writes with its unique stamp). One
// page is one snapshot of its partition; a query across pages is not, so
// every OK "table.query" page (the final read's included) is judged alone.
// For every two rows r and s of one partition on a page, r showing batch A
// and s showing another batch B:
//
//   - torn read: A wrote s and B wrote r. Each row shows a batch that the
//     other must have overwritten; no order of the two explains the page.
//   - stale row: A wrote s and B is certainly earlier than A (every
//     application of B precedes every application of A; setup batches are
//     earlier than every actor batch). s shows a state older than A, which
//     the page shows on r.
//
// Entities whose stamp batch-atomicity rejects (a stamp nobody wrote, a
// refused batch, a reused stamp) are left to it. table.get reads hold one
// entity, so no pair: they are not judged here. The page is walked batch by
// batch (each batch A on the page against the rows A wrote), and each pair
// of batches is judged once per page, so a page of a thousand entities costs
// about the rows its batches wrote, not a thousand squared.
type SnapshotReads struct {
	x *tbIndex
}

// NewSnapshotReads returns a fresh checker.
func NewSnapshotReads() *SnapshotReads { return &SnapshotReads{x: newTBIndex()} }

// Name implements Checker.
func (c *SnapshotReads) Name() string { return SnapshotReadsName }

// Observe implements Checker.
func (c *SnapshotReads) Observe(op *checks.Op) { c.x.observe(op) }

// Finish implements Checker.
func (c *SnapshotReads) Finish() checks.Result {
	x := c.x
	x.settle()
	var v checks.Violations
	var pages, ents, pairs, skipped int
	parts := map[int32]bool{}

	onPage := newSRPage(x)          // row -> the entity showing it
	shows := map[int32][]int32{}    // batch -> the entities showing it
	judged := map[[2]int32]bool{}   // ordered pairs of batches done
	reported := map[[2]int32]bool{} // unordered pairs reported
	var order []int32
	for ri := range x.reads {
		rd := &x.reads[ri]
		if !rd.page || rd.to-rd.from < 2 {
			continue
		}
		pages++
		ents += int(rd.to - rd.from)
		onPage.reset()
		clear(shows)
		clear(judged)
		clear(reported)
		order = order[:0]
		for ei := rd.from; ei < rd.to; ei++ {
			e := x.ents.At(ei)
			parts[e.part] = true
			if e.state != tbEntOK || !onPage.Put(e.part, e.row, ei) {
				skipped++
				continue
			}
			if _, ok := shows[e.batch]; !ok {
				order = append(order, e.batch)
			}
			shows[e.batch] = append(shows[e.batch], ei)
		}
		for _, a := range order {
			ba := &x.batches[a]
			for _, s := range ba.rows {
				es, ok := onPage.Get(ba.part, s)
				if !ok {
					continue
				}
				b := x.ents.At(es).batch
				if b == a || judged[[2]int32{a, b}] {
					continue
				}
				judged[[2]int32{a, b}] = true
				pairs++
				u := [2]int32{min(a, b), max(a, b)}
				if reported[u] {
					continue
				}
				bb := &x.batches[b]
				key := x.partIDs.names[ba.part]
				if bb.span.before(&ba.span) {
					reported[u] = true
					c.stale(&v, key, int32(ri), a, shows[a][0], b, es)
					continue
				}
				r := c.wroteOne(onPage, a, bb, shows[a])
				switch {
				case r < 0:
				case ba.span.before(&bb.span):
					reported[u] = true
					c.stale(&v, key, int32(ri), b, es, a, r)
				default:
					reported[u] = true
					v.Add(key, fmt.Sprintf("torn read: one page shows %s on row %q and %s on row %q, but each batch wrote both rows, so each row shows a batch the other overwrote",
						x.describe(a), x.rowName(x.ents.At(r).row), x.describe(b), x.rowName(s)),
						checks.Excerpt(x.readExcerpt(int32(ri), r, es), x.batchExcerpt(a), x.batchExcerpt(b))...)
				}
			}
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "%s with %s in %s, %s of batches compared", checks.Plural(pages, "page", "pages"), checks.Plural(ents, "entity", "entities"),
		checks.Plural(len(parts), "partition", "partitions"), checks.Plural(pairs, "pair", "pairs"))
	var undecided []string
	if pages == 0 {
		undecided = append(undecided, "nothing to check (no query page with two entities)")
	}
	if x.reused > 0 {
		undecided = append(undecided, checks.Plural(x.reused, "stamp", "stamps")+" reused by several batches")
	}
	suffix := ""
	if skipped > 0 {
		suffix = fmt.Sprintf(" (%s with a stamp batch-atomicity rejects or a repeated row not judged)", checks.Plural(skipped, "entity", "entities"))
	}
	return v.Conclude(SnapshotReadsName, &b, undecided, "every page a consistent snapshot", suffix).WithDecided(pages).Of(pages)
}

// stale reports that page ri shows newer batch a on entity ea and, on
// entity eb, a row a also wrote showing batch b, certainly earlier than a.
func (c *SnapshotReads) stale(v *checks.Violations, key string, ri, a, ea, b, eb int32) {
	x := c.x
	v.Add(key, fmt.Sprintf("stale row in one page: row %q shows %s, which also wrote row %q, but that row shows %s, which took effect before %q was sent",
		x.rowName(x.ents.At(ea).row), x.describe(a), x.rowName(x.ents.At(eb).row), x.describe(b), x.stamp(a)),
		checks.Excerpt(x.readExcerpt(ri, ea, eb), x.batchExcerpt(a), x.batchExcerpt(b))...)
}

// wroteOne returns one of the entities of the page showing batch a (ents)
// whose row batch b wrote, or -1. It walks the shorter of ents and b's rows.
func (c *SnapshotReads) wroteOne(pg *srPage, a int32, b *tbBatch, ents []int32) int32 {
	x := c.x
	if len(ents) <= len(b.rows) {
		for _, ei := range ents {
			if b.writes(x.ents.At(ei).row) {
				return ei
			}
		}
		return -1
	}
	for _, r := range b.rows {
		if ei, ok := pg.Get(b.part, r); ok && x.ents.At(ei).batch == a {
			return ei
		}
	}
	return -1
}

// srPage finds the entity a page shows for a row: one slot per row id (row
// ids are shared by the partitions), and a map for a row id the page shows
// in a second partition. Reset costs the rows the page held.
type srPage struct {
	x     *tbIndex
	slot  []int32
	other map[baPR]int32
	used  []int32
}

func newSRPage(x *tbIndex) *srPage {
	p := &srPage{x: x, slot: make([]int32, len(x.rows.names)), other: map[baPR]int32{}}
	for i := range p.slot {
		p.slot[i] = -1
	}
	return p
}

func (p *srPage) reset() {
	for _, r := range p.used {
		p.slot[r] = -1
	}
	p.used = p.used[:0]
	clear(p.other)
}

// put records entity ei for (part, row); false if the page already showed
// that row.
func (p *srPage) Put(part, row, ei int32) bool {
	if row < 0 {
		return false
	}
	switch cur := p.slot[row]; {
	case cur < 0:
		p.slot[row] = ei
		p.used = append(p.used, row)
		return true
	case p.x.ents.At(cur).part == part:
		return false
	}
	k := baPR{part, row}
	if _, dup := p.other[k]; dup {
		return false
	}
	p.other[k] = ei
	return true
}

func (p *srPage) Get(part, row int32) (int32, bool) {
	cur := p.slot[row]
	if cur < 0 {
		return -1, false
	}
	if p.x.ents.At(cur).part == part {
		return cur, true
	}
	ei, ok := p.other[baPR{part, row}]
	return ei, ok
}
