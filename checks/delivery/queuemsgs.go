package delivery

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/stormcheck/stormcheck/checks"
)

// The queue model shared by at-least-once, exclusive-visibility and
// pop-receipt (CHECKERS.md, "Queues").
//
// The service keeps a message's visibility with its own clock, to about a
// second; the harness measures Call and Return with its own monotonic clock.
// A call took effect at some instant of [Call, Return], and v seconds on the
// service's clock last between v(1-rho) and v(1+rho) on the harness's. So a
// Get Messages (or an Update Message) that made a message invisible for v
// seconds over [call, return] keeps it
//
//   - certainly invisible over [return, call + v(1-rho) - slack];
//   - possibly invisible until return + v(1+rho) + slack.
//
// A call whose outcome is unknown (a timeout, a 500) may take effect after it
// returned, but not after the service's own timeout for queue operations
// (QueueUnknownHorizon); it only widens "possibly".
//
// Every queue is judged on its own (Op.Key is the queue's name) and every
// message by its id. A put's text never holds '#'; an update stores the
// original text, '#' and its progress, so a received message's original text
// is everything before its first '#'.

// QueueClockRho bounds the rate difference between the harness's clock and
// the service's for visibility timeouts: v seconds on the service's clock
// last between v(1-rho) and v(1+rho) on the harness's.
var QueueClockRho = 0.05

// QueueVisibilitySlack is how far off the service may keep a visibility
// timeout besides the clock-rate difference (it keeps them to about a
// second).
var QueueVisibilitySlack = time.Second

// QueueUnknownHorizon bounds how long after its Return a queue call with an
// unknown outcome may still take effect: the Queue service cuts every server
// timeout to 30 seconds ("Setting timeouts for Queue service operations").
var QueueUnknownHorizon = 30 * time.Second

// queueDefaultVisibility is Get Messages' visibility timeout, in seconds,
// when the request sets none.
const queueDefaultVisibility = 30

// qCertainEnd is the last instant a message that a call made invisible for v
// seconds, sent at call, is certainly still invisible.
func qCertainEnd(call int64, v int) int64 {
	d := int64(float64(v) * float64(time.Second) * (1 - QueueClockRho))
	return checks.AddBound(checks.AddBound(call, d), -int64(QueueVisibilitySlack))
}

// qPossibleEnd is the last instant a message that a call made invisible for
// v seconds, taking effect at the latest at eff, may still be invisible.
func qPossibleEnd(eff int64, v int) int64 {
	d := int64(math.Ceil(float64(v) * float64(time.Second) * (1 + QueueClockRho)))
	return checks.AddBound(checks.AddBound(eff, d), int64(QueueVisibilitySlack))
}

// qLatestEffect is the latest instant op may have taken effect: its Return
// if the service answered, QueueUnknownHorizon later if not.
func qLatestEffect(op *checks.Op) int64 { return qLatest(op.Outcome, op.Return) }

func qLatest(o checks.Outcome, ret int64) int64 {
	if o == checks.OK {
		return ret
	}
	return checks.AddBound(ret, int64(QueueUnknownHorizon))
}

// origText is the text a message was put with: its text up to the first '#'.
func origText(s string) string {
	if i := strings.IndexByte(s, '#'); i >= 0 {
		return s[:i]
	}
	return s
}

// isQueueKind reports whether kind is one of the queue operations the queue
// checkers read.
func isQueueKind(kind string) bool {
	switch kind {
	case checks.KindQueuePut, checks.KindQueueGet, checks.KindQueueUpdate, checks.KindQueueDelete:
		return true
	}
	return false
}

// qShortText cuts a message text kept for an excerpt; the checkers never
// compare kept texts.
func qShortText(s string) string {
	if len(s) <= 64 {
		return s
	}
	return s[:64] + " ..."
}

