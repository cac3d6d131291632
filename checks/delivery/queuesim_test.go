package delivery

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

// A simulated queue service and workload, to generate valid queue histories
// (and histories with one injected fault) for the property test of the
// three queue checkers.
//
// The service's clock is the harness's. Every call is sent (Call), takes
// effect on the simulated queues at one instant (or not, by its fate) and
// returns (Return, and the record, so Seq is return order as in the
// runner). Events of all actors run in time order. A call that times out
// returns unknown after 2 s; it took effect before that, or never, or lands
// up to 10 s after it returned (within QueueUnknownHorizon).
//
// Producers put messages (a throttled or unknown put is retried with the
// same text, so an unknown put may enqueue twice). Consumers get 1 to 4
// messages with a visibility timeout of 3, 5 or 8 s, and for each one crash
// (abandon it), or update it (visibility 0, 2 or 6 s) and delete it, or just
// delete it, sometimes after working longer than the visibility timeout so
// that another consumer gets it again and the stale receipt is refused.
// After the load, the drain waits out every visibility timeout and unknown
// horizon, then gets and deletes until a get returns nothing.

type qsimCfg struct {
	queues, producers, consumers, puts, gets             int
	unknown, throttle, late, crash, update, slow, putVis float64
}

func randomQsimCfg(r *rand.Rand) qsimCfg {
	u := func(max float64) float64 { return r.Float64() * max }
	return qsimCfg{
		queues: 1 + r.IntN(2), producers: 1 + r.IntN(3), consumers: 1 + r.IntN(4), puts: 5 + r.IntN(20), gets: 5 + r.IntN(25),
		unknown: u(0.1), throttle: u(0.1), late: u(0.5), crash: u(0.15), update: u(0.5), slow: u(0.3), putVis: u(0.3),
	}
}

type qsimMsg struct {
	id, text, receipt string
	visibleAt, count  int64
	deleted           bool
}

type qsimQueue struct {
	msgs []*qsimMsg
	byID map[string]*qsimMsg
}

type qsimEvent struct {
	t  int64
	n  uint64
	fn func(t int64)
}

type qsimHeap []*qsimEvent

