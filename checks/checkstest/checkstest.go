// Package checkstest holds what the checkers' tests share: a small language
// for writing histories by hand (Hist: setups, reads, writes, leases,
// creates, final reads, each with its outcome) and the expectations a check
// must meet on them (Want, Vio), and a simulated service and workload that
// generate valid histories, and histories with one injected fault, for the
// property tests and benchmarks.
//
// In the simulation every request goes through three steps picked in a
// random interleaving of all actors: it is sent (Call), it takes effect on
// the simulated blobs or not (according to its fate), and its answer comes
// back (Return, and the record, so Seq is record order as in the runner). A
// "late" request returns unknown while still in flight and lands at a
// random later step, or never.
//
// Only tests import it.
package checkstest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
)

// hist builds hand-made histories. Every op gets the next Seq and, unless
// the test sets them, a call/return window after the previous op's.
type Hist struct {
	Ops []checks.Op
	T   int64
}

func NewHist() *Hist { return &Hist{} }

const testPad = 64 // pad written values like payload_bytes would

func Cval(n int64, tag string) string { return checks.CounterValue{N: n, Tag: tag}.Format(testPad) }

// add appends op and returns its Seq.
func (h *Hist) Add(op checks.Op) uint64 {
	op.Seq = uint64(len(h.Ops) + 1)
	op.Workload = "w"
	if op.Attempt == 0 {
		op.Attempt = 1
	}
	if op.Call == 0 && op.Return == 0 {
		h.T += 10
		op.Call = h.T
		h.T += 5
		op.Return = h.T
	}
	op.Intended = op.Call
	h.Ops = append(h.Ops, op)
	return op.Seq
}

// op returns the recorded op with that Seq, to adjust it.
func (h *Hist) Op(seq uint64) *checks.Op { return &h.Ops[seq-1] }

// answered fills the status a real service would have given.
func Answered(kind string, o checks.Outcome) checks.Output {
	switch o {
	case checks.OK:
		if kind == checks.KindBlobCreate {
			return checks.Output{Status: 201}
		}
		return checks.Output{Status: 200}
	case checks.Conflict:
		if kind == checks.KindBlobCreate {
			return checks.Output{Status: 409, ErrorCode: "BlobAlreadyExists"}
		}
		return checks.Output{Status: 412, ErrorCode: "ConditionNotMet"}
	case checks.Throttled:
		return checks.Output{Status: 503, ErrorCode: "ServerBusy"}
	case checks.Error:
		return checks.Output{Status: 400, ErrorCode: "InvalidHeaderValue"}
	}
	return checks.Output{Err: "timeout"}
}

func (h *Hist) Setup(key, etag string) uint64 {
	return h.Add(checks.Op{Actor: checks.ActorSetup, Kind: checks.KindBlobPut, Key: key, In: checks.Input{Value: Cval(0, "setup-1")},
		Out: checks.Output{Status: 201, ETag: etag}})
}

// get records a successful read of counter n written with tag.
func (h *Hist) Get(actor int, key string, n int64, tag, etag string) uint64 {
	return h.Add(checks.Op{Actor: actor, Kind: checks.KindBlobGet, Key: key, Out: checks.Output{Status: 200, ETag: etag, Value: Cval(n, tag)}})
}

// failedGet records a read that did not answer with a value.
func (h *Hist) FailedGet(actor int, key string, o checks.Outcome) uint64 {
	return h.Add(checks.Op{Actor: actor, Kind: checks.KindBlobGet, Key: key, Outcome: o, Out: Answered(checks.KindBlobGet, o)})
}

// put records an If-Match write of counter n; etag is the new ETag if ok.
func (h *Hist) Put(actor int, key, ifMatch string, n int64, tag string, o checks.Outcome, etag string) uint64 {
	out := Answered(checks.KindBlobPut, o)
	if o == checks.OK {
		out.Status, out.ETag = 201, etag
	}
	return h.Add(checks.Op{Actor: actor, Kind: checks.KindBlobPut, Key: key, Outcome: o, In: checks.Input{IfMatch: ifMatch, Value: Cval(n, tag)}, Out: out})
}

