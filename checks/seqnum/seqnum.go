// Package seqnum judges a page blob's sequence number used as a
// compare-and-swap counter (blob.page-seqnum-cas): the chain of numbers
// read off the acknowledged CASes, the answers that of unknown outcome
// and the final read must show no lost update. It registers the
// seqnum-chain check with checks.
//
// It may use checks.
package seqnum

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
)

// Name is the name scenarios use for the check.
const Name = "seqnum-chain"

// The operations the check reads, as runner/blob records them.
const (
	// KindCreate creates the page blob; its input value is "N TAG", N the
	// initial sequence number.
	KindCreate = "blob.page.create"
	// KindSeqNum changes the sequence number (Set Blob Properties,
	// increment); its input value is "N TAG", N the number the CAS was
	// conditioned on, and its read value the number the service answered.
	KindSeqNum = "blob.page.seqnum"
	// KindProps reads the sequence number (Get Blob Properties); the final
	// actor's read is the final number.
	KindProps = "blob.page.props"
)

func init() {
	checks.Register(Name, func() checks.Checker { return New() })
}

// Chain is the seqnum-chain check. For each key (page blob) it holds:
//
//   - step: an acknowledged CAS conditioned on N answered N+1 (the number
//     moved by exactly one from the value it was conditioned on);
//   - fork: no two acknowledged CASes were conditioned on the same N (two
//     writers both won from N: a lost update);
//   - chain: with the initial number S and the final read F, every step
//     k -> k+1 for S <= k < F was taken by one acknowledged CAS from k, or
//     else by one of unknown outcome from k (which then landed); no
//     acknowledged CAS reached past F (a lost update) and F is not below S.
//
// A CAS of unknown outcome (a timeout, a lost answer, a 500) landed when
// its step is otherwise untaken; it did not when an acknowledged CAS took
// its step or its step is at or past F (at most once, never both: the
// ETag condition of its increment lets at most one CAS from N through).
// Unknown outcomes only explain a step; they never hide a fork.
type Chain struct {
	keys  map[string]*key
	order []*key
	v     checks.Violations
	t     totals
}

type totals struct {
	keys, acked, maybe, refused, malformed, noFinal, noSetup int
	decided, judgeable                                       int
	unknown                                                  checks.UnknownWrites
}

type cas struct {
	from, to int64
	op       checks.Op
}

type key struct {
	name           string
	setup          *checks.Op
	initial        int64
	acked, maybe   []cas
	final          *checks.Op
	finalN         int64
	malformed      int
	refused        int
	malformedFinal bool
}

// New returns a fresh check.
func New() *Chain { return &Chain{keys: map[string]*key{}} }

// Name implements checks.Checker.
func (c *Chain) Name() string { return Name }

// Groups implements checks.KeyLocal.
func (c *Chain) Groups(int) {}

func (c *Chain) key(op *checks.Op) *key {
	k := c.keys[op.Key]
	if k == nil {
		k = &key{name: op.Key}
		c.keys[op.Key] = k
		c.order = append(c.order, k)
	}
	return k
}

// Observe implements checks.Checker.
func (c *Chain) Observe(op *checks.Op) {
	switch op.Kind {
	case KindCreate:
		if op.Outcome != checks.OK {
			return
		}
		k := c.key(op)
		cv, err := checks.ParseCounterValue(op.In.Value)
		if err != nil {
			k.malformed++
			return
		}
		o := *op
		k.setup, k.initial = &o, cv.N
	case KindSeqNum:
		k := c.key(op)
		cv, err := checks.ParseCounterValue(op.In.Value)
		if err != nil {
			k.malformed++
			return
		}
		switch {
		case op.Outcome == checks.OK:
			to, err := strconv.ParseInt(op.Out.Value, 10, 64)
			if err != nil {
				k.malformed++ // an acknowledged increment that did not say the number
				return
			}
			k.acked = append(k.acked, cas{from: cv.N, to: to, op: *op})
		case checks.MayHaveApplied(op):
			k.maybe = append(k.maybe, cas{from: cv.N, op: *op})
		default:
			k.refused++
		}
	case KindProps:
		if op.Actor != checks.ActorFinal || op.Outcome != checks.OK {
			return
		}
		k := c.key(op)
		n, err := strconv.ParseInt(op.Out.Value, 10, 64)
		o := *op
		k.final, k.finalN, k.malformedFinal = &o, n, err != nil
	}
}

// EndGroup implements checks.KeyLocal.
func (c *Chain) EndGroup() {
	for _, k := range c.order {
		k.judge(&c.v, &c.t)
	}
	c.keys, c.order = map[string]*key{}, nil
}