func (h qsimHeap) Len() int { return len(h) }
func (h qsimHeap) Less(i, j int) bool {
	return h[i].t < h[j].t || h[i].t == h[j].t && h[i].n < h[j].n
}
func (h qsimHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *qsimHeap) Push(x any)   { *h = append(*h, x.(*qsimEvent)) }
func (h *qsimHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

type qsim struct {
	r      *rand.Rand
	cfg    qsimCfg
	events qsimHeap
	n      uint64
	queues map[string]*qsimQueue
	names  []string
	ops    []checks.Op
	ids    int
	recs   int
	now    int64
}

const qsimMs = int64(time.Millisecond)

func (s *qsim) At(t int64, fn func(int64)) {
	s.n++
	heap.Push(&s.events, &qsimEvent{t, s.n, fn})
}

func (s *qsim) record(op *checks.Op, t int64) *checks.Op {
	op.Return = t
	op.Seq = uint64(len(s.ops) + 1)
	op.Workload = "sim"
	s.ops = append(s.ops, *op)
	return &s.ops[len(s.ops)-1]
}

func (s *qsim) receipt() string { s.recs++; return fmt.Sprintf("r%d", s.recs) }

func (s *qsim) lat() int64 { return (1 + s.r.Int64N(30)) * qsimMs }

func (s *qsim) pick(vs ...int) int { return vs[s.r.IntN(len(vs))] }

// call sends op at t; apply makes its effect on the service and fills the
// answer; done gets the recorded op.
func (s *qsim) call(t int64, op checks.Op, apply func(op *checks.Op, now int64), done func(op *checks.Op)) {
	op.Call, op.Intended = t, t
	if op.Attempt == 0 {
		op.Attempt = 1
	}
	p := &op
	x := s.r.Float64()
	switch {
	case x < s.cfg.throttle:
		ret := t + s.lat() + s.lat()
		s.At(ret, func(now int64) {
			p.Outcome, p.Out = checks.Throttled, checks.Output{Status: 503, ErrorCode: "ServerBusy"}
			done(s.record(p, now))
		})
	case x < s.cfg.throttle+s.cfg.unknown:
		ret := t + 2*int64(time.Second)
		switch y := s.r.Float64(); {
		case y < 1.0/3: // never landed
		case y < 1.0/3+s.cfg.late/3: // lands after the timeout
			scratch := op
			s.At(ret+s.r.Int64N(10*int64(time.Second)), func(now int64) { apply(&scratch, now) })
		default: // landed before the timeout
			scratch := op
			s.At(t+1+s.r.Int64N(ret-t-1), func(now int64) { apply(&scratch, now) })
		}
		s.At(ret, func(now int64) {
			p.Outcome, p.Out = checks.Unknown, checks.Output{Err: "context deadline exceeded"}
			done(s.record(p, now))
		})
	default:
		eff := t + s.lat()
		s.At(eff, func(now int64) { apply(p, now) })
		s.At(eff+s.lat(), func(now int64) { done(s.record(p, now)) })
	}
}

func (s *qsim) applyPut(op *checks.Op, now int64) {
	q := s.queues[op.Key]
	s.ids++
	m := &qsimMsg{id: fmt.Sprintf("m%d", s.ids), text: op.In.Value, receipt: s.receipt(), visibleAt: now}
	if op.In.Visibility != nil {
		m.visibleAt = now + int64(*op.In.Visibility)*int64(time.Second)
	}
	q.msgs = append(q.msgs, m)
	q.byID[m.id] = m
	op.Outcome, op.Out = checks.OK, checks.Output{Status: 201, MessageID: m.id, PopReceipt: m.receipt}
}

func (s *qsim) applyGet(op *checks.Op, now int64) {
	q := s.queues[op.Key]
	v := queueDefaultVisibility
	if op.In.Visibility != nil {
		v = *op.In.Visibility
	}
	op.Outcome, op.Out = checks.OK, checks.Output{Status: 200}
	for _, m := range q.msgs {
		if len(op.Out.Messages) == op.In.NumMessages {
			break
		}
		if m.deleted || m.visibleAt > now {
			continue
		}
		m.count++
		m.receipt = s.receipt()
		m.visibleAt = now + int64(v)*int64(time.Second)
		op.Out.Messages = append(op.Out.Messages, checks.Message{ID: m.id, PopReceipt: m.receipt, DequeueCount: m.count, Text: m.text})
	}
}

// target finds the message an update or delete addresses, or answers the refusal.
func (s *qsim) target(op *checks.Op) *qsimMsg {
	m := s.queues[op.Key].byID[op.In.MessageID]
	switch {
	case m == nil || m.deleted:
		op.Outcome, op.Out = checks.Conflict, checks.Output{Status: 404, ErrorCode: "MessageNotFound"}
		return nil
	case m.receipt != op.In.PopReceipt:
		op.Outcome, op.Out = checks.Conflict, checks.Output{Status: 400, ErrorCode: "PopReceiptMismatch"}
		return nil
	}
	return m
}

func (s *qsim) applyUpdate(op *checks.Op, now int64) {
	if m := s.target(op); m != nil {
		m.receipt = s.receipt()
		m.visibleAt = now + int64(*op.In.Visibility)*int64(time.Second)
		m.text = op.In.Value
		op.Outcome, op.Out = checks.OK, checks.Output{Status: 204, PopReceipt: m.receipt}
	}
}

func (s *qsim) applyDelete(op *checks.Op, now int64) {
	if m := s.target(op); m != nil {
		m.deleted = true
		op.Outcome, op.Out = checks.OK, checks.Output{Status: 204}
	}
}

func (s *qsim) think() int64 { return (5 + s.r.Int64N(50)) * qsimMs }

func (s *qsim) producer(a int) {
	i := 0
	var step func(t int64)
	step = func(t int64) {
		if i == s.cfg.puts {
			return
		}
		text := fmt.Sprintf("w%d-%d", a, i)
		q := s.names[i%len(s.names)]
		var vis *int
		if s.r.Float64() < s.cfg.putVis {
			vis = qVis(2)
		}
		attempt := 1
		var try func(t int64)
		try = func(t int64) {
			op := checks.Op{Actor: a, Kind: checks.KindQueuePut, Key: q, Attempt: attempt, In: checks.Input{Value: text, Visibility: vis}}
			s.call(t, op, s.applyPut, func(op *checks.Op) {
				if op.Outcome != checks.OK && attempt < 3 && s.r.IntN(4) > 0 {
					attempt++
					s.At(op.Return+s.think(), try)
					return
				}
				i++
				s.At(op.Return+s.think(), step)
			})
		}
		try(t)
	}
	s.At(s.r.Int64N(100)*qsimMs, step)
}

func (s *qsim) consumer(a int) {
	gets := 0
	var idle func(t int64)
	idle = func(t int64) {
		if gets == s.cfg.gets {
			return
		}
		gets++
		q := s.names[s.r.IntN(len(s.names))]
		op := checks.Op{Actor: a, Kind: checks.KindQueueGet, Key: q, In: checks.Input{NumMessages: 1 + s.r.IntN(4), Visibility: qVis(s.pick(3, 5, 8))}}
		s.call(t, op, s.applyGet, func(op *checks.Op) {
			if op.Outcome != checks.OK || len(op.Out.Messages) == 0 {
				s.At(op.Return+100*qsimMs+s.think(), idle)
				return
			}
			s.process(a, q, slices.Clone(op.Out.Messages), op.Return, idle)
		})
	}
	s.At(s.r.Int64N(100)*qsimMs, idle)
}

// process works through the messages one get delivered, then calls then.
func (s *qsim) process(a int, q string, msgs []checks.Message, t int64, then func(int64)) {
	if len(msgs) == 0 {
		s.At(t+s.think(), then)
		return
	}
	m, rest := msgs[0], msgs[1:]
	next := func(t int64) { s.process(a, q, rest, t, then) }
	if s.r.Float64() < s.cfg.crash {
		s.At(t+qsimMs, next) // abandoned: redelivered once its visibility runs out
		return
	}
	receipt := m.PopReceipt
	work := func() int64 {
		if s.r.Float64() < s.cfg.slow {
			return (9 + s.r.Int64N(4)) * int64(time.Second) // longer than any visibility timeout
		}
		return s.think()
	}
	var del func(t int64, attempt int)
	del = func(t int64, attempt int) {
		op := checks.Op{Actor: a, Kind: checks.KindQueueDelete, Key: q, Attempt: attempt, In: checks.Input{MessageID: m.ID, PopReceipt: receipt}}
		s.call(t, op, s.applyDelete, func(op *checks.Op) {
			if op.Outcome != checks.OK && op.Outcome != checks.Conflict && attempt == 1 {
				s.At(op.Return+s.think(), func(t int64) { del(t, 2) })
				return
			}
			next(op.Return)
		})
	}
	if s.r.Float64() >= s.cfg.update {
		s.At(t+work(), func(t int64) { del(t, 1) })
		return
	}
	op := checks.Op{Actor: a, Kind: checks.KindQueueUpdate, Key: q,
		In: checks.Input{MessageID: m.ID, PopReceipt: receipt, Visibility: qVis(s.pick(0, 2, 6)), Value: origText(m.Text) + fmt.Sprintf("#p%d", 1+s.r.IntN(9))}}
	s.At(t+s.think(), func(t int64) {
		s.call(t, op, s.applyUpdate, func(op *checks.Op) {
			if op.Outcome == checks.OK {
				receipt = op.Out.PopReceipt
			}
			s.At(op.Return+work(), func(t int64) { del(t, 1) })
		})
	})
}

// direct runs one call of the drain: no faults.
func (s *qsim) direct(t int64, op checks.Op, apply func(op *checks.Op, now int64)) (*checks.Op, int64) {
	op.Call, op.Intended, op.Attempt = t, t, 1
	apply(&op, t+5*qsimMs)
	return s.record(&op, t+10*qsimMs), t + 10*qsimMs
}

func qsimRun(r *rand.Rand, cfg qsimCfg) []checks.Op {
	s := &qsim{r: r, cfg: cfg, queues: map[string]*qsimQueue{}}
	for i := range cfg.queues {
		n := fmt.Sprintf("q%d", i+1)
		s.names = append(s.names, n)
		s.queues[n] = &qsimQueue{byID: map[string]*qsimMsg{}}
	}
	for a := range cfg.producers {
		s.producer(a)
	}
	for a := range cfg.consumers {
		s.consumer(cfg.producers + a)
	}
	for s.events.Len() > 0 {
		e := heap.Pop(&s.events).(*qsimEvent)
		s.now = e.t
		e.fn(e.t)
	}
	// The drain: after every visibility timeout and unknown horizon.
	t := s.now + 60*int64(time.Second)
	for _, q := range s.names {
		for {
			g, now := s.direct(t, checks.Op{Actor: checks.ActorFinal, Kind: checks.KindQueueGet, Key: q, In: checks.Input{NumMessages: 32, Visibility: qVis(30)}}, s.applyGet)
			t = now
			if len(g.Out.Messages) == 0 {
				break
			}
			for _, m := range slices.Clone(g.Out.Messages) {
				_, t = s.direct(t, checks.Op{Actor: checks.ActorFinal, Kind: checks.KindQueueDelete, Key: q, In: checks.Input{MessageID: m.ID, PopReceipt: m.PopReceipt}}, s.applyDelete)
			}
		}
	}
	return s.ops
}

// --- mutations: each returns a copy of the history with one fault ---

func qsimClone(ops []checks.Op) []checks.Op {
	out := slices.Clone(ops)
	for i := range out {
		out[i].Out.Messages = slices.Clone(out[i].Out.Messages)
	}
	return out
}

// qsimRenumber puts the ops back in return order with fresh Seqs and returns
// the new Seq of the op marked with RequestID "mutated" (0 if none).
func qsimRenumber(ops []checks.Op) uint64 {
	sort.SliceStable(ops, func(i, j int) bool { return ops[i].Return < ops[j].Return })
	var marked uint64
	for i := range ops {
		ops[i].Seq = uint64(i + 1)
		if ops[i].Out.RequestID == "mutated" {
			marked = ops[i].Seq
		}
	}
	return marked
}

// qsimDropDelivery removes the only delivery of an acknowledged message, and
// every update and delete of it: the message is lost.
func qsimDropDelivery(ops []checks.Op, r *rand.Rand) ([]checks.Op, string, bool) {
	acked := map[string]bool{}
	delivered := map[string]int{}
	for i := range ops {
		o := &ops[i]
		if o.Kind == checks.KindQueuePut && o.Outcome == checks.OK {
			acked[o.Key+"/"+o.Out.MessageID] = true
		}
		if o.Kind == checks.KindQueueGet && o.Outcome == checks.OK {
			for _, m := range o.Out.Messages {
				delivered[o.Key+"/"+m.ID]++
			}
		}
	}
	var cands []string
	for k, n := range delivered {
		if n == 1 && acked[k] {
			cands = append(cands, k)
		}
	}
	if len(cands) == 0 {
		return nil, "", false
	}
	sort.Strings(cands)
	key, id, _ := strings.Cut(cands[r.IntN(len(cands))], "/")
	out := make([]checks.Op, 0, len(ops))
	for _, o := range qsimClone(ops) {
		if o.Key == key && (o.Kind == checks.KindQueueUpdate || o.Kind == checks.KindQueueDelete) && o.In.MessageID == id {
			continue
		}
		if o.Key == key && o.Kind == checks.KindQueueGet {
			o.Out.Messages = slices.DeleteFunc(o.Out.Messages, func(m checks.Message) bool { return m.ID == id })
		}
		out = append(out, o)
	}
	qsimRenumber(out)
	return out, id, true
}

// qsimReuseStaleReceipt turns a refused update or delete whose receipt was
// certainly superseded into an accepted one.
func qsimReuseStaleReceipt(ops []checks.Op) ([]checks.Op, uint64, bool) {
	type issue struct{ call, ret int64 }
	issuers := map[string][]issue{} // key/id -> calls that issued a receipt
	byReceipt := map[string]issue{} // key/id/receipt -> its issuer
	for i := range ops {
		o := &ops[i]
		add := func(id, receipt string) {
			k := o.Key + "/" + id
			issuers[k] = append(issuers[k], issue{o.Call, o.Return})
			byReceipt[k+"/"+receipt] = issue{o.Call, o.Return}
		}
		switch {
		case o.Outcome != checks.OK:
		case o.Kind == checks.KindQueuePut:
			add(o.Out.MessageID, o.Out.PopReceipt)
		case o.Kind == checks.KindQueueUpdate:
			add(o.In.MessageID, o.Out.PopReceipt)
		case o.Kind == checks.KindQueueGet:
			for _, m := range o.Out.Messages {
				add(m.ID, m.PopReceipt)
			}
		}
	}
	for i := range ops {
		o := &ops[i]
		if o.Outcome != checks.Conflict || (o.Kind != checks.KindQueueUpdate && o.Kind != checks.KindQueueDelete) {
			continue
		}
		k := o.Key + "/" + o.In.MessageID
		is, ok := byReceipt[k+"/"+o.In.PopReceipt]
		if !ok {
			continue
		}
		if !slices.ContainsFunc(issuers[k], func(x issue) bool { return x.call > is.ret && x.ret < o.Call }) {
			continue
		}
		out := qsimClone(ops)
		m := &out[i]
		m.Outcome, m.Out = checks.OK, checks.Output{Status: 204, RequestID: "mutated"}
		if m.Kind == checks.KindQueueUpdate {
			m.Out.PopReceipt = "forged"
		}
		return out, qsimRenumber(out), true
	}
	return nil, 0, false
}

// qsimDeliverInsideWindow adds a second delivery of a message by another actor
// right after a get returned it, with no update of it in between.
func qsimDeliverInsideWindow(ops []checks.Op, r *rand.Rand) ([]checks.Op, uint64, bool) {
	start := r.IntN(len(ops))
	for n := range ops {
		i := (start + n) % len(ops)
		x := &ops[i]
		if x.Kind != checks.KindQueueGet || x.Outcome != checks.OK || len(x.Out.Messages) == 0 || x.In.Visibility == nil {
			continue
		}
		if qCertainEnd(x.Call, *x.In.Visibility) < x.Return+10*qsimMs {
			continue
		}
		m := x.Out.Messages[r.IntN(len(x.Out.Messages))]
		call, ret := x.Return+qsimMs, x.Return+2*qsimMs
		excused := slices.ContainsFunc(ops, func(u checks.Op) bool {
			return u.Key == x.Key && u.Kind == checks.KindQueueUpdate && u.In.MessageID == m.ID && !checks.Refused(&u) &&
				u.Call < ret && qLatestEffect(&u) > x.Call
		})
		if excused {
			continue
		}
		out := qsimClone(ops)
		out = append(out, checks.Op{Actor: 999, Workload: "sim", Kind: checks.KindQueueGet, Key: x.Key, Attempt: 1, Intended: call, Call: call, Return: ret,
			In: checks.Input{NumMessages: 1, Visibility: x.In.Visibility},
			Out: checks.Output{Status: 200, RequestID: "mutated",
				Messages: []checks.Message{{ID: m.ID, PopReceipt: "injected", DequeueCount: m.DequeueCount + 1, Text: m.Text}}}})
		return out, qsimRenumber(out), true
	}
	return nil, 0, false
}

func qsimCheckers() []checks.Checker {
	return []checks.Checker{NewAtLeastOnce(), NewExclusiveVisibility(), NewPopReceipt()}
}

// Valid histories from the simulated service pass all three checkers; each
// injected fault is caught by the checker it is about.
func TestQueueCheckersSimulation(t *testing.T) {
	seeds := uint64(300)
	if testing.Short() {
		seeds = 40
	}
	var dropped, stale, inside, redelivered, conflicts, unknown int
	for seed := range seeds {
		cfg := randomQsimCfg(rand.New(rand.NewPCG(seed, 21)))
		ops := qsimRun(rand.New(rand.NewPCG(seed, 22)), cfg)
		for i := range ops {
			switch {
			case ops[i].Outcome == checks.Conflict:
				conflicts++
			case ops[i].Outcome == checks.Unknown:
				unknown++
			}
		}
		for _, r := range checks.Run(ops, qsimCheckers()...) {
			if r.Verdict != checks.Pass {
				t.Fatalf("seed %d (%+v): valid history judged %s by %s\n%s", seed, cfg, r.Verdict, r.Check, checkstest.Describe(r))
			}
			if r.Check == AtLeastOnceName && strings.Contains(r.Summary, "more than once") {
				redelivered++
			}
		}

		rng := rand.New(rand.NewPCG(seed, 23))
		if m, id, ok := qsimDropDelivery(ops, rng); ok {
			dropped++
			r := checks.Run(m, NewAtLeastOnce())[0]
			checkstest.CheckKinds(t, r)
			if r.Verdict != checks.Fail || !slices.ContainsFunc(r.Violations, func(v checks.Violation) bool {
				return strings.Contains(v.Message, "lost message: "+id+" ")
			}) {
				t.Fatalf("seed %d (%+v): dropped delivery of %s judged %s\n%s", seed, cfg, id, r.Verdict, checkstest.Describe(r))
			}
		}
		if m, seq, ok := qsimReuseStaleReceipt(ops); ok {
			stale++
			r := checks.Run(m, NewPopReceipt())[0]
			checkstest.CheckKinds(t, r)
			if r.Verdict != checks.Fail || !slices.ContainsFunc(r.Violations, func(v checks.Violation) bool {
				return strings.HasPrefix(v.Message, "stale pop receipt accepted") && checkstest.Matches(v, checkstest.ExpectViolation{Msg: "", Seqs: []uint64{seq}})
			}) {
				t.Fatalf("seed %d (%+v): stale receipt accepted by #%d judged %s\n%s", seed, cfg, seq, r.Verdict, checkstest.Describe(r))
			}
		}
		if m, seq, ok := qsimDeliverInsideWindow(ops, rng); ok {
			inside++
			r := checks.Run(m, NewExclusiveVisibility())[0]
			checkstest.CheckKinds(t, r)
			if r.Verdict != checks.Fail || !slices.ContainsFunc(r.Violations, func(v checks.Violation) bool {
				return strings.Contains(v.Message, fmt.Sprintf("delivered again by #%d ", seq))
			}) {
				t.Fatalf("seed %d (%+v): delivery #%d inside a window judged %s\n%s", seed, cfg, seq, r.Verdict, checkstest.Describe(r))
			}
		}
	}
	t.Logf("%d histories (%d with redeliveries, %d conflicts, %d unknown outcomes); injected: %d dropped deliveries, %d stale receipts, %d deliveries inside a window",
		seeds, redelivered, conflicts, unknown, dropped, stale, inside)
	for what, n := range map[string]int{"dropped deliveries": dropped, "stale receipts": stale, "deliveries inside a window": inside, "histories with redeliveries": redelivered} {
		if n < int(seeds)/3 {
			t.Errorf("only %d/%d %s", n, seeds, what)
		}
	}
}