// rmw records one clean iteration: read n (tag, etag), write n+1 with If-Match.
func (h *Hist) Rmw(actor int, key string, n int64, readTag, readETag, tag, newETag string) (get, put uint64) {
	return h.Get(actor, key, n, readTag, readETag), h.Put(actor, key, readETag, n+1, tag, checks.OK, newETag)
}

func (h *Hist) Lease(actor int, kind, key, id string, o checks.Outcome) uint64 {
	out := Answered(kind, o)
	if o == checks.OK {
		out.Value = id
	} else if o == checks.Conflict {
		out.Status, out.ErrorCode = 409, "LeaseAlreadyPresent"
	}
	return h.Add(checks.Op{Actor: actor, Kind: kind, Key: key, Outcome: o, In: checks.Input{LeaseID: id}, Out: out})
}

func (h *Hist) LeaseGet(actor int, key, id string, n int64, tag string) uint64 {
	s := h.Get(actor, key, n, tag, "")
	h.Op(s).In.LeaseID = id
	return s
}

func (h *Hist) LeasePut(actor int, key, id string, n int64, tag string, o checks.Outcome) uint64 {
	out := Answered(checks.KindBlobPut, o)
	if o == checks.OK {
		out.Status = 201
	}
	return h.Add(checks.Op{Actor: actor, Kind: checks.KindBlobPut, Key: key, Outcome: o, In: checks.Input{LeaseID: id, Value: Cval(n, tag)}, Out: out})
}

func (h *Hist) Final(key string, n int64, tag, etag string) uint64 {
	return h.Get(checks.ActorFinal, key, n, tag, etag)
}

func (h *Hist) Final404(key string) uint64 {
	return h.Add(checks.Op{Actor: checks.ActorFinal, Kind: checks.KindBlobGet, Key: key, Outcome: checks.Error,
		Out: checks.Output{Status: 404, ErrorCode: "BlobNotFound"}})
}

// create records a create-once attempt; call and ret may be 0 for "next".
func (h *Hist) Create(actor int, key string, round int64, tag string, o checks.Outcome, call, ret int64) uint64 {
	return h.Add(checks.Op{Actor: actor, Kind: checks.KindBlobCreate, Key: key, Outcome: o, Call: call, Return: ret,
		In: checks.Input{IfNoneMatch: "*", Value: Cval(round, tag)}, Out: Answered(checks.KindBlobCreate, o)})
}

// check runs a fresh checker by name over the history.
func (h *Hist) Check(t *testing.T, name string) checks.Result {
	t.Helper()
	c, err := checks.New(name)
	if err != nil {
		t.Fatal(err)
	}
	return checks.Run(h.Ops, c)[0]
}

// expectViolation is one violation a case must report: a message substring
// and the operations (by Seq) its excerpt must hold.
type ExpectViolation struct {
	Msg  string
	Seqs []uint64
}

func Vio(msg string, seqs ...uint64) ExpectViolation { return ExpectViolation{msg, seqs} }

// want is what a case expects of the result.
type Want struct {
	Verdict checks.Verdict
	Summary string            // substring of the summary, if set
	Vios    []ExpectViolation // each must be matched by some violation
	Total   int               // if > 0, the exact number of violations
}