// qRec is what the queue checkers keep of an operation until Finish: the
// fields their rules and excerpts use, in about 40% of an Op's memory. The
// workload and key are the queue's; ETag, Last-Modified, a put's
// time-next-visible and the fields of other services are dropped.
type qRec struct {
	seq                  uint64
	intended, call, ret  int64
	actor, attempt       int32
	numMessages          int32
	visibility           int32 // -1: none sent
	status               int32
	outcome              checks.Outcome
	kind                 string
	msgID, receipt       string // In.MessageID, In.PopReceipt
	value                string // In.Value, cut
	outMsgID, outReceipt string // Out.MessageID, Out.PopReceipt
	errCode, requestID   string
	err                  string
	msgs                 []checks.Message
}

func newQRec(op *checks.Op) qRec {
	r := qRec{
		seq: op.Seq, intended: op.Intended, call: op.Call, ret: op.Return,
		actor: int32(op.Actor), attempt: int32(op.Attempt), numMessages: int32(op.In.NumMessages),
		visibility: -1, status: int32(op.Out.Status), outcome: op.Outcome,
		kind: op.Kind, msgID: op.In.MessageID, receipt: op.In.PopReceipt, value: qShortText(op.In.Value),
		outMsgID: op.Out.MessageID, outReceipt: op.Out.PopReceipt,
		errCode: op.Out.ErrorCode, requestID: op.Out.RequestID, err: qShortText(op.Out.Err),
	}
	switch op.Kind { // share the constant instead of keeping the decoded string
	case checks.KindQueuePut:
		r.kind = checks.KindQueuePut
	case checks.KindQueueGet:
		r.kind = checks.KindQueueGet
	case checks.KindQueueUpdate:
		r.kind = checks.KindQueueUpdate
	case checks.KindQueueDelete:
		r.kind = checks.KindQueueDelete
	}
	if op.In.Visibility != nil {
		r.visibility = int32(*op.In.Visibility)
	}
	if len(op.Out.Messages) > 0 {
		r.msgs = make([]checks.Message, len(op.Out.Messages))
		for i, m := range op.Out.Messages {
			m.Text = qShortText(m.Text)
			r.msgs[i] = m
		}
	}
	return r
}

// vis returns the visibility timeout the call sent, if any.
func (r *qRec) vis() (int, bool) { return int(r.visibility), r.visibility >= 0 }

// latestEffect is qLatestEffect for a kept op.
func (r *qRec) latestEffect() int64 { return qLatest(r.outcome, r.ret) }

// op rebuilds the operation for an excerpt, narrowed to message msg of a get
// (all of them when msg < 0).
func (r *qRec) Op(workload, key string, msg int) *checks.Op {
	o := &checks.Op{
		Seq: r.seq, Actor: int(r.actor), Workload: workload, Kind: r.kind, Key: key, Attempt: int(r.attempt),
		Intended: r.intended, Call: r.call, Return: r.ret, Outcome: r.outcome,
		In: checks.Input{MessageID: r.msgID, PopReceipt: r.receipt, Value: r.value, NumMessages: int(r.numMessages)},
		Out: checks.Output{Status: int(r.status), ErrorCode: r.errCode, RequestID: r.requestID, Err: r.err,
			MessageID: r.outMsgID, PopReceipt: r.outReceipt, Messages: r.msgs},
	}
	if v, ok := r.vis(); ok {
		o.In.Visibility = &v
	}
	if msg >= 0 && msg < len(r.msgs) {
		o.Out.Messages = []checks.Message{r.msgs[msg]}
	}
	return o
}

// qKind is what an operation did to one message.
type qKind uint8

const (
	qPut     qKind = iota // a put that returned the message's id
	qDeliver              // a successful get that returned the message
	qUpdate               // an update of the message
	qDelete               // a delete of the message
)

// qEv is one operation on one message. The op itself is kept once (a get
// that delivered 32 messages is kept once, not 32 times).
type qEv struct {
	call, ret int64
	rec       int32 // index in qQueue.recs
	msg       int16 // index in the get's Out.Messages; -1 for other kinds
	kind      qKind
}

// qMsg is every kept operation on one message, in Seq order.
type qMsg struct {
	id  string
	evs []qEv
}

