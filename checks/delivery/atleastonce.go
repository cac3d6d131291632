package delivery

import (
	"fmt"
	"sort"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/consistency"
)

// AtLeastOnceName is the name scenarios use for the at-least-once check.
const AtLeastOnceName = "at-least-once"

func init() {
	checks.Register(AtLeastOnceName, func() checks.Checker { return NewAtLeastOnce() })
}

// AtLeastOnce checks Jepsen's total-queue property on every queue of a
// history: after the final drain, every acknowledged Put Message was
// delivered by some Get Messages (any actor, the drain included).
//
//   - lost: a put answered OK whose message no get ever returned, neither
//     by its id nor (for a put whose id was not recorded) by its text,
//     and that no delete may have removed;
//   - unexpected: a get returned a message whose id no put returned and
//     whose original text (before the first '#') no put attempt sent;
//   - refused put delivered: a delivered message's text was sent only by
//     put attempts that certainly failed (409, 503, a 4xx other than 500).
//
// The drain is complete for a queue when the last "queue.get" by ActorFinal
// answered OK with no message. Without it the queue is undecided, never
// passed and never failed for a lost message. A message that may still have
// been invisible when that empty get was sent (a get with an unknown outcome
// may have taken it unseen, an update or the put itself may have hidden it)
// is undecided too. Deliveries of one message more than once are allowed
// (at least once) and counted; a put with an unknown outcome whose message
// was never delivered is counted as maybe-enqueued, not found.
type AtLeastOnce struct {
	queues map[string]*aloQueue
	order  []*aloQueue
}

// NewAtLeastOnce returns a fresh checker.
func NewAtLeastOnce() *AtLeastOnce {
	return &AtLeastOnce{queues: map[string]*aloQueue{}}
}

// Name implements Checker.
func (c *AtLeastOnce) Name() string { return AtLeastOnceName }

// aloPut is one logical put: every attempt that sent one text.
type aloPut struct {
	rec       *qRec // the attempt an excerpt shows (the acknowledged one, else the first); dropped once delivered
	acked     bool  // an attempt was answered OK
	maybe     bool  // an attempt may have applied
	ids       int   // acknowledged attempts that returned a message id
	delivered bool  // a get returned its acknowledged message (by id)
	found     bool  // a get returned a message with its text
	hideUntil int64
}

// aloMsg is one message id a put returned or a get delivered.
type aloMsg struct {
	put        *aloPut // the acknowledged put that returned this id
	deliveries int32
	removed    bool   // a delete of it took effect or may have
	text       string // its original text, kept while no put claims the id
	first      *qRec  // its first delivery, kept while no put claims the id
	hideUntil  int64  // until when an update may have kept it invisible
}

type aloQueue struct {
	key, workload string
	puts          map[string]*aloPut // by text
	putOrder      []*aloPut
	msgs          map[string]*aloMsg // by id
	msgOrder      []*aloMsg
	final         *qRec // the last get by ActorFinal
	unknownHide   int64 // until when a get with an unknown outcome may have kept messages invisible
	deliveries    int
}

func (c *AtLeastOnce) queue(op *checks.Op) *aloQueue {
	q := c.queues[op.Key]
	if q == nil {
		q = &aloQueue{key: op.Key, workload: op.Workload, puts: map[string]*aloPut{}, msgs: map[string]*aloMsg{}, unknownHide: checks.LsNegInf}
		c.queues[op.Key] = q
		c.order = append(c.order, q)
	}
	return q
}

// keep copies op for an excerpt; a get narrowed to its message msg (all of
// them when msg < 0).
func (q *aloQueue) Keep(op *checks.Op, msg int) *qRec {
	r := newQRec(op)
	if msg >= 0 && msg < len(r.msgs) {
		r.msgs = []checks.Message{r.msgs[msg]}
	}
	return &r
}

// show rebuilds a kept op for an excerpt.
func (q *aloQueue) show(r *qRec) *checks.Op {
	if r == nil {
		return nil
	}
	return r.Op(q.workload, q.key, -1)
}

func (q *aloQueue) msg(id string) *aloMsg {
	m := q.msgs[id]
	if m == nil {
		m = &aloMsg{hideUntil: checks.LsNegInf}
		q.msgs[id] = m
		q.msgOrder = append(q.msgOrder, m)
	}
	return m
}

// Observe implements Checker.
func (c *AtLeastOnce) Observe(op *checks.Op) {
	switch op.Kind {
	case checks.KindQueuePut:
		c.queue(op).observePut(op)
	case checks.KindQueueGet:
		c.queue(op).observeGet(op)
	case checks.KindQueueUpdate, checks.KindQueueDelete:
		c.queue(op).observeChange(op)
	}
}

