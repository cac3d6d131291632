package delivery

import (
	"slices"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

// qhist builds hand-made queue histories. Times are given in milliseconds
// since the run started; every op gets the next Seq, so the order of the
// builder calls is the record order.
type qhist struct {
	ops []checks.Op
}

const qms = int64(time.Millisecond)

func (h *qhist) Add(op checks.Op, call, ret int64) uint64 {
	op.Seq = uint64(len(h.ops) + 1)
	op.Workload = "w"
	if op.Attempt == 0 {
		op.Attempt = 1
	}
	op.Call, op.Return = call*qms, ret*qms
	op.Intended = op.Call
	h.ops = append(h.ops, op)
	return op.Seq
}

// op returns the recorded op with that Seq, to adjust it.
func (h *qhist) Op(seq uint64) *checks.Op { return &h.ops[seq-1] }

func qVis(v int) *int { return &v }

// qanswer fills the status the Queue service gives for an outcome.
func qanswer(kind string, o checks.Outcome) checks.Output {
	switch o {
	case checks.OK:
		switch kind {
		case checks.KindQueuePut:
			return checks.Output{Status: 201}
		case checks.KindQueueUpdate, checks.KindQueueDelete:
			return checks.Output{Status: 204}
		}
		return checks.Output{Status: 200}
	case checks.Conflict:
		return checks.Output{Status: 404, ErrorCode: "MessageNotFound"}
	case checks.Throttled:
		return checks.Output{Status: 503, ErrorCode: "ServerBusy"}
	case checks.Error:
		return checks.Output{Status: 400, ErrorCode: "InvalidQueryParameterValue"}
	}
	return checks.Output{Err: "context deadline exceeded"}
}

// qm is one delivered message.
func qm(id, receipt string, count int64, text string) checks.Message {
	return checks.Message{ID: id, PopReceipt: receipt, DequeueCount: count, Text: text}
}

// put records a Put Message attempt; id and receipt are what an OK answer returned.
func (h *qhist) Put(actor int, q, text string, o checks.Outcome, id, receipt string, call, ret int64) uint64 {
	out := qanswer(checks.KindQueuePut, o)
	if o == checks.OK {
		out.MessageID, out.PopReceipt = id, receipt
	}
	return h.Add(checks.Op{Actor: actor, Kind: checks.KindQueuePut, Key: q, Outcome: o, In: checks.Input{Value: text}, Out: out}, call, ret)
}

// get records a Get Messages answered OK with msgs (visibility v seconds; v < 0 sends none).
func (h *qhist) Get(actor int, q string, v int, call, ret int64, msgs ...checks.Message) uint64 {
	in := checks.Input{NumMessages: 32}
	if v >= 0 {
		in.Visibility = qVis(v)
	}
	out := qanswer(checks.KindQueueGet, checks.OK)
	out.Messages = msgs
	return h.Add(checks.Op{Actor: actor, Kind: checks.KindQueueGet, Key: q, In: in, Out: out}, call, ret)
}

// failedGet records a Get Messages that was not answered OK.
func (h *qhist) failedGet(actor int, q string, v int, o checks.Outcome, call, ret int64) uint64 {
	return h.Add(checks.Op{Actor: actor, Kind: checks.KindQueueGet, Key: q, Outcome: o, In: checks.Input{NumMessages: 32, Visibility: qVis(v)},
		Out: qanswer(checks.KindQueueGet, o)}, call, ret)
}

// update records an Update Message with receipt; newReceipt is what an OK answer returned.
func (h *qhist) update(actor int, q, id, receipt string, v int, text string, o checks.Outcome, newReceipt string, call, ret int64) uint64 {
	out := qanswer(checks.KindQueueUpdate, o)
	if o == checks.OK {
		out.PopReceipt = newReceipt
	}
	return h.Add(checks.Op{Actor: actor, Kind: checks.KindQueueUpdate, Key: q, Outcome: o,
		In: checks.Input{MessageID: id, PopReceipt: receipt, Visibility: qVis(v), Value: text}, Out: out}, call, ret)
}

// del records a Delete Message with receipt.
func (h *qhist) del(actor int, q, id, receipt string, o checks.Outcome, call, ret int64) uint64 {
	return h.Add(checks.Op{Actor: actor, Kind: checks.KindQueueDelete, Key: q, Outcome: o, In: checks.Input{MessageID: id, PopReceipt: receipt},
		Out: qanswer(checks.KindQueueDelete, o)}, call, ret)
}

// drained records the final drain's empty get.
func (h *qhist) drained(q string, call int64) uint64 {
	return h.Get(checks.ActorFinal, q, 30, call, call+5)
}

// check runs a fresh checker by name over the history.
func (h *qhist) Check(t *testing.T, name string) checks.Result {
	t.Helper()
	c, err := checks.New(name)
	if err != nil {
		t.Fatal(err)
	}
	return checks.Run(h.ops, c)[0]
}

// qexp is one violation a case must report: its queue, a message substring
// and the operations (by Seq) its excerpt must hold.
type qexp struct {
	key, msg string
	seqs     []uint64
}

func qvio(key, msg string, seqs ...uint64) qexp { return qexp{key, msg, seqs} }

// qwant is what a queue case expects of the result.
type qwant struct {
	verdict checks.Verdict
	summary string // substring of the summary, if set
	vios    []qexp // each must be matched by some violation
	total   int    // if > 0, the exact number of violations
}

func (w qwant) Assert(t *testing.T, r checks.Result) {
	t.Helper()
	checkstest.Want{Verdict: w.verdict, Summary: w.summary, Total: w.total}.Assert(t, r)
	for _, e := range w.vios {
		if !slices.ContainsFunc(r.Violations, func(v checks.Violation) bool {
			return v.Key == e.key && checkstest.Matches(v, checkstest.ExpectViolation{Msg: e.msg, Seqs: e.seqs})
		}) {
			t.Errorf("no violation on %s with %q whose excerpt holds %v\n%s", e.key, e.msg, e.seqs, checkstest.Describe(r))
		}
	}
	if w.verdict == checks.Fail && w.total == 0 && r.Total != len(w.vios) {
		t.Errorf("%d violations, want %d\n%s", r.Total, len(w.vios), checkstest.Describe(r))
	}
	for _, v := range r.Violations {
		for _, o := range v.Ops {
			if o.Kind == checks.KindQueueGet && len(o.Out.Messages) > 1 {
				t.Errorf("violation %q: excerpt get #%d not narrowed to its message", v.Message, o.Seq)
			}
		}
	}
}

type qcase struct {
	name  string
	build func(h *qhist) qwant
}

func runQueueCases(t *testing.T, check string, cases []qcase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := &qhist{}
			w := tc.build(h)
			r := h.Check(t, check)
			t.Log(checkstest.Describe(r))
			w.Assert(t, r)
		})
	}
}