// qQueue groups one queue's kept operations by message.
type qQueue struct {
	key, workload string
	recs          checks.Chunked[qRec]
	msgs          map[string]*qMsg
	order         []*qMsg
}

// qQueues groups a history's queue operations by queue and message. keep
// says which operations on a message a checker needs; the rest are dropped.
type qQueues struct {
	byKey map[string]*qQueue
	order []*qQueue
	keep  func(k qKind, op *checks.Op) bool
}

func newQQueues(keep func(k qKind, op *checks.Op) bool) qQueues {
	return qQueues{byKey: map[string]*qQueue{}, keep: keep}
}

func (qs *qQueues) queue(op *checks.Op) *qQueue {
	q := qs.byKey[op.Key]
	if q == nil {
		q = &qQueue{key: op.Key, workload: op.Workload, msgs: map[string]*qMsg{}}
		qs.byKey[op.Key] = q
		qs.order = append(qs.order, q)
	}
	return q
}

func (q *qQueue) msg(id string) *qMsg {
	m := q.msgs[id]
	if m == nil {
		m = &qMsg{id: id}
		q.msgs[id] = m
		q.order = append(q.order, m)
	}
	return m
}

// observe files op under the messages it is about, if keep wants it, and
// returns its queue (nil for an op that is not a queue op).
func (qs *qQueues) observe(op *checks.Op) *qQueue {
	if !isQueueKind(op.Kind) {
		return nil
	}
	q := qs.queue(op)
	idx := int32(-1)
	stored := func() int32 {
		if idx < 0 {
			idx = q.recs.Add(newQRec(op))
		}
		return idx
	}
	add := func(id string, k qKind, msg int) {
		m := q.msg(id)
		m.evs = append(m.evs, qEv{call: op.Call, ret: op.Return, rec: stored(), msg: int16(msg), kind: k})
	}
	switch op.Kind {
	case checks.KindQueuePut:
		if op.Outcome == checks.OK && op.Out.MessageID != "" && qs.keep(qPut, op) {
			add(op.Out.MessageID, qPut, -1)
		}
	case checks.KindQueueGet:
		if op.Outcome == checks.OK && qs.keep(qDeliver, op) {
			for i := range op.Out.Messages {
				if i > math.MaxInt16 {
					break
				}
				if id := op.Out.Messages[i].ID; id != "" {
					add(id, qDeliver, i)
				}
			}
		}
	case checks.KindQueueUpdate:
		if op.In.MessageID != "" && qs.keep(qUpdate, op) {
			add(op.In.MessageID, qUpdate, -1)
		}
	case checks.KindQueueDelete:
		if op.In.MessageID != "" && qs.keep(qDelete, op) {
			add(op.In.MessageID, qDelete, -1)
		}
	}
	return q
}

// rec returns the kept operation of an event.
func (q *qQueue) rec(e *qEv) *qRec { return q.recs.At(e.rec) }

// message returns the delivered message of a delivery event.
func (q *qQueue) message(e *qEv) *checks.Message {
	if e.kind != qDeliver {
		return nil
	}
	return &q.recs.At(e.rec).msgs[e.msg]
}

// show returns an event's op for an excerpt (a get narrowed to the message).
func (q *qQueue) show(e *qEv) *checks.Op {
	if e == nil {
		return nil
	}
	return q.recs.At(e.rec).Op(q.workload, q.key, int(e.msg))
}

// seq is an event's op's Seq.
func (q *qQueue) seq(e *qEv) uint64 { return q.recs.At(e.rec).seq }

// qByCall and qByRet sort events by their call or return times (then Seq
// order, which the events already have).
func qByCall(evs []*qEv) {
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].call < evs[j].call })
}

func qByRet(evs []*qEv) {
	sort.SliceStable(evs, func(i, j int) bool { return evs[i].ret < evs[j].ret })
}

// qSecs renders a harness time for messages.
func qSecs(t int64) string { return checks.FmtHarnessTime(t) }
