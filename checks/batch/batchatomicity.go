package batch

import (
	"fmt"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/consistency"
)

// BatchAtomicityName is the name scenarios use for the batch-atomicity check.
const BatchAtomicityName = "batch-atomicity"

func init() {
	checks.Register(BatchAtomicityName, func() checks.Checker { return NewBatchAtomicity() })
}

// BatchAtomicity checks table.batch: an entity group transaction takes
// effect on all its rows or on none. Every batch stamps each row it writes
// with its own unique stamp (In.Value; retries reuse it), so every entity a
// read returns names the batch that last wrote it. It reads "table.batch",
// "table.query" pages, and "table.get" point reads (their entity in
// Out.Entities, or just Out.Props["stamp"] with the row unknown), and judges
// each partition on its own:
//
//   - every stamp read (on any page, any row) must be the stamp of a batch
//     of the partition that wrote that row, might have applied (answered OK,
//     unknown or 500) and was sent before the read returned: otherwise
//     "refused batch visible", "stamp nobody wrote", "stamp on a row its
//     batch did not write" or "stamp read before its batch was sent";
//   - a batch is applied when it was answered OK or its stamp was read
//     anywhere. In the final quiet read (the final actor's OK query pages of
//     the partition, together one state) every row of an applied batch B
//     must show B, or a batch that wrote the row and is not certainly
//     earlier than B: a row showing a batch certainly earlier than B is
//     "half a batch visible" when B shows elsewhere and "committed write
//     lost" when B was acknowledged but shows nowhere; a row of an applied
//     batch absent from a final read whose pages all answered is "committed
//     write lost" too.
//
// Batch A is certainly earlier than B when every application of A precedes
// every application of B (see tbSpan: A's latest Return before B's earliest
// Call, over the attempts that might have applied; an unknown attempt may
// apply at any later time unless it is the batch's only such attempt and a
// read bounds it). The setup batches are certainly earlier than every actor
// batch. A row of the final read is held against B only if B certainly
// applied before that page was sent (acknowledged, or read, earlier) or B
// shows on the same page. Without a final read of a partition the second
// rule is undecided there; the first still applies.
type BatchAtomicity struct {
	x *tbIndex
}

// NewBatchAtomicity returns a fresh checker.
func NewBatchAtomicity() *BatchAtomicity { return &BatchAtomicity{x: newTBIndex()} }

// Name implements Checker.
func (c *BatchAtomicity) Name() string { return BatchAtomicityName }

// Observe implements Checker.
func (c *BatchAtomicity) Observe(op *checks.Op) { c.x.observe(op) }

type baTotals struct {
	parts, batches, committed, unknown, refusedN, readUnknown int
	noFinal, absentSkipped                                    int
}

// Finish implements Checker.
func (c *BatchAtomicity) Finish() checks.Result {
	x := c.x
	x.settle()
	var v checks.Violations
	var t baTotals
	c.visible(&v)
	c.mustFail(&v)
	c.Final(&v, &t)
	for _, p := range x.parts {
		if p.batches > 0 {
			t.parts++
		}
	}
	for i := range x.batches {
		b := &x.batches[i]
		if b.Setup() {
			continue
		}
		t.batches++
		switch {
		case b.span.ok:
			t.committed++
		case b.span.refused():
			t.refusedN++
		default:
			t.unknown++
			if b.span.applied() {
				t.readUnknown++
			}
		}
	}

	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s (%d committed, %d unknown, %d refused), %s",
		checks.Plural(t.parts, "partition", "partitions"), checks.Plural(t.batches, "batch", "batches"),
		t.committed, t.unknown, t.refusedN, checks.Plural(len(x.reads), "read", "reads"))
	if t.readUnknown > 0 {
		fmt.Fprintf(&b, " (%s of unknown outcome seen applied)", checks.Plural(t.readUnknown, "batch", "batches"))
	}
	var undecided []string
	if t.batches == 0 {
		undecided = append(undecided, "nothing to check")
	}
	if t.noFinal > 0 {
		undecided = append(undecided, "no final read of "+checks.Plural(t.noFinal, "partition", "partitions"))
	}
	if t.absentSkipped > 0 {
		undecided = append(undecided, checks.Plural(t.absentSkipped, "row", "rows")+" absent from an incomplete final read")
	}
	if x.reused > 0 {
		undecided = append(undecided, checks.Plural(x.reused, "stamp", "stamps")+" reused by several batches")
	}
	decided := 0
	if t.batches > 0 {
		decided = t.batches + len(x.reads)
	}
	r := v.Conclude(BatchAtomicityName, &b, undecided, "every batch all or nothing", "").WithDecided(decided).Of(t.batches + len(x.reads))
	if t.unknown > 0 {
		// A batch of unknown outcome seen on a read took effect; the rest
		// stay open (all or none is judged either way).
		r.Unknown = &checks.UnknownWrites{Applied: t.readUnknown, Open: t.unknown - t.readUnknown}
	}
	return r
}

