package batch

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
)

// Shared by the table checkers: when a logical write (all its attempts) can
// have taken effect, and the index of table batches and of the entities
// reads returned that batch-atomicity and snapshot-reads judge.

// tbInf is a time no attempt reaches.
const tbInf = math.MaxInt64

// tbSpan bounds when one logical write (a batch, or an entity write, with
// all its attempts: retries reuse the stamp or tag) took effect.
//
// Every application lies in [lo, hi]: lo is the earliest Call of an attempt
// that might have applied (OK, unknown or 500); hi is the latest Return of
// such an attempt, +inf as soon as one of them has an unknown outcome (the
// service may apply a request after the client gave up), tightened to the
// first read that showed the write when only one attempt might have applied
// (it applied once, before that read returned). by is a time by which one
// application certainly happened: the first OK Return or the first Return of
// a read that showed the write (+inf: none proven).
//
// Setup writes precede the load: their hi is clamped to just before the
// first call of a workload actor on the same key or partition, which makes
// them certainly earlier than every actor write.
type tbSpan struct {
	lo, hi, by int64
	okRet      int64 // earliest Return of an OK attempt
	readRet    int64 // earliest Return of a read that showed the write
	maybe      int32 // attempts that might have applied
	ok         bool  // an attempt was acknowledged
}

func newTBSpan() tbSpan {
	return tbSpan{lo: tbInf, hi: math.MinInt64, by: tbInf, okRet: tbInf, readRet: tbInf}
}

// attempt records one attempt of the write.
func (s *tbSpan) attempt(op *checks.Op) {
	if checks.Refused(op) {
		return
	}
	s.maybe++
	s.lo = min(s.lo, op.Call)
	if op.Outcome == checks.OK {
		s.ok = true
		s.okRet = min(s.okRet, op.Return)
		s.hi = max(s.hi, op.Return)
	} else {
		s.hi = tbInf
	}
}

// read records a read, returned at ret, that showed the write.
func (s *tbSpan) read(ret int64) { s.readRet = min(s.readRet, ret) }

// settle computes hi and by once every attempt and read is known; setupEnd
// is the clamp for a setup write (tbInf for any other).
func (s *tbSpan) settle(setupEnd int64) {
	if s.maybe == 0 {
		return
	}
	s.by = min(s.okRet, s.readRet)
	if s.maybe == 1 {
		s.hi = min(s.hi, s.readRet)
	}
	if setupEnd < s.hi {
		s.hi = max(s.lo, setupEnd)
	}
}

// refused: no attempt might have applied.
func (s *tbSpan) refused() bool { return s.maybe == 0 }

// applied: the write certainly took effect (acknowledged or read).
func (s *tbSpan) applied() bool { return s.maybe > 0 && s.by < tbInf }

// before reports whether s certainly took effect before t did: every
// application of s precedes every application of t.
func (s *tbSpan) before(t *tbSpan) bool { return s.maybe > 0 && t.maybe > 0 && s.hi < t.lo }

// tbAttempt picks the attempt of a logical write to show in an excerpt: the
// acknowledged one, else the first that might have applied, else the first.
func tbAttempt(attempts []checks.Op) *checks.Op {
	if len(attempts) == 0 {
		return nil
	}
	for i := range attempts {
		if attempts[i].Outcome == checks.OK {
			return &attempts[i]
		}
	}
	for i := range attempts {
		if !checks.Refused(&attempts[i]) {
			return &attempts[i]
		}
	}
	return &attempts[0]
}

// tbInterner maps strings to dense ids.
type tbInterner struct {
	ids   map[string]int32
	names []string
}

func (n *tbInterner) id(s string) int32 {
	if n.ids == nil {
		n.ids = map[string]int32{}
	}
	if i, ok := n.ids[s]; ok {
		return i
	}
	i := int32(len(n.names))
	n.ids[s] = i
	n.names = append(n.names, s)
	return i
}