func (q *aloQueue) observePut(op *checks.Op) {
	p := q.puts[op.In.Value]
	if p == nil {
		p = &aloPut{hideUntil: checks.LsNegInf}
		q.puts[op.In.Value] = p
		q.putOrder = append(q.putOrder, p)
	}
	switch {
	case op.Outcome == checks.OK:
		first := !p.acked
		p.acked = true
		if op.In.Visibility != nil && *op.In.Visibility > 0 {
			p.hideUntil = max(p.hideUntil, qPossibleEnd(op.Return, *op.In.Visibility))
		}
		if op.Out.MessageID != "" {
			p.ids++
			m := q.msg(op.Out.MessageID)
			m.put, m.text, m.first = p, "", nil
			if m.deliveries > 0 {
				p.delivered = true
			}
		}
		if first && !p.delivered {
			p.rec = q.Keep(op, -1)
		} else if p.delivered {
			p.rec = nil
		}
	case checks.MayHaveApplied(op):
		p.maybe = true
		if op.In.Visibility != nil && *op.In.Visibility > 0 {
			p.hideUntil = max(p.hideUntil, qPossibleEnd(qLatestEffect(op), *op.In.Visibility))
		}
		if p.rec == nil && !p.delivered {
			p.rec = q.Keep(op, -1)
		}
	default:
		if p.rec == nil && !p.delivered {
			p.rec = q.Keep(op, -1)
		}
	}
}

func (q *aloQueue) observeGet(op *checks.Op) {
	if op.Actor == checks.ActorFinal {
		q.final = q.Keep(op, -1)
	}
	if checks.MayHaveApplied(op) {
		v := queueDefaultVisibility
		if op.In.Visibility != nil {
			v = *op.In.Visibility
		}
		q.unknownHide = max(q.unknownHide, qPossibleEnd(qLatestEffect(op), v))
	}
	if op.Outcome != checks.OK {
		return
	}
	for i := range op.Out.Messages {
		d := &op.Out.Messages[i]
		q.deliveries++
		m := q.msg(d.ID)
		m.deliveries++
		if m.put != nil {
			m.put.delivered, m.put.rec = true, nil
			continue
		}
		if m.first == nil {
			m.text = origText(d.Text)
			m.first = q.Keep(op, i)
		}
	}
}

func (q *aloQueue) observeChange(op *checks.Op) {
	if op.In.MessageID == "" || checks.Refused(op) {
		return
	}
	m := q.msg(op.In.MessageID)
	if op.Kind == checks.KindQueueDelete {
		m.removed = true
		return
	}
	if op.In.Visibility != nil {
		m.hideUntil = max(m.hideUntil, qPossibleEnd(qLatestEffect(op), *op.In.Visibility))
	}
}

type aloTotals struct {
	queues, deliveries        int
	acked, maybe              int // logical puts
	maybeFound, maybeNotFound int // unknown puts whose message was or was not delivered
	redelivered, redeliveries int // messages delivered more than once, and their extra deliveries
	removed                   int // acknowledged messages deleted before any delivery
	lost, unexpected          int
	hidden                    int // acknowledged, undelivered, possibly invisible at the final empty get
	undrained                 int // acknowledged, undelivered, on a queue whose drain did not complete
	noDrain                   []string
}

// Finish implements Checker.
func (c *AtLeastOnce) Finish() checks.Result {
	var v checks.Violations
	var t aloTotals
	for _, q := range c.order {
		q.finish(&v, &t)
	}
	var b strings.Builder
	if t.queues == 0 {
		b.WriteString("no queue operations in the history")
	} else {
		fmt.Fprintf(&b, "%s, %s, %d unknown, %s", checks.Plural(t.queues, "queue", "queues"),
			checks.Plural(t.acked, "acknowledged put", "acknowledged puts"), t.maybe, checks.Plural(t.deliveries, "delivery", "deliveries"))
		if t.redeliveries > 0 {
			fmt.Fprintf(&b, " (%s delivered more than once, %d extra)", checks.Plural(t.redelivered, "message", "messages"), t.redeliveries)
		}
	}
	var undecided []string
	if t.queues == 0 {
		undecided = append(undecided, "nothing to check")
	}
	if len(t.noDrain) > 0 {
		undecided = append(undecided, fmt.Sprintf("the final drain did not end with an empty get on %s (%s; %s not delivered yet)",
			checks.Plural(len(t.noDrain), "queue", "queues"), strings.Join(aloFirstN(t.noDrain, 3), ", "),
			checks.Plural(t.undrained, "acknowledged message", "acknowledged messages")))
	}
	if t.hidden > 0 {
		undecided = append(undecided, checks.Plural(t.hidden, "acknowledged message", "acknowledged messages")+
			" never delivered but possibly still invisible at the final empty get")
	}
	switch {
	case v.Total > 0:
		fmt.Fprintf(&b, ": %s (%d lost, %d unexpected)", checks.Plural(v.Total, "violation", "violations"), t.lost, t.unexpected)
		if len(undecided) > 0 {
			b.WriteString("; also undecided: " + strings.Join(undecided, ", "))
		}
	case len(undecided) > 0:
		b.WriteString(": undecided, " + strings.Join(undecided, ", "))
	default:
		b.WriteString(": every acknowledged message delivered")
	}
	if t.maybeFound+t.maybeNotFound > 0 {
		fmt.Fprintf(&b, "; unknown puts: %d delivered, %d maybe-enqueued, not found", t.maybeFound, t.maybeNotFound)
	}
	if t.removed > 0 {
		fmt.Fprintf(&b, "; %s removed by a delete before any delivery", checks.Plural(t.removed, "message", "messages"))
	}
	r := v.Result(AtLeastOnceName, b.String())
	if r.Verdict == checks.Pass && len(undecided) > 0 {
		r.Verdict = checks.Undecided
	}
	decided := 0
	if t.queues > 0 {
		// Acknowledged puts whose fate the drain settled, and deliveries.
		decided = t.acked - t.undrained - t.hidden + t.deliveries + t.maybeFound + t.maybeNotFound
	}
	if t.maybe > 0 {
		r.Unknown = &checks.UnknownWrites{Applied: t.maybeFound, Open: t.maybe - t.maybeFound}
	}
	return r.WithDecided(decided).Of(t.acked + t.deliveries + t.maybe)
}