// baProblem is the first sighting of one stamp that should not have been
// read, and how many entities showed it.
type baProblem struct {
	read, ent int32
	n         int
}

type baProblemKey struct {
	state      tbEntState
	part, what int32 // what: the batch, or the stamp for tbEntNobody
}

// visible reports stamps read that no batch explains (rule 1), once per
// stamp and kind, in the order they were first read.
func (c *BatchAtomicity) visible(v *checks.Violations) {
	x := c.x
	idx := map[baProblemKey]int{}
	var list []baProblem
	var keys []baProblemKey
	for ri := range x.reads {
		rd := &x.reads[ri]
		for ei := rd.from; ei < rd.to; ei++ {
			e := x.ents.At(ei)
			if e.state == tbEntOK || e.state == tbEntSkip {
				continue
			}
			k := baProblemKey{e.state, e.part, e.batch}
			if e.state == tbEntNobody {
				k.what = e.stamp
			}
			i, ok := idx[k]
			if !ok {
				i = len(list)
				idx[k] = i
				list = append(list, baProblem{read: int32(ri), ent: ei})
				keys = append(keys, k)
			}
			list[i].n++
		}
	}
	for i, p := range list {
		e := x.ents.At(p.ent)
		rd := x.readExcerpt(p.read, p.ent)
		key := x.partIDs.names[e.part]
		stamp := x.stamps.names[e.stamp]
		row := x.rowName(e.row)
		times := ""
		if p.n > 1 {
			times = fmt.Sprintf(" (%d entities read show it)", p.n)
		}
		switch keys[i].state {
		case tbEntNobody:
			v.Add(key, fmt.Sprintf("stamp nobody wrote: row %q shows stamp %q, which no batch of the partition wrote%s", row, stamp, times),
				checks.Excerpt(rd)...)
		case tbEntRow:
			v.Add(key, fmt.Sprintf("stamp on a row its batch did not write: row %q shows the stamp of %s, which did not write that row%s",
				row, x.describe(e.batch), times), checks.Excerpt(rd, x.batchExcerpt(e.batch))...)
		case tbEntRefused:
			b := &x.batches[e.batch]
			a := x.batchExcerpt(e.batch)
			why := "answered " + consistency.Answer(a)
			if a.In.BatchFails != "" {
				why += fmt.Sprintf(", built to fail on row %q", a.In.BatchFails)
			}
			ops := []*checks.Op{rd}
			for j := range b.attempts {
				ops = append(ops, &b.attempts[j])
			}
			v.Add(key, fmt.Sprintf("refused batch visible: row %q shows the stamp of %s, which was %s%s", row, x.describe(e.batch), why, times),
				checks.Excerpt(ops...)...)
		case tbEntEarly:
			v.Add(key, fmt.Sprintf("stamp read before its batch was sent: row %q shows the stamp of %s in a read that returned before it was sent%s",
				row, x.describe(e.batch), times), checks.Excerpt(rd, x.batchExcerpt(e.batch))...)
		}
	}
}