func (w Want) Assert(t *testing.T, r checks.Result) {
	t.Helper()
	defer func() {
		if t.Failed() {
			t.Log(Describe(r))
		}
	}()
	if r.Verdict != w.Verdict {
		t.Errorf("verdict %s, want %s", r.Verdict, w.Verdict)
	}
	if w.Summary != "" && !strings.Contains(r.Summary, w.Summary) {
		t.Errorf("summary %q does not contain %q", r.Summary, w.Summary)
	}
	if w.Verdict != checks.Fail && len(r.Violations) > 0 {
		t.Errorf("%d violations on a %s verdict", len(r.Violations), w.Verdict)
	}
	if w.Total > 0 && r.Total != w.Total {
		t.Errorf("%d violations, want %d", r.Total, w.Total)
	}
	if r.Total < len(r.Violations) || len(r.Violations) > checks.MaxViolations {
		t.Errorf("total %d with %d violations listed", r.Total, len(r.Violations))
	}
	CheckKinds(t, r)
	for _, e := range w.Vios {
		if !slices.ContainsFunc(r.Violations, func(v checks.Violation) bool { return Matches(v, e) }) {
			t.Errorf("no violation with %q whose excerpt holds %v", e.Msg, e.Seqs)
		}
	}
	for _, v := range r.Violations {
		if len(v.Ops) == 0 || len(v.Ops) > checks.MaxExcerpt {
			t.Errorf("violation %q carries %d ops", v.Message, len(v.Ops))
		}
		if !slices.IsSortedFunc(v.Ops, func(a, b checks.Op) int { return int(a.Seq) - int(b.Seq) }) {
			t.Errorf("violation %q: ops not in Seq order", v.Message)
		}
	}
}

func Matches(v checks.Violation, e ExpectViolation) bool {
	if !strings.Contains(v.Message, e.Msg) {
		return false
	}
	for _, s := range e.Seqs {
		if !slices.ContainsFunc(v.Ops, func(o checks.Op) bool { return o.Seq == s }) {
			return false
		}
	}
	return true
}

// checkKinds: every violation is classified by a kind, and the kinds count
// every violation, listed or not.
func CheckKinds(t *testing.T, r checks.Result) {
	t.Helper()
	sum := 0
	for k, n := range r.Kinds {
		if k == "" || k == checks.OtherKind || n <= 0 {
			t.Errorf("%s: kind %q counted %d times", r.Check, k, n)
		}
		sum += n
	}
	if sum != r.Total {
		t.Errorf("%s: kinds %v count %d violations, total %d", r.Check, r.Kinds, sum, r.Total)
	}
	for _, v := range r.Violations {
		if v.Kind == "" || v.Kind == checks.OtherKind || r.Kinds[v.Kind] == 0 {
			t.Errorf("%s: violation %q of kind %q (kinds %v)", r.Check, v.Message, v.Kind, r.Kinds)
		}
	}
}