func aloFirstN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string(nil), s[:n]...), "...")
}

func (q *aloQueue) finish(v *checks.Violations, t *aloTotals) {
	t.queues++
	t.deliveries += q.deliveries

	// Messages no acknowledged put claims by id: find their put by text.
	for _, m := range q.msgOrder {
		if m.deliveries > 1 {
			t.redelivered++
			t.redeliveries += int(m.deliveries) - 1
		}
		if m.put != nil || m.deliveries == 0 {
			continue
		}
		p := q.puts[m.text]
		switch {
		case p == nil:
			t.unexpected++
			v.Add(q.key, fmt.Sprintf("unexpected message: %s (text %q) was delivered but no put returned its id or sent its text",
				m.first.msgs[0].ID, qShortText(m.text)), checks.Excerpt(q.show(m.first))...)
		case !p.acked && !p.maybe:
			t.unexpected++
			v.Add(q.key, fmt.Sprintf("a refused put was delivered: %s (text %q) was delivered but every put of its text was refused (%s)",
				m.first.msgs[0].ID, qShortText(m.text), consistency.Answer(q.show(p.rec))), checks.Excerpt(q.show(p.rec), q.show(m.first))...)
		default:
			p.found = true
		}
	}

	drained := q.final != nil && q.final.outcome == checks.OK && len(q.final.msgs) == 0
	if !drained {
		t.noDrain = append(t.noDrain, q.key)
	}
	var lost []*aloPut
	for _, p := range q.putOrder {
		switch {
		case p.acked:
			t.acked++
		case p.maybe:
			t.maybe++
			if p.found {
				t.maybeFound++
			} else {
				t.maybeNotFound++
			}
			continue
		default:
			continue
		}
		if p.delivered || (p.ids == 0 && p.found) {
			continue
		}
		lost = append(lost, p)
	}
	if len(lost) == 0 {
		return
	}
	// Acknowledged puts whose message was never delivered: removed by a
	// delete, possibly still in the queue, or lost.
	hide := make(map[*aloPut]int64, len(lost))
	for _, p := range lost {
		hide[p] = max(p.hideUntil, q.unknownHide)
		if p.rec != nil {
			hide[p] = max(hide[p], p.rec.ret)
		}
	}
	removed := map[*aloPut]bool{}
	for _, m := range q.msgOrder {
		if m.put == nil || m.put.delivered {
			continue
		}
		if _, ok := hide[m.put]; !ok {
			continue
		}
		if m.removed {
			removed[m.put] = true
		}
		hide[m.put] = max(hide[m.put], m.hideUntil)
	}
	sort.SliceStable(lost, func(i, j int) bool { return lost[i].rec.seq < lost[j].rec.seq })
	for _, p := range lost {
		switch {
		case removed[p]:
			t.removed++
		case !drained:
			t.undrained++
		case q.final.call <= hide[p]:
			t.hidden++
		default:
			t.lost++
			id := p.rec.outMsgID
			if id == "" {
				id = fmt.Sprintf("the message of %q", p.rec.value)
			}
			v.Add(q.key, fmt.Sprintf("lost message: %s was acknowledged by #%d but never delivered, and the final drain ended empty (#%d)",
				id, p.rec.seq, q.final.seq), checks.Excerpt(q.show(p.rec), q.show(q.final))...)
		}
	}
}