// mustFail reports acknowledged batches that were built to fail: one of
// their operations inserted a row that an earlier batch had certainly
// written before the batch was sent (the workload never deletes), so the
// service had to refuse the whole transaction, and acknowledging it means
// the failing operation was dropped or the batch was not all or nothing.
func (c *BatchAtomicity) mustFail(v *checks.Violations) {
	x := c.x
	for bi := range x.batches {
		b := &x.batches[bi]
		if b.Setup() || b.bad || !b.span.ok {
			continue
		}
		fails := ""
		for i := range b.attempts {
			if f := b.attempts[i].In.BatchFails; f != "" {
				fails = f
			}
		}
		row, known := x.rows.lookup(fails)
		if fails == "" || !known {
			continue
		}
		for wi := range x.batches {
			w := &x.batches[wi]
			if wi == bi || w.bad || w.part != b.part || !w.writes(row) || !w.span.applied() || w.span.by >= b.span.lo {
				continue
			}
			if w.attempts[0].In.BatchFails == fails {
				continue // w did not write the row: it only tried to insert it
			}
			v.Add(x.partIDs.names[b.part], fmt.Sprintf("batch built to fail acknowledged: %s inserts row %q, which %s had written before it was sent, and was answered %s; the whole transaction must be refused",
				x.describe(int32(bi)), fails, x.describe(int32(wi)), consistency.Answer(tbAttempt(b.attempts))),
				checks.Excerpt(x.batchExcerpt(int32(wi)), x.batchExcerpt(int32(bi)))...)
			break
		}
	}
}

type baPR struct{ part, row int32 }

type baFinalVal struct{ read, ent int32 }

// baBad is one row of an applied batch the final read contradicts.
type baBad struct {
	row       int32
	read, ent int32 // the final entity
}

// final checks every applied batch against the final read (rule 2).
func (c *BatchAtomicity) Final(v *checks.Violations, t *baTotals) {
	x := c.x
	final := map[baPR][]baFinalVal{}
	visibleOn := map[[2]int32]bool{}                 // {final read, batch}
	firstFinal := map[int32]int32{}                  // partition -> its first final page
	finalShows := make([]baFinalVal, len(x.batches)) // batch -> a final entity showing it
	for i := range finalShows {
		finalShows[i] = baFinalVal{-1, -1}
	}
	for ri := range x.reads {
		rd := &x.reads[ri]
		if !rd.final {
			continue
		}
		p := x.partIDs.ids[rd.op.Key]
		if _, ok := firstFinal[p]; !ok {
			firstFinal[p] = int32(ri)
		}
		for ei := rd.from; ei < rd.to; ei++ {
			e := x.ents.At(ei)
			if _, ok := firstFinal[e.part]; !ok {
				firstFinal[e.part] = int32(ri)
			}
			k := baPR{e.part, e.row}
			final[k] = append(final[k], baFinalVal{int32(ri), ei})
			if e.state == tbEntOK {
				visibleOn[[2]int32{int32(ri), e.batch}] = true
				if finalShows[e.batch].ent < 0 {
					finalShows[e.batch] = baFinalVal{int32(ri), ei}
				}
			}
		}
	}
	noFinal := map[int32]bool{}
	absent := map[baPR]int32{} // row missing from a complete final read -> the newest applied batch that wrote it
	absentN := map[baPR]int{}  // -> how many applied batches wrote it
	skipped := map[baPR]bool{} // rows missing from an incomplete final read
	var absentOrder []baPR
	for bi := range x.batches {
		b := &x.batches[bi]
		if b.bad || !b.span.applied() {
			continue
		}
		p := x.parts[b.part]
		if !p.hasFinal {
			noFinal[b.part] = true
			continue
		}
		var bad []baBad
		for _, r := range b.rows {
			k := baPR{b.part, r}
			vals := final[k]
			if len(vals) == 0 {
				switch {
				case p.incomplete:
					skipped[k] = true
				case b.span.by < p.finalCall:
					prev, seen := absent[k]
					if !seen {
						absentOrder = append(absentOrder, k)
					}
					if !seen || x.batches[prev].span.lo < b.span.lo {
						absent[k] = int32(bi)
					}
					absentN[k]++
				}
				continue
			}
			var first *baBad
			ok := false
			for _, fv := range vals {
				e := x.ents.At(fv.ent)
				if e.state != tbEntOK || e.batch == int32(bi) {
					ok = true
					break
				}
				older := &x.batches[e.batch]
				rd := &x.reads[fv.read]
				if !older.span.before(&b.span) || (b.span.by >= rd.op.Call && !visibleOn[[2]int32{fv.read, int32(bi)}]) {
					ok = true
					break
				}
				if first == nil {
					first = &baBad{row: r, read: fv.read, ent: fv.ent}
				}
			}
			if !ok {
				bad = append(bad, *first)
			}
		}
		if len(bad) > 0 {
			c.reportFinal(v, int32(bi), bad, finalShows[bi])
		}
	}
	for _, k := range absentOrder {
		bi := absent[k]
		others := ""
		if n := absentN[k]; n > 1 {
			others = fmt.Sprintf(" (and %s)", checks.Plural(n-1, "other batch", "other batches"))
		}
		v.Add(x.partIDs.names[k.part], fmt.Sprintf("committed write lost: row %q is missing from the final read, although %s wrote it%s",
			x.rowName(k.row), x.describe(bi), others), checks.Excerpt(x.batchExcerpt(bi), x.readExcerpt(firstFinal[k.part]))...)
	}
	t.absentSkipped = len(skipped)
	t.noFinal = len(noFinal)
	for pi, p := range x.parts {
		if !p.hasFinal && p.batches > 0 && !noFinal[int32(pi)] {
			t.noFinal++
		}
	}
}

