package delivery

import (
	"fmt"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
)

// PopReceiptName is the name scenarios use for the pop-receipt check.
const PopReceiptName = "pop-receipt"

func init() {
	checks.Register(PopReceiptName, func() checks.Checker { return NewPopReceipt() })
}

// PopReceipt checks that a queue message's pop receipts form a chain: per
// queue and message, a receipt is issued by the put that returned the
// message, by every get answered OK that returned it, and by every update
// answered OK; each one supersedes the receipts issued before it.
//
//   - stale receipt accepted: an update or delete with receipt p was
//     answered OK although another call had issued a different receipt for
//     the message after p's issuer returned (sent after it) and before the
//     update or delete was sent (returned before it);
//   - deleted message reappeared: a get returned the message, or an update
//     or delete of it was answered OK, although it was sent after a delete
//     of the message had been answered OK;
//   - dequeue count did not rise: a get returned the message with a dequeue
//     count no higher than that of a get that had returned it before this
//     one was sent, or lower than one plus the number of gets that had
//     returned it before (every get that returns a message counts).
//
// Calls with an unknown outcome never issue a receipt here: a get that may
// have delivered a message unseen only raises its dequeue count, and an
// update that may have applied only makes older receipts staler, so both
// only excuse. A receipt no recorded call returned is counted, not judged.
type PopReceipt struct {
	qs qQueues
}

// NewPopReceipt returns a fresh checker.
func NewPopReceipt() *PopReceipt {
	return &PopReceipt{qs: newQQueues(func(k qKind, op *checks.Op) bool {
		return k == qPut || k == qDeliver || op.Outcome == checks.OK
	})}
}

// Name implements Checker.
func (c *PopReceipt) Name() string { return PopReceiptName }

// Observe implements Checker.
func (c *PopReceipt) Observe(op *checks.Op) { c.qs.observe(op) }

type prTotals struct {
	queues, msgs, receipts, updates, deletes, unknownReceipts, noCount int
}

// Finish implements Checker.
func (c *PopReceipt) Finish() checks.Result {
	var v checks.Violations
	var t prTotals
	for _, q := range c.qs.order {
		t.queues++
		for _, m := range q.order {
			q.checkReceipts(m, &v, &t)
		}
	}
	var b strings.Builder
	if t.queues == 0 {
		b.WriteString("no queue operations in the history")
	} else {
		fmt.Fprintf(&b, "%s, %s, %s, %s and %s accepted", checks.Plural(t.queues, "queue", "queues"), checks.Plural(t.msgs, "message", "messages"),
			checks.Plural(t.receipts, "receipt", "receipts"), checks.Plural(t.updates, "update", "updates"), checks.Plural(t.deletes, "delete", "deletes"))
	}
	if t.unknownReceipts > 0 {
		fmt.Fprintf(&b, " (%d with a receipt no recorded call returned)", t.unknownReceipts)
	}
	if t.noCount > 0 {
		fmt.Fprintf(&b, ", %s without a dequeue count", checks.Plural(t.noCount, "delivery", "deliveries"))
	}
	switch {
	case v.Total > 0:
		b.WriteString(": " + checks.Plural(v.Total, "violation", "violations"))
	case t.msgs == 0:
		b.WriteString(": undecided, nothing to check")
	default:
		b.WriteString(": no superseded receipt accepted, no deleted message reappeared, dequeue counts rose")
	}
	r := v.Result(PopReceiptName, b.String())
	// No message (t.msgs == 0) means no receipt, update or delete either:
	// decided(0) makes a Pass Undecided.
	return r.WithDecided(t.receipts + t.updates + t.deletes).Of(t.receipts + t.updates + t.deletes)
}

// prIssue is a call that issued a receipt for a message.
type prIssue struct {
	e       *qEv
	receipt string
}

func (q *qQueue) issued(e *qEv) string {
	switch e.kind {
	case qPut, qUpdate:
		return q.rec(e).outReceipt
	case qDeliver:
		return q.message(e).PopReceipt
	}
	return ""
}