func TestQueueCheckersRegistered(t *testing.T) {
	for _, n := range []string{AtLeastOnceName, ExclusiveVisibilityName, PopReceiptName} {
		c, err := checks.New(n)
		if err != nil {
			t.Fatal(err)
		}
		if c.Name() != n {
			t.Fatalf("name %q, want %q", c.Name(), n)
		}
	}
}

func TestQueueWindows(t *testing.T) {
	s := int64(time.Second)
	// Visibility 10 s sent at 0: certainly invisible until 10*0.95 - 1 = 8.5 s.
	if got := qCertainEnd(0, 10); got != 8*s+s/2 {
		t.Errorf("certain end %d", got)
	}
	// Possibly invisible until 10*1.05 + 1 = 11.5 s after the effect.
	if got := qPossibleEnd(2*s, 10); got != 13*s+s/2 {
		t.Errorf("possible end %d", got)
	}
	if got := qCertainEnd(0, 0); got >= 0 {
		t.Errorf("visibility 0 leaves a window ending at %d", got)
	}
	for in, want := range map[string]string{"w1-3": "w1-3", "w1-3#p2": "w1-3", "w1-3#p2#x": "w1-3", "": ""} {
		if got := origText(in); got != want {
			t.Errorf("origText(%q) = %q", in, got)
		}
	}
}

// Excerpts rebuild the kept operations with the fields a reader needs.
func TestQueueExcerptOps(t *testing.T) {
	h := &qhist{}
	h.Put(0, "q1", "w0-1", checks.OK, "m1", "r0", 0, 10)
	g := h.Get(1, "q1", 5, 20, 30, qm("m0", "x", 1, "w9-9"), qm("m1", "r1", 1, "w0-1"))
	h.Op(g).Out.RequestID = "req-1"
	h.Get(2, "q1", 5, 6000, 6010, qm("m1", "r2", 2, "w0-1"))
	d := h.del(1, "q1", "m1", "r1", checks.OK, 6100, 6110)
	r := h.Check(t, PopReceiptName)
	if len(r.Violations) != 1 {
		t.Fatalf("want one violation\n%s", checkstest.Describe(r))
	}
	for _, o := range r.Violations[0].Ops {
		in := h.Op(o.Seq)
		if o.Workload != "w" || o.Key != "q1" || o.Kind != in.Kind || o.Actor != in.Actor || o.Call != in.Call || o.Return != in.Return ||
			o.Outcome != in.Outcome || o.Out.Status != in.Out.Status || o.Out.RequestID != in.Out.RequestID {
			t.Errorf("excerpt op %+v does not match the recorded %+v", o, *in)
		}
		switch o.Seq {
		case g:
			if len(o.Out.Messages) != 1 || o.Out.Messages[0] != in.Out.Messages[1] || o.In.Visibility == nil || *o.In.Visibility != 5 {
				t.Errorf("excerpt get %+v", o)
			}
		case d:
			if o.In.MessageID != "m1" || o.In.PopReceipt != "r1" {
				t.Errorf("excerpt delete %+v", o)
			}
		}
	}
}
