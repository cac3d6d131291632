package filerest

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
)

// RangeWritesName is the range-writes check as scenarios name it.
const RangeWritesName = "range-writes"

func init() {
	checks.Register(RangeWritesName, func() checks.Checker { return NewRangeWrites() })
}

// rangeWrite is one Put Range: its tag, the slots [lo, lo+n) it covered.
type rangeWrite struct {
	op    checks.Op
	tag   string
	lo, n int
	// maybe: it may have applied (acknowledged, or of unknown outcome);
	// not maybe: it certainly did not (refused).
	maybe bool
}

func (w *rangeWrite) covers(slot int) bool { return slot >= w.lo && slot < w.lo+w.n }

// parseRange reads a write's recorded value "TAG@LO+N".
func parseRange(v string) (tag string, lo, n int, ok bool) {
	tag, rest, ok1 := strings.Cut(v, "@")
	l, c, ok2 := strings.Cut(rest, "+")
	var err1, err2 error
	lo, err1 = strconv.Atoi(l)
	n, err2 = strconv.Atoi(c)
	return tag, lo, n, ok1 && ok2 && err1 == nil && err2 == nil && tag != "" && lo >= 0 && n > 0
}

// RangeWrites is the range-writes check (see the package doc). A final
// read records each slot's writer tag, or "?" for a slot that is not one
// whole record of that slot.
type RangeWrites struct {
	writes map[string]map[string]*rangeWrite // key -> tag -> write
	finals map[string]checks.Op
	seen   int
}

// NewRangeWrites makes the check.
func NewRangeWrites() *RangeWrites {
	return &RangeWrites{writes: map[string]map[string]*rangeWrite{}, finals: map[string]checks.Op{}}
}

func (c *RangeWrites) Name() string { return RangeWritesName }

func (c *RangeWrites) Observe(op *checks.Op) {
	switch {
	case op.Kind == opPutRange:
		tag, lo, n, ok := parseRange(op.In.Value)
		if !ok {
			return
		}
		c.seen++
		ws := c.writes[op.Key]
		if ws == nil {
			ws = map[string]*rangeWrite{}
			c.writes[op.Key] = ws
		}
		maybe := op.Outcome == checks.OK || op.Outcome == checks.Unknown || op.Out.Status >= 500
		if w := ws[tag]; w != nil {
			w.maybe = w.maybe || maybe // a retry of the same write
			if op.Outcome == checks.OK {
				w.op = *op
			}
			return
		}
		ws[tag] = &rangeWrite{op: *op, tag: tag, lo: lo, n: n, maybe: maybe}
	case op.Kind == opGet && op.Actor == checks.ActorFinal && op.Outcome == checks.OK:
		c.finals[op.Key] = *op
	}
}

func (c *RangeWrites) Finish() checks.Result {
	var v checks.Violations
	var undecided []string
	slots := 0
	keys := make([]string, 0, len(c.writes))
	for k := range c.writes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fin, ok := c.finals[k]
		if !ok {
			undecided = append(undecided, k+": no final read")
			continue
		}
		slots += c.judge(&v, k, fin)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d writes, %d slots judged", RangeWritesName, c.seen, slots)
	r := v.Conclude(RangeWritesName, &b, undecided, "every slot one whole record of one write, in an order Put Range allows", "")
	return r.WithDecided(slots).Of(slots + len(undecided))
}

// judge checks key's final read against its writes; it returns the slots
// judged.
func (c *RangeWrites) judge(v *checks.Violations, k string, fin checks.Op) int {
	ws := c.writes[k]
	got := strings.Fields(fin.Out.Value)
	winners := map[string]*rangeWrite{}
	var order []*rangeWrite
	for slot, tag := range got {
		w := ws[tag]
		switch {
		case tag == "?":
			v.Add(k, fmt.Sprintf("torn record: slot %d is not one whole record of one write (a mix, or bytes no write wrote)", slot), fin)
			continue
		case w == nil:
			v.Add(k, fmt.Sprintf("unknown writer: slot %d holds a record of %s, which no recorded write wrote", slot, tag), fin)
			continue
		case !w.maybe:
			v.Add(k, fmt.Sprintf("refused write applied: slot %d holds the record of %s, whose Put Range was refused", slot, tag), w.op, fin)
			continue
		case !w.covers(slot):
			v.Add(k, fmt.Sprintf("misplaced record: slot %d holds a record of %s, which covered slots %d-%d", slot, tag, w.lo, w.lo+w.n-1), w.op, fin)
			continue
		}
		if winners[tag] == nil {
			winners[tag] = w
			order = append(order, w)
		}
		// An acknowledged write of this slot that began after w was
		// acknowledged is later than w in any order: w cannot be last. (A
		// write of unknown outcome may have applied at any later time.)
		for _, x := range ws {
			if w.op.Outcome != checks.OK {
				break
			}
			if x != w && x.op.Outcome == checks.OK && x.covers(slot) && x.op.Call > w.op.Return {
				v.Add(k, fmt.Sprintf("stale slot: slot %d holds %s, but %s wrote it after %s was acknowledged and was acknowledged too", slot, tag, x.tag, tag), w.op, x.op, fin)
				break
			}
		}
	}
	// Among the writes seen, "a before b" when b's record is in a slot a
	// also covered (b was applied last there), or a was acknowledged
	// before b was called. A cycle is a mix no order of atomic writes
	// gives.
	before := map[*rangeWrite][]*rangeWrite{}
	for slot, tag := range got {
		b := winners[tag]
		if b == nil {
			continue
		}
		for _, a := range order {
			if a != b && a.covers(slot) {
				before[a] = append(before[a], b)
			}
		}
	}
	for _, a := range order {
		for _, b := range order {
			if a != b && a.op.Outcome == checks.OK && a.op.Return < b.op.Call {
				before[a] = append(before[a], b)
			}
		}
	}
	if cyc := cycle(order, before); cyc != nil {
		ops, tags := make([]checks.Op, 0, len(cyc)+1), make([]string, len(cyc))
		for i, w := range cyc {
			ops, tags[i] = append(ops, w.op), w.tag
		}
		v.Add(k, fmt.Sprintf("mixed writes: the slots show %s each applied after the other (no order of whole Put Range writes leaves this)", strings.Join(tags, ", ")), append(ops, fin)...)
	}
	return len(got)
}

// cycle returns a cycle of the graph (nodes, edges) or nil.
func cycle(nodes []*rangeWrite, edges map[*rangeWrite][]*rangeWrite) []*rangeWrite {
	const white, grey, black = 0, 1, 2
	color := map[*rangeWrite]int{}
	var stack []*rangeWrite
	var found []*rangeWrite
	var visit func(n *rangeWrite) bool
	visit = func(n *rangeWrite) bool {
		color[n] = grey
		stack = append(stack, n)
		for _, m := range edges[n] {
			switch color[m] {
			case grey:
				for i := len(stack) - 1; i >= 0; i-- {
					if stack[i] == m {
						found = append([]*rangeWrite(nil), stack[i:]...)
						return true
					}
				}
			case white:
				if visit(m) {
					return true
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[n] = black
		return false
	}
	for _, n := range nodes {
		if color[n] == white && visit(n) {
			return found
		}
	}
	return nil
}