// judge checks one key's chain.
func (k *key) judge(v *checks.Violations, t *totals) {
	t.keys++
	t.acked += len(k.acked)
	t.maybe += len(k.maybe)
	t.refused += k.refused
	t.malformed += k.malformed
	t.judgeable += len(k.acked) + len(k.maybe)

	// step: each acknowledged CAS moved the number by exactly one.
	ackedFrom := map[int64][]int{}
	for i, a := range k.acked {
		ackedFrom[a.from] = append(ackedFrom[a.from], i)
		if a.to != a.from+1 {
			v.Add(k.name, fmt.Sprintf("CAS not by one: an increment conditioned on %d was acknowledged with sequence number %d (moved by %d), so the number had moved under a write conditioned on %d",
				a.from, a.to, a.to-a.from, a.from), a.op)
		}
	}
	// fork: two acknowledged CASes from the same N.
	froms := make([]int64, 0, len(ackedFrom))
	for n := range ackedFrom {
		froms = append(froms, n)
	}
	sort.Slice(froms, func(i, j int) bool { return froms[i] < froms[j] })
	for _, n := range froms {
		if is := ackedFrom[n]; len(is) > 1 {
			ops := make([]checks.Op, 0, checks.MaxExcerpt)
			for _, i := range is[:min(len(is), checks.MaxExcerpt)] {
				ops = append(ops, k.acked[i].op)
			}
			v.Add(k.name, fmt.Sprintf("two CASes from one number: %d increments conditioned on sequence number %d were acknowledged (a lost update)", len(is), n), ops...)
		}
	}
	t.decided += len(k.acked)

	if k.setup == nil || k.final == nil || k.malformedFinal {
		if k.setup == nil {
			t.noSetup++
		} else {
			t.noFinal++
		}
		t.unknown.Open += len(k.maybe)
		return
	}
	s, f := k.initial, k.finalN
	t.judgeable++ // the final number, judged against the chain
	t.decided++
	if f < s {
		v.Add(k.name, fmt.Sprintf("number went back: the final sequence number %d is below the initial %d", f, s), *k.setup, *k.final)
	}
	// No acknowledged CAS reached past the final number.
	for _, a := range k.acked {
		if a.from >= f {
			v.Add(k.name, fmt.Sprintf("lost CAS: an increment from %d was acknowledged, yet the final sequence number is %d", a.from, f), a.op, *k.final)
		}
	}
	// Unknown CASes: each from N lands when N's step is taken by no
	// acknowledged CAS and lies below F; a step several of them could
	// have taken is taken by one of them, unknown which (open).
	maybeFrom := map[int64][]int{}
	for i, m := range k.maybe {
		if m.from < s || m.from >= f || len(ackedFrom[m.from]) > 0 {
			t.unknown.NotApplied++
			t.decided++
			continue
		}
		maybeFrom[m.from] = append(maybeFrom[m.from], i)
	}
	for _, is := range maybeFrom {
		if len(is) == 1 {
			t.unknown.Applied++
			t.decided++
		} else {
			t.unknown.Open += len(is)
		}
	}
	// chain: every step from s to f was taken by some CAS. The steps
	// taken are few (one per CAS); the rest of [s, f) are gaps, of which
	// the first few are listed.
	taken := make([]int64, 0, len(ackedFrom)+len(maybeFrom))
	for n := range ackedFrom {
		if n >= s && n < f {
			taken = append(taken, n)
		}
	}
	for n := range maybeFrom {
		taken = append(taken, n) // in [s, f) and untaken by an acknowledged CAS
	}
	sort.Slice(taken, func(i, j int) bool { return taken[i] < taken[j] })
	gaps := int(min(f-s-int64(len(taken)), 1<<30))
	var missing []int64
	for n, i := s, 0; n < f && len(missing) < min(gaps, checks.MaxViolations); n++ {
		if i < len(taken) && taken[i] == n {
			i++
			continue
		}
		missing = append(missing, n)
	}
	for _, n := range missing {
		v.Add(k.name, fmt.Sprintf("step without a CAS: the sequence number went from %d to %d (final %d) and no acknowledged or possible CAS was conditioned on %d", n, n+1, f, n), *k.final)
	}
	v.Count("step without a CAS", max(0, gaps-len(missing)))
}

// Finish implements checks.Checker.
func (c *Chain) Finish() checks.Result {
	c.EndGroup()
	t := &c.t
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s acknowledged, %d refused or lost, %d unknown (%d landed, %d did not, %d open)",
		checks.Plural(t.keys, "page blob", "page blobs"), checks.Plural(t.acked, "CAS", "CASes"), t.refused, t.maybe,
		t.unknown.Applied, t.unknown.NotApplied, t.unknown.Open)
	var undecided []string
	if t.keys == 0 {
		undecided = append(undecided, "no page blob CAS in the history")
	}
	if t.noFinal > 0 {
		undecided = append(undecided, "no final read of "+checks.Plural(t.noFinal, "page blob", "page blobs"))
	}
	if t.noSetup > 0 {
		undecided = append(undecided, "no initial number of "+checks.Plural(t.noSetup, "page blob", "page blobs"))
	}
	if t.malformed > 0 {
		undecided = append(undecided, checks.Plural(t.malformed, "record", "records")+" without a claimed or answered number")
	}
	r := c.v.Conclude(Name, &b, undecided, "no lost update, every step taken by one CAS", "")
	u := t.unknown
	r.Unknown = &u
	return r.WithDecided(t.decided).Of(t.judgeable)
}
