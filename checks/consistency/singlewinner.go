package consistency

import (
	"fmt"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
)

// SingleWinnerName is the name scenarios use for the single-winner check.
const SingleWinnerName = "single-winner"

func init() {
	checks.Register(SingleWinnerName, func() checks.Checker { return NewSingleWinner() })
}

// SingleWinner checks blob.create-once: per round key, "blob.create" with
// If-None-Match: * must let at most one attempt create the blob, and the
// final quiet read ("blob.get" by ActorFinal) must hold the creator's value.
//
//   - two attempts answered 201;
//   - the final value is not the 201 attempt's, belongs to no attempt of the
//     round, or belongs to a refused attempt;
//   - 409 BlobAlreadyExists while no attempt could have created the blob: no
//     201 and no unknown attempt, or every candidate creator was sent after
//     the 409 came back (times are from one monotonic clock);
//   - the final read finds no blob although an attempt got 201 or 409.
//
// An unknown attempt (timeout, 500) may be the creator; it never has to be.
type SingleWinner struct {
	rounds map[string]*swRound
	order  []*swRound
	v      checks.Violations // of the rounds judged so far (EndGroup)
	t      swTotals
}

// NewSingleWinner returns a fresh checker.
func NewSingleWinner() *SingleWinner {
	return &SingleWinner{rounds: map[string]*swRound{}}
}

// Name implements Checker.
func (c *SingleWinner) Name() string { return SingleWinnerName }

type swRound struct {
	key, workload string
	attempts      []checks.Op
	final         *checks.Op // the last final read that answered (a value or 404)
}

// Observe implements Checker.
func (c *SingleWinner) Observe(op *checks.Op) {
	isCreate := checks.Canon(op.Kind) == checks.KindBlobCreate
	isFinal := checks.Canon(op.Kind) == checks.KindBlobGet && op.Actor == checks.ActorFinal
	if !isCreate && !isFinal {
		return
	}
	r := c.rounds[op.Key]
	if r == nil {
		r = &swRound{key: op.Key, workload: op.Workload}
		c.rounds[op.Key] = r
		c.order = append(c.order, r)
	}
	switch {
	case isCreate:
		r.attempts = append(r.attempts, checks.CompactOp(op, r.workload, checks.KindBlobCreate, r.key))
	case op.Outcome == checks.OK || checks.IsNotFound(op):
		f := checks.CompactOp(op, r.workload, checks.KindBlobGet, r.key)
		r.final = &f
	}
}

type swTotals struct {
	rounds, attempts, unknown, created, noFinal, malformed int
}

// Groups implements KeyLocal.
func (c *SingleWinner) Groups(int) {}

// EndGroup implements KeyLocal: it judges the rounds seen so far.
func (c *SingleWinner) EndGroup() {
	for _, r := range c.order {
		r.finish(&c.v, &c.t)
	}
	c.rounds, c.order = map[string]*swRound{}, nil
}

// Finish implements Checker.
func (c *SingleWinner) Finish() checks.Result {
	c.EndGroup()
	v, t := &c.v, &c.t
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s, %d unknown", checks.Plural(t.rounds, "round", "rounds"), checks.Plural(t.attempts, "attempt", "attempts"), t.unknown)
	var undecided []string
	if t.rounds == 0 {
		undecided = append(undecided, "nothing to check")
	}
	if t.noFinal > 0 {
		undecided = append(undecided, "no final read of "+checks.Plural(t.noFinal, "round", "rounds"))
	}
	if t.malformed > 0 {
		undecided = append(undecided, checks.Plural(t.malformed, "attempt", "attempts")+" with no counter value or a reused tag")
	}
	switch {
	case v.Total > 0:
		b.WriteString(": " + checks.Plural(v.Total, "violation", "violations"))
	case len(undecided) > 0:
		b.WriteString(": undecided, " + strings.Join(undecided, ", "))
	case t.created == t.rounds:
		b.WriteString(": exactly one creator per round")
	default:
		fmt.Fprintf(&b, ": at most one creator per round (%d never created)", t.rounds-t.created)
	}
	r := v.Result(SingleWinnerName, b.String())
	if r.Verdict == checks.Pass && len(undecided) > 0 {
		r.Verdict = checks.Undecided
	}
	if t.rounds == t.noFinal {
		return r.WithDecided(0).Of(t.attempts + t.rounds)
	}
	return r.WithDecided(t.attempts + t.rounds - t.noFinal).Of(t.attempts + t.rounds)
}