func (n *tbInterner) lookup(s string) (int32, bool) {
	i, ok := n.ids[s]
	return i, ok
}

// tbBatch is one logical table batch: the attempts of one actor with one
// stamp and one set of rows in one partition.
type tbBatch struct {
	part, stamp int32
	actor       int
	rows        []int32 // sorted row ids
	attempts    []checks.Op
	span        tbSpan
	firsts      int  // attempts with Attempt <= 1: more than one means a reused stamp
	bad         bool // the stamp is reused: the batch is not judged
	firstRead   int32
	firstEnt    int32 // the first entity a read showed it on, -1 if none
}

func (b *tbBatch) Setup() bool { return b.actor == checks.ActorSetup }

// writes reports whether the batch wrote row.
func (b *tbBatch) writes(row int32) bool {
	_, ok := slices.BinarySearch(b.rows, row)
	return ok
}

// tbEntState is what an entity a read returned says about its stamp.
type tbEntState uint8

const (
	tbEntOK      tbEntState = iota // the stamp of a batch that wrote the row and might have applied
	tbEntNobody                    // no batch of the partition has this stamp
	tbEntRow                       // the stamp's batch did not write this row
	tbEntRefused                   // the stamp's batch was refused: no attempt might have applied
	tbEntEarly                     // the read returned before any attempt of the batch was sent
	tbEntSkip                      // the stamp is reused by several batches: not judged
)

// tbEnt is one entity a read returned, interned.
type tbEnt struct {
	part, row, stamp int32 // row -1: a point read that did not record its row
	batch            int32 // the batch whose stamp it shows, -1 if none
	state            tbEntState
}

// tbRead is one successful read: a query page or a point read.
type tbRead struct {
	op       checks.Op // without its entities (they are in tbIndex.ents)
	from, to int32
	page     bool // a table.query page (not a point read)
	final    bool
}

type tbPS struct{ part, stamp int32 }

type tbGroup struct {
	part, stamp int32
	actor       int
	rows        string
}

// tbPart is what the index knows of one partition.
type tbPart struct {
	name         string
	minActorCall int64 // the first call of a workload actor here (setup clamp)
	finalCall    int64 // the first call of a final query page here
	hasFinal     bool  // an OK final query page read the partition
	incomplete   bool  // a final query page of the partition failed
	batches      int32 // logical actor batches
}

// tbIndex collects table batches and the entities reads returned, and
// resolves each entity to the batch that wrote it.
type tbIndex struct {
	workload string
	partIDs  tbInterner
	parts    []*tbPart
	rows     tbInterner
	stamps   tbInterner
	batches  []tbBatch
	groups   map[tbGroup]int32
	byStamp  map[tbPS][]int32
	reads    []tbRead
	ents     checks.Chunked[tbEnt]
	reused   int // stamps used by several logical batches
	settled  bool
	sigBuf   []string
}

func newTBIndex() *tbIndex {
	return &tbIndex{groups: map[tbGroup]int32{}, byStamp: map[tbPS][]int32{}}
}

func (x *tbIndex) part(name string) int32 {
	id := x.partIDs.id(name)
	if int(id) == len(x.parts) {
		x.parts = append(x.parts, &tbPart{name: name, minActorCall: tbInf, finalCall: tbInf})
	}
	return id
}

// observe takes the operations batch-atomicity and snapshot-reads read:
// table.batch, table.query, and table.get (a point read counts like a
// one-entity page: its entity in Out.Entities, or its stamp in
// Out.Props["stamp"] with the row unknown).
func (x *tbIndex) observe(op *checks.Op) {
	switch op.Kind {
	case checks.KindTableBatch:
		x.observeBatch(op)
	case checks.KindTableQuery, checks.KindTableGet:
		x.observeRead(op)
	}
}