// reportFinal reports the rows of applied batch bi that show an older batch
// in the final read; shows is a final entity showing bi ({-1, -1}: none).
func (c *BatchAtomicity) reportFinal(v *checks.Violations, bi int32, bad []baBad, shows baFinalVal) {
	x := c.x
	b := &x.batches[bi]
	first := bad[0]
	e := x.ents.At(first.ent)
	seen := fmt.Sprintf("shows the older %s on row %q (%d of %d rows)", x.describe(e.batch), x.rowName(first.row), len(bad), len(b.rows))
	// The page with the stale row, with a row of the same page showing bi.
	mine := int32(-1)
	rd := &x.reads[first.read]
	for ei := rd.from; ei < rd.to; ei++ {
		if x.ents.At(ei).state == tbEntOK && x.ents.At(ei).batch == bi {
			mine = ei
			break
		}
	}
	page := x.readExcerpt(first.read, mine, first.ent)
	var msg string
	var shown *checks.Op
	switch {
	case shows.ent >= 0:
		msg = fmt.Sprintf("half a batch visible in the final read: row %q shows %s but the final read %s",
			x.rowName(x.ents.At(shows.ent).row), x.describe(bi), seen)
		if mine < 0 {
			shown = x.readExcerpt(shows.read, shows.ent)
		}
	case b.span.ok:
		msg = fmt.Sprintf("committed write lost: %s was acknowledged but the final read %s", x.describe(bi), seen)
	default:
		msg = fmt.Sprintf("half a batch visible: %s (%s) was read on row %q but the final read %s",
			x.describe(bi), consistency.Answer(tbAttempt(b.attempts)), x.rowName(x.ents.At(b.firstEnt).row), seen)
		shown = x.readExcerpt(b.firstRead, b.firstEnt)
	}
	v.Add(x.partIDs.names[b.part], msg, checks.Excerpt(x.batchExcerpt(bi), page, shown, x.batchExcerpt(e.batch))...)
}
