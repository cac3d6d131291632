package checks

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// hist builds hand-made histories. Every op gets the next Seq and, unless
// the test sets them, a call/return window after the previous op's.
type hist struct {
	ops []Op
	t   int64
}

func newHist() *hist { return &hist{} }

const testPad = 64 // pad written values like payload_bytes would

func cval(n int64, tag string) string { return CounterValue{N: n, Tag: tag}.Format(testPad) }

// add appends op and returns its Seq.
func (h *hist) add(op Op) uint64 {
	op.Seq = uint64(len(h.ops) + 1)
	op.Workload = "w"
	if op.Attempt == 0 {
		op.Attempt = 1
	}
	if op.Call == 0 && op.Return == 0 {
		h.t += 10
		op.Call = h.t
		h.t += 5
		op.Return = h.t
	}
	op.Intended = op.Call
	h.ops = append(h.ops, op)
	return op.Seq
}

// op returns the recorded op with that Seq, to adjust it.
func (h *hist) op(seq uint64) *Op { return &h.ops[seq-1] }

// answered fills the status a real service would have given.
func answered(kind string, o Outcome) Output {
	switch o {
	case OK:
		if kind == kindBlobCreate {
			return Output{Status: 201}
		}
		return Output{Status: 200}
	case Conflict:
		if kind == kindBlobCreate {
			return Output{Status: 409, ErrorCode: "BlobAlreadyExists"}
		}
		return Output{Status: 412, ErrorCode: "ConditionNotMet"}
	case Throttled:
		return Output{Status: 503, ErrorCode: "ServerBusy"}
	case Error:
		return Output{Status: 400, ErrorCode: "InvalidHeaderValue"}
	}
	return Output{Err: "timeout"}
}

func (h *hist) setup(key, etag string) uint64 {
	return h.add(Op{Actor: ActorSetup, Kind: kindBlobPut, Key: key, In: Input{Value: cval(0, "setup-1")},
		Out: Output{Status: 201, ETag: etag}})
}

// get records a successful read of counter n written with tag.
func (h *hist) get(actor int, key string, n int64, tag, etag string) uint64 {
	return h.add(Op{Actor: actor, Kind: kindBlobGet, Key: key, Out: Output{Status: 200, ETag: etag, Value: cval(n, tag)}})
}

// failedGet records a read that did not answer with a value.
func (h *hist) failedGet(actor int, key string, o Outcome) uint64 {
	return h.add(Op{Actor: actor, Kind: kindBlobGet, Key: key, Outcome: o, Out: answered(kindBlobGet, o)})
}

// put records an If-Match write of counter n; etag is the new ETag if ok.
func (h *hist) put(actor int, key, ifMatch string, n int64, tag string, o Outcome, etag string) uint64 {
	out := answered(kindBlobPut, o)
	if o == OK {
		out.Status, out.ETag = 201, etag
	}
	return h.add(Op{Actor: actor, Kind: kindBlobPut, Key: key, Outcome: o, In: Input{IfMatch: ifMatch, Value: cval(n, tag)}, Out: out})
}

// rmw records one clean iteration: read n (tag, etag), write n+1 with If-Match.
func (h *hist) rmw(actor int, key string, n int64, readTag, readETag, tag, newETag string) (get, put uint64) {
	return h.get(actor, key, n, readTag, readETag), h.put(actor, key, readETag, n+1, tag, OK, newETag)
}

func (h *hist) lease(actor int, kind, key, id string, o Outcome) uint64 {
	out := answered(kind, o)
	if o == OK {
		out.Value = id
	} else if o == Conflict {
		out.Status, out.ErrorCode = 409, "LeaseAlreadyPresent"
	}
	return h.add(Op{Actor: actor, Kind: kind, Key: key, Outcome: o, In: Input{LeaseID: id}, Out: out})
}

func (h *hist) leaseGet(actor int, key, id string, n int64, tag string) uint64 {
	s := h.get(actor, key, n, tag, "")
	h.op(s).In.LeaseID = id
	return s
}

func (h *hist) leasePut(actor int, key, id string, n int64, tag string, o Outcome) uint64 {
	out := answered(kindBlobPut, o)
	if o == OK {
		out.Status = 201
	}
	return h.add(Op{Actor: actor, Kind: kindBlobPut, Key: key, Outcome: o, In: Input{LeaseID: id, Value: cval(n, tag)}, Out: out})
}

func (h *hist) final(key string, n int64, tag, etag string) uint64 {
	return h.get(ActorFinal, key, n, tag, etag)
}