func (q *qQueue) checkReceipts(m *qMsg, v *checks.Violations, t *prTotals) {
	t.msgs++
	var issues []prIssue
	var uses, gets, deletes []*qEv
	for i := range m.evs {
		e := &m.evs[i]
		switch e.kind {
		case qDeliver:
			gets = append(gets, e)
		case qUpdate:
			t.updates++
			uses = append(uses, e)
		case qDelete:
			t.deletes++
			uses = append(uses, e)
			deletes = append(deletes, e)
		}
		if p := q.issued(e); p != "" {
			issues = append(issues, prIssue{e, p})
		}
	}
	t.receipts += len(issues)
	byReceipt := make(map[string]*prIssue, len(issues))
	for i := range issues {
		is := &issues[i]
		if b := byReceipt[is.receipt]; b == nil || is.e.ret > b.e.ret {
			byReceipt[is.receipt] = is
		}
	}
	byRet := make([]*qEv, len(issues))
	for i := range issues {
		byRet[i] = issues[i].e
	}
	qByRet(byRet)
	flagged := map[*qEv]bool{}

	// A superseded receipt accepted.
	for _, u := range uses {
		p := q.rec(u).receipt
		is := byReceipt[p]
		if is == nil {
			t.unknownReceipts++
			continue
		}
		for _, x := range byRet {
			if x.ret >= u.call {
				break
			}
			if x == is.e || x.call <= is.e.ret || q.issued(x) == p {
				continue
			}
			flagged[u] = true
			what := "delete"
			if u.kind == qUpdate {
				what = "update"
			}
			v.Add(q.key, fmt.Sprintf("stale pop receipt accepted: the %s #%d of message %s was answered OK with the receipt issued by #%d, although #%d had issued a newer one and returned before it was sent",
				what, q.seq(u), m.id, q.seq(is.e), q.seq(x)), checks.Excerpt(q.show(u), q.show(is.e), q.show(x))...)
			break
		}
	}

	// A deleted message reappeared.
	var del *qEv
	for _, d := range deletes {
		if del == nil || d.ret < del.ret {
			del = d
		}
	}
	if del != nil {
		var first *qEv
		after := 0
		for i := range m.evs {
			e := &m.evs[i]
			if e == del || e.kind == qPut || e.call <= del.ret || flagged[e] {
				continue
			}
			after++
			flagged[e] = true
			if first == nil || e.call < first.call {
				first = e
			}
		}
		if first != nil {
			how := map[qKind]string{qDeliver: "delivered by", qUpdate: "updated (OK) by", qDelete: "deleted again (OK) by"}[first.kind]
			v.Add(q.key, fmt.Sprintf("deleted message reappeared: %s was deleted by #%d, then %s #%d, sent after the delete returned (%s on it after its delete)",
				m.id, q.seq(del), how, q.seq(first), checks.Plural(after, "call", "calls")), checks.Excerpt(q.show(del), q.show(first))...)
		}
	}

	// Dequeue counts rise.
	if len(gets) < 2 {
		return
	}
	getsByRet := append([]*qEv(nil), gets...)
	qByRet(getsByRet)
	qByCall(gets)
	var top *qEv // the earlier delivery with the highest count
	var topCount int64
	n := 0
	for _, d := range gets {
		for n < len(getsByRet) && getsByRet[n].ret < d.call {
			e := getsByRet[n]
			if c := q.message(e).DequeueCount; c > topCount {
				top, topCount = e, c
			}
			n++
		}
		c := q.message(d).DequeueCount
		if c == 0 {
			t.noCount++
			continue
		}
		if flagged[d] {
			continue
		}
		switch {
		case top != nil && c <= topCount:
			flagged[d] = true
			v.Add(q.key, fmt.Sprintf("dequeue count did not rise: #%d returned message %s with dequeue count %d, sent after #%d had returned it with %d",
				q.seq(d), m.id, c, q.seq(top), topCount), checks.Excerpt(q.show(top), q.show(d))...)
		case c < int64(n)+1:
			flagged[d] = true
			ops := []*checks.Op{q.show(d), q.show(top)}
			for i := n - 1; i >= 0 && len(ops) < checks.MaxExcerpt; i-- {
				ops = append(ops, q.show(getsByRet[i]))
			}
			v.Add(q.key, fmt.Sprintf("dequeue count too low: #%d returned message %s with dequeue count %d, but %s had returned it before it was sent",
				q.seq(d), m.id, c, checks.Plural(n, "other get", "other gets")), checks.Excerpt(ops...)...)
		}
	}
}