// compact copies op to keep until Finish, sharing the strings of its
// partition p with the other ops kept.
func (x *tbIndex) compact(op *checks.Op, p int32) checks.Op {
	if x.workload == "" {
		x.workload = op.Workload
	}
	c := checks.CompactOp(op, x.workload, op.Kind, x.partIDs.names[p])
	c.Out.Entities = nil
	return c
}

func (x *tbIndex) observeBatch(op *checks.Op) {
	p := x.part(op.Key)
	if op.Actor >= 0 {
		x.parts[p].minActorCall = min(x.parts[p].minActorCall, op.Call)
	}
	stamp := x.stamps.id(op.In.Value)
	x.sigBuf = append(x.sigBuf[:0], op.In.Rows...)
	slices.Sort(x.sigBuf)
	x.sigBuf = slices.Compact(x.sigBuf)
	g := tbGroup{part: p, stamp: stamp, actor: op.Actor, rows: strings.Join(x.sigBuf, "\x00")}
	bi, ok := x.groups[g]
	if !ok {
		bi = int32(len(x.batches))
		rows := make([]int32, len(x.sigBuf))
		for i, r := range x.sigBuf {
			rows[i] = x.rows.id(r)
		}
		slices.Sort(rows)
		x.batches = append(x.batches, tbBatch{part: p, stamp: stamp, actor: op.Actor, rows: rows,
			span: newTBSpan(), firstRead: -1, firstEnt: -1})
		x.groups[g] = bi
		ps := tbPS{p, stamp}
		x.byStamp[ps] = append(x.byStamp[ps], bi)
		if op.Actor >= 0 {
			x.parts[p].batches++
		}
	}
	b := &x.batches[bi]
	b.attempts = append(b.attempts, x.compact(op, p))
	b.span.attempt(op)
	if op.Attempt <= 1 {
		b.firsts++
	}
}

func (x *tbIndex) observeRead(op *checks.Op) {
	p := x.part(op.Key)
	pt := x.parts[p]
	final := op.Actor == checks.ActorFinal && op.Kind == checks.KindTableQuery
	if op.Actor >= 0 {
		pt.minActorCall = min(pt.minActorCall, op.Call)
	}
	if op.Outcome != checks.OK {
		if final {
			pt.incomplete = true
		}
		return
	}
	r := tbRead{op: x.compact(op, p), from: x.ents.Len(), page: op.Kind == checks.KindTableQuery, final: final}
	add := func(partName, row, stamp string, known bool) {
		ep := p
		if partName != "" && partName != op.Key {
			ep = x.part(partName)
		}
		e := tbEnt{part: ep, row: -1, stamp: x.stamps.id(stamp), batch: -1}
		if known {
			e.row = x.rows.id(row)
		}
		x.ents.Add(e)
		if final {
			x.parts[ep].hasFinal = true
			x.parts[ep].finalCall = min(x.parts[ep].finalCall, op.Call)
		}
	}
	switch {
	case len(op.Out.Entities) > 0:
		for i := range op.Out.Entities {
			e := &op.Out.Entities[i]
			add(e.Partition, e.Row, e.Value, true)
		}
	case op.Kind == checks.KindTableGet:
		if s, ok := op.Out.Props["stamp"]; ok {
			add("", "", s, false)
		}
	}
	if final {
		pt.hasFinal = true
		pt.finalCall = min(pt.finalCall, op.Call)
	}
	r.to = x.ents.Len()
	if op.Kind == checks.KindTableGet && r.to == r.from {
		return
	}
	x.reads = append(x.reads, r)
}