func (h *hist) final404(key string) uint64 {
	return h.add(Op{Actor: ActorFinal, Kind: kindBlobGet, Key: key, Outcome: Error,
		Out: Output{Status: 404, ErrorCode: "BlobNotFound"}})
}

// create records a create-once attempt; call and ret may be 0 for "next".
func (h *hist) create(actor int, key string, round int64, tag string, o Outcome, call, ret int64) uint64 {
	return h.add(Op{Actor: actor, Kind: kindBlobCreate, Key: key, Outcome: o, Call: call, Return: ret,
		In: Input{IfNoneMatch: "*", Value: cval(round, tag)}, Out: answered(kindBlobCreate, o)})
}

// check runs a fresh checker by name over the history.
func (h *hist) check(t *testing.T, name string) Result {
	t.Helper()
	c, err := New(name)
	if err != nil {
		t.Fatal(err)
	}
	return Run(h.ops, c)[0]
}

// expectViolation is one violation a case must report: a message substring
// and the operations (by Seq) its excerpt must hold.
type expectViolation struct {
	msg  string
	seqs []uint64
}

func vio(msg string, seqs ...uint64) expectViolation { return expectViolation{msg, seqs} }

// want is what a case expects of the result.
type want struct {
	verdict Verdict
	summary string            // substring of the summary, if set
	vios    []expectViolation // each must be matched by some violation
	total   int               // if > 0, the exact number of violations
}

func (w want) assert(t *testing.T, r Result) {
	t.Helper()
	defer func() {
		if t.Failed() {
			t.Log(describe(r))
		}
	}()
	if r.Verdict != w.verdict {
		t.Errorf("verdict %s, want %s", r.Verdict, w.verdict)
	}
	if w.summary != "" && !strings.Contains(r.Summary, w.summary) {
		t.Errorf("summary %q does not contain %q", r.Summary, w.summary)
	}
	if w.verdict != Fail && len(r.Violations) > 0 {
		t.Errorf("%d violations on a %s verdict", len(r.Violations), w.verdict)
	}
	if w.total > 0 && r.Total != w.total {
		t.Errorf("%d violations, want %d", r.Total, w.total)
	}
	if r.Total < len(r.Violations) || len(r.Violations) > MaxViolations {
		t.Errorf("total %d with %d violations listed", r.Total, len(r.Violations))
	}
	checkKinds(t, r)
	for _, e := range w.vios {
		if !slices.ContainsFunc(r.Violations, func(v Violation) bool { return matches(v, e) }) {
			t.Errorf("no violation with %q whose excerpt holds %v", e.msg, e.seqs)
		}
	}
	for _, v := range r.Violations {
		if len(v.Ops) == 0 || len(v.Ops) > maxExcerpt {
			t.Errorf("violation %q carries %d ops", v.Message, len(v.Ops))
		}
		if !slices.IsSortedFunc(v.Ops, func(a, b Op) int { return int(a.Seq) - int(b.Seq) }) {
			t.Errorf("violation %q: ops not in Seq order", v.Message)
		}
	}
}

func matches(v Violation, e expectViolation) bool {
	if !strings.Contains(v.Message, e.msg) {
		return false
	}
	for _, s := range e.seqs {
		if !slices.ContainsFunc(v.Ops, func(o Op) bool { return o.Seq == s }) {
			return false
		}
	}
	return true
}

// checkKinds: every violation is classified by a kind, and the kinds count
// every violation, listed or not.
func checkKinds(t *testing.T, r Result) {
	t.Helper()
	sum := 0
	for k, n := range r.Kinds {
		if k == "" || k == OtherKind || n <= 0 {
			t.Errorf("%s: kind %q counted %d times", r.Check, k, n)
		}
		sum += n
	}
	if sum != r.Total {
		t.Errorf("%s: kinds %v count %d violations, total %d", r.Check, r.Kinds, sum, r.Total)
	}
	for _, v := range r.Violations {
		if v.Kind == "" || v.Kind == OtherKind || r.Kinds[v.Kind] == 0 {
			t.Errorf("%s: violation %q of kind %q (kinds %v)", r.Check, v.Message, v.Kind, r.Kinds)
		}
	}
}

func describe(r Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\n", r.Verdict, r.Summary)
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "  [%s] %s\n", v.Key, v.Message)
		for i := range v.Ops {
			fmt.Fprintf(&b, "      %s\n", v.Ops[i].String())
		}
	}
	return b.String()
}