func Describe(r checks.Result) string {
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

type simFate uint8

const (
	fNormal   simFate = iota
	fThrottle         // 503 ServerBusy, no effect
	fError            // refused before sending, no effect
	fLost             // timed out, never reached the service
	fApplied          // timed out after the service applied it
	fLate             // timed out, still in flight: lands later or never
	f500              // 500 OperationTimedOut, applied or not
)

// simProbs are the chances of each fate of a write (the rest is normal).
type SimProbs struct {
	Throttle, Err, Lost, Applied, Late, T500 float64
	Retry                                    float64 // retry a throttled/unknown write (same value, new tag)
	BadGet                                   float64 // a read times out or is throttled
}

func randomProbs(r *rand.Rand) SimProbs {
	u := func(max float64) float64 { return r.Float64() * max }
	return SimProbs{Throttle: u(0.1), Err: u(0.05), Lost: u(0.08), Applied: u(0.08), Late: u(0.08), T500: u(0.04),
		Retry: u(1), BadGet: u(0.1)}
}

func (p SimProbs) writeFate(r *rand.Rand) simFate {
	x := r.Float64()
	for _, f := range []struct {
		p    float64
		fate simFate
	}{{p.Throttle, fThrottle}, {p.Err, fError}, {p.Lost, fLost}, {p.Applied, fApplied}, {p.Late, fLate}, {p.T500, f500}} {
		if x < f.p {
			return f.fate
		}
		x -= f.p
	}
	return fNormal
}

func (p SimProbs) readFate(r *rand.Rand) simFate {
	if r.Float64() < p.BadGet {
		if r.IntN(2) == 0 {
			return fThrottle
		}
		return fLost
	}
	return fNormal
}

// simReq is one request in flight. effect applies it to the simulated
// service and fills the answer; acked says whether that answer will reach
// the client.
type simReq struct {
	op      checks.Op
	fate    simFate
	applied bool
	effect  func(op *checks.Op, acked bool)
}

type simActor interface {
	next() *simReq        // the next request, or nil when the actor is done
	Result(op *checks.Op) // the recorded answer
}

type simEngine struct {
	stopAt  int // if > 0, actors issue nothing new once this many ops are recorded
	r       *rand.Rand
	ops     []checks.Op
	clock   int64
	orphans []*simReq
}

func (e *simEngine) record(op *checks.Op) *checks.Op {
	op.Seq = uint64(len(e.ops) + 1)
	op.Workload = "sim"
	if op.Attempt == 0 {
		op.Attempt = 1
	}
	if op.Call == 0 {
		e.clock++
		op.Call = e.clock
		e.clock++
	}
	op.Intended = op.Call
	op.Return = e.clock
	e.ops = append(e.ops, *op)
	return &e.ops[len(e.ops)-1]
}

// run drives the actors until all are done and no request is in flight.
func (e *simEngine) run(actors []simActor) {
	type slot struct {
		a     simActor
		cur   *simReq
		phase int
	}
	live := make([]*slot, len(actors))
	for i, a := range actors {
		live[i] = &slot{a: a}
	}
	for len(live) > 0 || len(e.orphans) > 0 {
		e.clock++
		if i := e.r.IntN(len(live) + len(e.orphans)); i >= len(live) {
			o := e.orphans[i-len(live)]
			e.orphans = append(e.orphans[:i-len(live)], e.orphans[i-len(live)+1:]...)
			if e.r.IntN(3) > 0 { // lands; otherwise it never does (or after the final read)
				tmp := o.op
				o.effect(&tmp, false)
			}
			continue
		} else {
			s := live[i]
			switch {
			case s.cur == nil:
				if e.stopAt > 0 && len(e.ops) >= e.stopAt {
					s.cur = nil
				} else {
					s.cur = s.a.next()
				}
				if s.cur == nil {
					live = append(live[:i], live[i+1:]...)
					continue
				}
				s.cur.op.Call, s.phase = e.clock, 0
			case s.phase == 0:
				e.decide(s.cur)
				s.phase = 1
			default:
				op := e.record(&s.cur.op)
				if s.cur.fate == fLate {
					e.orphans = append(e.orphans, s.cur)
				}
				s.cur = nil
				s.a.Result(op)
			}
		}
	}
}

// decide is the step where the request reaches the service or not.
func (e *simEngine) decide(q *simReq) {
	op := &q.op
	timeout := checks.Output{Err: "timeout"}
	switch q.fate {
	case fNormal:
		q.effect(op, true)
	case fThrottle:
		op.Outcome, op.Out = checks.Throttled, checks.Output{Status: 503, ErrorCode: "ServerBusy"}
	case fError:
		op.Outcome, op.Out = checks.Error, checks.Output{Err: "connection refused"}
	case fLost:
		op.Outcome, op.Out = checks.Unknown, timeout
	case fApplied:
		tmp := *op
		q.effect(&tmp, false)
		op.Outcome, op.Out = checks.Unknown, timeout
	case fLate:
		op.Outcome, op.Out = checks.Unknown, timeout
	case f500:
		if e.r.IntN(2) == 0 {
			tmp := *op
			q.effect(&tmp, false)
		}
		op.Outcome, op.Out = checks.Throttled, checks.Output{Status: 500, ErrorCode: "OperationTimedOut"}
	}
}

type simBlob struct {
	key    string
	exists bool
	value  string
	n      int64
	etag   string
	ver    int
	lease  string
	acked  bool // created by an acknowledged create (create-once)
}

func (b *simBlob) bump() {
	b.ver++
	b.etag = "0x" + b.key + "-" + strconv.Itoa(b.ver)
}

type CounterConfig struct {
	Lease          bool
	Actors, Keys   int
	Iters          int // increments each actor tries
	Pad            int
	Probs          SimProbs
	Inject         bool // drop the effect of one acknowledged first-attempt put
	injectAfter    int  // ... the first such put after this many acknowledged puts
	injectedSeq    uint64
	UnknownRecords int
}

func (c CounterConfig) String() string {
	mode := "etag"
	if c.Lease {
		mode = "lease"
	}
	return fmt.Sprintf("%s actors=%d keys=%d iters=%d inject=%v probs=%+v", mode, c.Actors, c.Keys, c.Iters, c.Inject, c.Probs)
}

func RandomCounterConfig(r *rand.Rand) CounterConfig {
	return CounterConfig{
		Lease: r.IntN(2) == 0, Actors: 1 + r.IntN(8), Keys: 1 + r.IntN(3), Iters: 5 + r.IntN(30),
		Pad: r.IntN(80), Probs: randomProbs(r), injectAfter: r.IntN(6),
	}
}

type CounterSim struct {
	StopAt   int
	e        *simEngine
	cfg      *CounterConfig
	blobs    []*simBlob
	okPuts   int
	Injected bool
}

// simulateCounter generates one history of a counter workload against a
// correct service (except for the injected fault, if asked).
func SimulateCounter(r *rand.Rand, cfg *CounterConfig) []checks.Op {
	return SimulateCounterWith(r, cfg, &CounterSim{})
}

// simulateCounterWith runs the simulation on s, which the caller may inspect
// afterwards (injected) or bound (stopAt: stop issuing after that many ops).
func SimulateCounterWith(r *rand.Rand, cfg *CounterConfig, s *CounterSim) []checks.Op {
	s.e, s.cfg = &simEngine{r: r, stopAt: s.StopAt}, cfg
	for i := range cfg.Keys {
		b := &simBlob{key: "k" + strconv.Itoa(i), exists: true}
		b.value = checks.CounterValue{N: 0, Tag: "setup-" + strconv.Itoa(i+1)}.Format(cfg.Pad)
		b.bump()
		s.blobs = append(s.blobs, b)
		s.e.record(&checks.Op{Actor: checks.ActorSetup, Kind: checks.KindBlobPut, Key: b.key, In: checks.Input{Value: b.value}, Out: checks.Output{Status: 201, ETag: b.etag}})
	}
	actors := make([]simActor, cfg.Actors)
	for i := range actors {
		actors[i] = &counterActor{s: s, id: i, left: cfg.Iters}
	}
	s.e.run(actors)
	for _, b := range s.blobs {
		s.e.record(&checks.Op{Actor: checks.ActorFinal, Kind: checks.KindBlobGet, Key: b.key, Out: checks.Output{Status: 200, ETag: b.etag, Value: b.value}})
	}
	for i := range s.e.ops {
		if s.e.ops[i].Outcome == checks.Unknown {
			cfg.UnknownRecords++
		}
	}
	return s.e.ops
}

func (s *CounterSim) blob(key string) *simBlob {
	for _, b := range s.blobs {
		if b.key == key {
			return b
		}
	}
	panic("no blob " + key)
}

func (s *CounterSim) getReq(actor int, key, lease string) *simReq {
	b := s.blob(key)
	return &simReq{
		op:   checks.Op{Actor: actor, Kind: checks.KindBlobGet, Key: key, In: checks.Input{LeaseID: lease}},
		fate: s.cfg.Probs.readFate(s.e.r),
		effect: func(op *checks.Op, _ bool) {
			op.Outcome, op.Out = checks.OK, checks.Output{Status: 200, ETag: b.etag, Value: b.value}
		},
	}
}

func (s *CounterSim) putReq(actor int, key string, in checks.Input, attempt int) *simReq {
	b := s.blob(key)
	return &simReq{
		op:   checks.Op{Actor: actor, Kind: checks.KindBlobPut, Key: key, In: in, Attempt: attempt},
		fate: s.cfg.Probs.writeFate(s.e.r),
		effect: func(op *checks.Op, acked bool) {
			if in.IfMatch != "" && in.IfMatch != b.etag {
				op.Outcome, op.Out = checks.Conflict, checks.Output{Status: 412, ErrorCode: "ConditionNotMet"}
				return
			}
			if in.LeaseID != b.lease {
				op.Outcome, op.Out = checks.Conflict, checks.Output{Status: 412, ErrorCode: "LeaseIdMismatchWithBlobOperation"}
				return
			}
			if acked {
				s.okPuts++
				if s.cfg.Inject && !s.Injected && s.okPuts > s.cfg.injectAfter && op.Attempt == 1 {
					// The fault: acknowledge with a fresh ETag, store nothing.
					s.Injected = true
					op.Outcome, op.Out = checks.OK, checks.Output{Status: 201, ETag: "0xlost-" + b.key}
					return
				}
			}
			v, _ := checks.ParseCounterValue(in.Value)
			b.value, b.n = in.Value, v.N
			b.bump()
			op.Outcome, op.Out = checks.OK, checks.Output{Status: 201, ETag: b.etag}
		},
	}
}

func (s *CounterSim) leaseReq(actor int, kind, key, id string) *simReq {
	b := s.blob(key)
	fate := fNormal
	if s.e.r.Float64() < s.cfg.Probs.Throttle {
		fate = fThrottle
	}
	return &simReq{
		op:   checks.Op{Actor: actor, Kind: kind, Key: key, In: checks.Input{LeaseID: id}},
		fate: fate,
		effect: func(op *checks.Op, _ bool) {
			switch {
			case kind == "blob.lease.acquire" && b.lease == "":
				b.lease = id
				op.Outcome, op.Out = checks.OK, checks.Output{Status: 201, Value: id}
			case kind == "blob.lease.release" && b.lease == id:
				b.lease = ""
				op.Outcome, op.Out = checks.OK, checks.Output{Status: 200}
			default:
				op.Outcome, op.Out = checks.Conflict, checks.Output{Status: 409, ErrorCode: "LeaseAlreadyPresent"}
			}
		},
	}
}

// counterActor is one actor of either counter workload, as the runner's
// workloads behave: read, write n+1 (retrying a throttled or unknown write
// with the same counter and a new tag), and under a lease for lease-mutex.
type counterActor struct {
	s       *CounterSim
	id      int
	left    int
	state   int // 0 acquire, 1 get, 2 put, 3 release
	key     string
	leaseID string
	base    checks.Input // the write to retry
	attempt int
	writes  int
	leases  int
}

func (a *counterActor) tag() string {
	a.writes++
	return "a" + strconv.Itoa(a.id) + "-" + strconv.Itoa(a.writes)
}

func (a *counterActor) next() *simReq {
	s := a.s
	switch a.state {
	case 0, 1:
		if a.left == 0 {
			return nil
		}
		if a.state == 1 && a.leaseID != "" {
			return s.getReq(a.id, a.key, a.leaseID)
		}
		a.key = s.blobs[s.e.r.IntN(len(s.blobs))].key
		if s.cfg.Lease {
			a.leases++
			a.leaseID = "L" + strconv.Itoa(a.id) + "-" + strconv.Itoa(a.leases)
			return s.leaseReq(a.id, "blob.lease.acquire", a.key, a.leaseID)
		}
		return s.getReq(a.id, a.key, "")
	case 2:
		in := a.base
		v, _ := checks.ParseCounterValue(in.Value)
		in.Value = checks.CounterValue{N: v.N, Tag: a.tag()}.Format(s.cfg.Pad)
		return s.putReq(a.id, a.key, in, a.attempt)
	default:
		return s.leaseReq(a.id, "blob.lease.release", a.key, a.leaseID)
	}
}

func (a *counterActor) done() {
	a.left--
	a.state, a.leaseID = 0, ""
	if !a.s.cfg.Lease {
		a.state = 1
	}
}

func (a *counterActor) Result(op *checks.Op) {
	switch op.Kind {
	case "blob.lease.acquire":
		if op.Outcome == checks.OK {
			a.state = 1
		}
	case "blob.lease.release":
		if op.Outcome == checks.OK {
			a.done()
		}
	case checks.KindBlobGet:
		if op.Outcome != checks.OK {
			if a.s.cfg.Lease {
				a.state = 3 // the runner releases when the read fails
			}
			return
		}
		v, _ := checks.ParseCounterValue(op.Out.Value)
		a.base = checks.Input{IfMatch: op.Out.ETag, LeaseID: a.leaseID, Value: checks.CounterValue{N: v.N + 1, Tag: "x"}.Format(0)}
		if a.s.cfg.Lease {
			a.base.IfMatch = ""
		}
		a.state, a.attempt = 2, 1
	case checks.KindBlobPut:
		if (op.Outcome == checks.Throttled || op.Outcome == checks.Unknown) && a.attempt < 4 && a.s.e.r.Float64() < a.s.cfg.Probs.Retry {
			a.attempt++
			return
		}
		if a.s.cfg.Lease {
			a.state = 3
		} else {
			a.done()
		}
	}
}

type createConfig struct {
	actors, rounds int
	pad            int
	probs          SimProbs
	Inject         bool // one 409 becomes a second 201 that overwrites an acknowledged creation
	injectAfter    int
}

func (c createConfig) String() string {
	return fmt.Sprintf("actors=%d rounds=%d inject=%v probs=%+v", c.actors, c.rounds, c.Inject, c.probs)
}

func RandomCreateConfig(r *rand.Rand) createConfig {
	return createConfig{actors: 1 + r.IntN(8), rounds: 1 + r.IntN(20), pad: r.IntN(80), probs: randomProbs(r), injectAfter: r.IntN(4)}
}

type createSim struct {
	e        *simEngine
	cfg      *createConfig
	blobs    map[string]*simBlob
	conflict int
	injected bool
}

func SimulateCreateOnce(r *rand.Rand, cfg *createConfig) (ops []checks.Op, injected bool) {
	s := &createSim{e: &simEngine{r: r}, cfg: cfg, blobs: map[string]*simBlob{}}
	actors := make([]simActor, cfg.actors)
	for i := range actors {
		actors[i] = &createActor{s: s, id: i}
	}
	s.e.run(actors)
	for round := 1; round <= cfg.rounds; round++ {
		key := "c-r" + strconv.Itoa(round)
		b := s.blobs[key]
		if b == nil || !b.exists {
			s.e.record(&checks.Op{Actor: checks.ActorFinal, Kind: checks.KindBlobGet, Key: key, Outcome: checks.Error, Out: checks.Output{Status: 404, ErrorCode: "BlobNotFound"}})
			continue
		}
		s.e.record(&checks.Op{Actor: checks.ActorFinal, Kind: checks.KindBlobGet, Key: key, Out: checks.Output{Status: 200, ETag: b.etag, Value: b.value}})
	}
	return s.e.ops, s.injected
}

type createActor struct {
	s       *createSim
	id      int
	round   int
	attempt int
	writes  int
}

func (a *createActor) next() *simReq {
	s := a.s
	if a.attempt == 0 { // a new round; some actors skip some rounds
		a.round++
		for a.round <= s.cfg.rounds && s.e.r.IntN(4) == 0 {
			a.round++
		}
		a.attempt = 1
	}
	if a.round > s.cfg.rounds {
		return nil
	}
	key := "c-r" + strconv.Itoa(a.round)
	b := s.blobs[key]
	if b == nil {
		b = &simBlob{key: key}
		s.blobs[key] = b
	}
	a.writes++
	value := checks.CounterValue{N: int64(a.round), Tag: "a" + strconv.Itoa(a.id) + "-" + strconv.Itoa(a.writes)}.Format(s.cfg.pad)
	return &simReq{
		op:   checks.Op{Actor: a.id, Kind: checks.KindBlobCreate, Key: key, Attempt: a.attempt, In: checks.Input{IfNoneMatch: "*", Value: value}},
		fate: s.cfg.probs.writeFate(s.e.r),
		effect: func(op *checks.Op, acked bool) {
			if b.exists {
				if acked && b.acked {
					s.conflict++
					if s.cfg.Inject && !s.injected && s.conflict > s.cfg.injectAfter {
						s.injected = true // the fault: a second 201 that overwrites
						b.value = value
						b.bump()
						op.Outcome, op.Out = checks.OK, checks.Output{Status: 201, ETag: b.etag}
						return
					}
				}
				op.Outcome, op.Out = checks.Conflict, checks.Output{Status: 409, ErrorCode: "BlobAlreadyExists"}
				return
			}
			b.exists, b.value, b.acked = true, value, acked
			b.bump()
			op.Outcome, op.Out = checks.OK, checks.Output{Status: 201, ETag: b.etag}
		},
	}
}

func (a *createActor) Result(op *checks.Op) {
	if (op.Outcome == checks.Throttled || op.Outcome == checks.Unknown) && a.attempt < 4 && a.s.e.r.Float64() < a.s.cfg.probs.Retry {
		a.attempt++
		return
	}
	a.attempt = 0
}

// mrWrite records an entity write of props, all set to tag.
func (h *Hist) MrWrite(actor int, kind, key, tag string, props []string, o checks.Outcome, call, ret int64) uint64 {
	out := Answered(kind, o)
	if o == checks.OK {
		out.Status = 204
	}
	return h.Add(checks.Op{Actor: actor, Kind: kind, Key: key, Outcome: o, Call: call, Return: ret,
		In: checks.Input{Value: tag, Props: props}, Out: out})
}

// mrGet records an OK point read; props are "name=value".
func (h *Hist) MrGet(actor int, key string, call, ret int64, props ...string) uint64 {
	m := map[string]string{}
	for _, p := range props {
		k, v, _ := strings.Cut(p, "=")
		m[k] = v
	}
	return h.Add(checks.Op{Actor: actor, Kind: checks.KindTableGet, Key: key, Call: call, Return: ret, Out: checks.Output{Status: 200, Props: m}})
}

// mrSetup writes p0, p1, p2 with tag "s" by a replace.
func (h *Hist) MrSetup(key string) uint64 {
	return h.MrWrite(checks.ActorSetup, checks.KindTableUpsert, key, "s", []string{"p0", "p1", "p2"}, checks.OK, 1, 2)
}

// tbBatch records a table.batch of rows in partition part with stamp; call
// and ret may be 0 for "next".
func (h *Hist) TbBatch(actor int, part, stamp string, rows []string, o checks.Outcome, call, ret int64) uint64 {
	out := Answered(checks.KindTableBatch, o)
	if o == checks.OK {
		out.Status = 202
	}
	return h.Add(checks.Op{Actor: actor, Kind: checks.KindTableBatch, Key: part, Outcome: o, Call: call, Return: ret,
		In: checks.Input{Value: stamp, Rows: rows}, Out: out})
}

// tbFailing records a batch built to fail on row fails, answered 409.
func (h *Hist) TbFailing(actor int, part, stamp string, rows []string, fails string, call, ret int64) uint64 {
	s := h.TbBatch(actor, part, stamp, rows, checks.Conflict, call, ret)
	h.Op(s).In.BatchFails = fails
	h.Op(s).Out = checks.Output{Status: 409, ErrorCode: "EntityAlreadyExists"}
	return s
}

// tbSetup writes every row of part with the setup stamp "setup-<part>".
func (h *Hist) TbSetup(part string, rows ...string) uint64 {
	return h.TbBatch(checks.ActorSetup, part, "setup-"+part, rows, checks.OK, 1, 2)
}

// tbPage records one OK query page of part; ents are "row=stamp".
func (h *Hist) TbPage(actor int, part string, call, ret int64, ents ...string) uint64 {
	out := checks.Output{Status: 200}
	for _, e := range ents {
		row, stamp, _ := strings.Cut(e, "=")
		out.Entities = append(out.Entities, checks.Entity{Row: row, Value: stamp, ETag: "W/" + stamp})
	}
	return h.Add(checks.Op{Actor: actor, Kind: checks.KindTableQuery, Key: part, Call: call, Return: ret, Out: out})
}

func (h *Hist) TbFinal(part string, ents ...string) uint64 {
	return h.TbPage(checks.ActorFinal, part, 10_000, 10_010, ents...)
}

func TbRows(s ...string) []string { return s }