func (r *swRound) finish(v *checks.Violations, t *swTotals) {
	t.rounds++
	t.attempts += len(r.attempts)
	before := v.Total

	var oks, maybes, conflicts []*checks.Op
	type written struct {
		n int64
		i int
	}
	byTag := make(map[string]written, len(r.attempts))
	for i := range r.attempts {
		a := &r.attempts[i]
		cv, err := checks.ParseCounterValue(a.In.Value)
		if _, dup := byTag[cv.Tag]; err != nil || dup {
			t.malformed++
		} else {
			byTag[cv.Tag] = written{cv.N, i}
		}
		switch {
		case a.Outcome == checks.OK:
			oks = append(oks, a)
		case checks.MayHaveApplied(a):
			maybes = append(maybes, a)
		case a.Outcome == checks.Conflict:
			conflicts = append(conflicts, a)
		}
	}
	t.unknown += len(maybes)

	if len(oks) > 1 {
		v.AddKind("two creates succeeded", r.key, fmt.Sprintf("%d creates of one blob succeeded (201): #%d and #%d were both told they created it", len(oks), oks[0].Seq, oks[1].Seq),
			checks.Excerpt(oks...)...)
	}

	// The attempt whose value the blob holds.
	var creator *checks.Op
	if len(oks) == 1 {
		creator = oks[0]
	}
	if r.final != nil && r.final.Outcome == checks.OK {
		fv, err := checks.ParseCounterValue(r.final.Out.Value)
		w, found := byTag[fv.Tag]
		switch {
		case err != nil || !found || w.n != fv.N:
			v.Add(r.key, fmt.Sprintf("final value belongs to no create attempt of this round: %q", r.final.Out.Value), checks.Excerpt(r.final)...)
			creator = nil
		default:
			a := &r.attempts[w.i]
			switch {
			case len(oks) == 1 && a != oks[0]:
				v.AddKind("the blob holds another attempt's value", r.key, fmt.Sprintf("the blob holds the value of #%d (%s), but #%d was told it created it", a.Seq, Answer(a), oks[0].Seq),
					checks.Excerpt(oks[0], a, r.final)...)
				creator = nil
			case len(oks) == 0 && checks.Refused(a):
				v.Add(r.key, fmt.Sprintf("a refused create took effect: the blob holds the value of #%d, which was answered %s", a.Seq, Answer(a)),
					checks.Excerpt(a, r.final)...)
				creator = nil
			case len(oks) <= 1:
				creator = a
			}
		}
	}

	first := func(ops []*checks.Op, n int) []*checks.Op { return ops[:min(n, len(ops))] }
	if len(oks) == 0 && len(conflicts) > 0 && len(maybes) == 0 {
		v.Add(r.key, fmt.Sprintf("409 BlobAlreadyExists but no attempt created it: no 201 and no attempt with an unknown outcome among %d", len(r.attempts)),
			checks.Excerpt(append(first(conflicts, 2), r.final)...)...)
	}
	if r.final != nil && checks.IsNotFound(r.final) && v.Total == before {
		switch {
		case len(oks) > 0:
			v.Add(r.key, fmt.Sprintf("a created blob vanished: #%d was answered 201 but the final read found no blob", oks[0].Seq),
				checks.Excerpt(oks[0], r.final)...)
		case len(conflicts) > 0:
			v.AddKind("409 BlobAlreadyExists but no blob", r.key, fmt.Sprintf("409 BlobAlreadyExists (#%d) but the final read found no blob", conflicts[0].Seq),
				checks.Excerpt(conflicts[0], r.final)...)
		}
	}

	// Real time: the blob existed when a 409 was answered, so its creator
	// must have been sent before that 409 returned.
	if len(conflicts) > 0 && v.Total == before {
		c0 := conflicts[0]
		for _, c := range conflicts[1:] {
			if c.Return < c0.Return {
				c0 = c
			}
		}
		switch {
		case creator != nil:
			if c0.Return < creator.Call {
				v.AddKind("409 BlobAlreadyExists before the create", r.key, fmt.Sprintf("409 BlobAlreadyExists (#%d) returned before the creating attempt #%d was sent", c0.Seq, creator.Seq),
					checks.Excerpt(c0, creator)...)
			}
		case len(oks) == 0:
			m0 := maybes[0]
			for _, m := range maybes[1:] {
				if m.Call < m0.Call {
					m0 = m
				}
			}
			if c0.Return < m0.Call {
				v.Add(r.key, fmt.Sprintf("409 BlobAlreadyExists but no attempt created it: #%d returned before any attempt that could have created the blob was sent (first: #%d)", c0.Seq, m0.Seq),
					checks.Excerpt(c0, m0)...)
			}
		}
	}

	switch {
	case r.final == nil:
		t.noFinal++
	case len(oks) > 0 || len(conflicts) > 0 || r.final.Outcome == checks.OK:
		t.created++
	}
}