// settle resolves every entity read to its batch and bounds every batch in
// time. It runs once, at Finish.
func (x *tbIndex) settle() {
	if x.settled {
		return
	}
	x.settled = true
	// A stamp shared by several logical batches is judged only when they
	// are all setup batches over disjoint rows (a setup split in several
	// batches); anything else is a reused stamp.
	for _, list := range x.byStamp {
		bad := false
		for _, bi := range list {
			// Two first attempts: two logical batches with one stamp (the
			// setup may repeat its own batch harmlessly).
			if b := &x.batches[bi]; b.firsts > 1 && !b.Setup() {
				bad = true
			}
		}
		if len(list) > 1 {
			seen := map[int32]bool{}
			for _, bi := range list {
				b := &x.batches[bi]
				if !b.Setup() {
					bad = true
				}
				for _, r := range b.rows {
					if seen[r] {
						bad = true
					}
					seen[r] = true
				}
			}
		}
		if bad {
			x.reused++
			for _, bi := range list {
				x.batches[bi].bad = true
			}
		}
	}
	for ri := range x.reads {
		rd := &x.reads[ri]
		for ei := rd.from; ei < rd.to; ei++ {
			e := x.ents.At(ei)
			e.state = x.resolve(e, rd.op.Return)
			if e.state != tbEntOK {
				continue
			}
			b := &x.batches[e.batch]
			b.span.read(rd.op.Return)
			if b.firstEnt < 0 {
				b.firstRead, b.firstEnt = int32(ri), ei
			}
		}
	}
	for i := range x.batches {
		b := &x.batches[i]
		end := int64(tbInf)
		if b.Setup() && x.parts[b.part].minActorCall < tbInf {
			end = x.parts[b.part].minActorCall - 1
		}
		b.span.settle(end)
	}
}

func (x *tbIndex) resolve(e *tbEnt, ret int64) tbEntState {
	list := x.byStamp[tbPS{e.part, e.stamp}]
	if len(list) == 0 {
		return tbEntNobody
	}
	e.batch = list[0]
	if e.row >= 0 {
		found := false
		for _, bi := range list {
			if x.batches[bi].writes(e.row) {
				e.batch, found = bi, true
				break
			}
		}
		if !found {
			if x.batches[e.batch].bad {
				return tbEntSkip
			}
			return tbEntRow
		}
	}
	b := &x.batches[e.batch]
	switch {
	case b.bad:
		return tbEntSkip
	case b.span.refused():
		return tbEntRefused
	case ret < b.span.lo:
		return tbEntEarly
	}
	return tbEntOK
}

// entity renders an interned entity back for an excerpt.
func (x *tbIndex) entity(e *tbEnt) checks.Entity {
	out := checks.Entity{Partition: x.partIDs.names[e.part], Value: x.stamps.names[e.stamp]}
	if e.row >= 0 {
		out.Row = x.rows.names[e.row]
	}
	return out
}

// readExcerpt is read ri for a violation's excerpt, its entities cut down to
// the ones given (a page of a thousand entities would drown the few that
// show the violation).
func (x *tbIndex) readExcerpt(ri int32, ents ...int32) *checks.Op {
	if ri < 0 {
		return nil
	}
	op := x.reads[ri].op
	op.Out.Entities = nil
	for _, ei := range ents {
		if ei >= 0 {
			op.Out.Entities = append(op.Out.Entities, x.entity(x.ents.At(ei)))
		}
	}
	return &op
}

// batchExcerpt is the attempt of batch bi to show (nil for bi < 0).
func (x *tbIndex) batchExcerpt(bi int32) *checks.Op {
	if bi < 0 {
		return nil
	}
	return tbAttempt(x.batches[bi].attempts)
}

func (x *tbIndex) stamp(bi int32) string { return x.stamps.names[x.batches[bi].stamp] }

func (x *tbIndex) rowName(r int32) string {
	if r < 0 {
		return "?"
	}
	return x.rows.names[r]
}

// describe names a batch for a message: `batch "s" (#seq)`.
func (x *tbIndex) describe(bi int32) string {
	b := &x.batches[bi]
	who := "batch"
	if b.Setup() {
		who = "setup batch"
	}
	if a := tbAttempt(b.attempts); a != nil {
		return fmt.Sprintf("%s %q (#%d)", who, x.stamps.names[b.stamp], a.Seq)
	}
	return fmt.Sprintf("%s %q", who, x.stamps.names[b.stamp])
}
