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
package checks

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// hist builds hand-made histories. Every op gets the next Seq and, unless
// the test sets them, a call/return window after the previous op's.
type Hist struct {
	Ops []Op
	T   int64
}

func NewHist() *Hist { return &Hist{} }

const testPad = 64 // pad written values like payload_bytes would

func Cval(n int64, tag string) string { return CounterValue{N: n, Tag: tag}.Format(testPad) }

// add appends op and returns its Seq.
func (h *Hist) Add(op Op) uint64 {
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
func (h *Hist) Op(seq uint64) *Op { return &h.Ops[seq-1] }

// answered fills the status a real service would have given.
func Answered(kind string, o Outcome) Output {
	switch o {
	case OK:
		if kind == KindBlobCreate {
			return Output{Status: 201}
		}
		return Output{Status: 200}
	case Conflict:
		if kind == KindBlobCreate {
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

func (h *Hist) Setup(key, etag string) uint64 {
	return h.Add(Op{Actor: ActorSetup, Kind: KindBlobPut, Key: key, In: Input{Value: Cval(0, "setup-1")},
		Out: Output{Status: 201, ETag: etag}})
}

// get records a successful read of counter n written with tag.
func (h *Hist) Get(actor int, key string, n int64, tag, etag string) uint64 {
	return h.Add(Op{Actor: actor, Kind: KindBlobGet, Key: key, Out: Output{Status: 200, ETag: etag, Value: Cval(n, tag)}})
}

// failedGet records a read that did not answer with a value.
func (h *Hist) FailedGet(actor int, key string, o Outcome) uint64 {
	return h.Add(Op{Actor: actor, Kind: KindBlobGet, Key: key, Outcome: o, Out: Answered(KindBlobGet, o)})
}

// put records an If-Match write of counter n; etag is the new ETag if ok.
func (h *Hist) Put(actor int, key, ifMatch string, n int64, tag string, o Outcome, etag string) uint64 {
	out := Answered(KindBlobPut, o)
	if o == OK {
		out.Status, out.ETag = 201, etag
	}
	return h.Add(Op{Actor: actor, Kind: KindBlobPut, Key: key, Outcome: o, In: Input{IfMatch: ifMatch, Value: Cval(n, tag)}, Out: out})
}

// rmw records one clean iteration: read n (tag, etag), write n+1 with If-Match.
func (h *Hist) Rmw(actor int, key string, n int64, readTag, readETag, tag, newETag string) (get, put uint64) {
	return h.Get(actor, key, n, readTag, readETag), h.Put(actor, key, readETag, n+1, tag, OK, newETag)
}

func (h *Hist) Lease(actor int, kind, key, id string, o Outcome) uint64 {
	out := Answered(kind, o)
	if o == OK {
		out.Value = id
	} else if o == Conflict {
		out.Status, out.ErrorCode = 409, "LeaseAlreadyPresent"
	}
	return h.Add(Op{Actor: actor, Kind: kind, Key: key, Outcome: o, In: Input{LeaseID: id}, Out: out})
}

func (h *Hist) LeaseGet(actor int, key, id string, n int64, tag string) uint64 {
	s := h.Get(actor, key, n, tag, "")
	h.Op(s).In.LeaseID = id
	return s
}

func (h *Hist) LeasePut(actor int, key, id string, n int64, tag string, o Outcome) uint64 {
	out := Answered(KindBlobPut, o)
	if o == OK {
		out.Status = 201
	}
	return h.Add(Op{Actor: actor, Kind: KindBlobPut, Key: key, Outcome: o, In: Input{LeaseID: id, Value: Cval(n, tag)}, Out: out})
}

func (h *Hist) Final(key string, n int64, tag, etag string) uint64 {
	return h.Get(ActorFinal, key, n, tag, etag)
}

func (h *Hist) Final404(key string) uint64 {
	return h.Add(Op{Actor: ActorFinal, Kind: KindBlobGet, Key: key, Outcome: Error,
		Out: Output{Status: 404, ErrorCode: "BlobNotFound"}})
}

// create records a create-once attempt; call and ret may be 0 for "next".
func (h *Hist) Create(actor int, key string, round int64, tag string, o Outcome, call, ret int64) uint64 {
	return h.Add(Op{Actor: actor, Kind: KindBlobCreate, Key: key, Outcome: o, Call: call, Return: ret,
		In: Input{IfNoneMatch: "*", Value: Cval(round, tag)}, Out: Answered(KindBlobCreate, o)})
}

// check runs a fresh checker by name over the history.
func (h *Hist) Check(t *testing.T, name string) Result {
	t.Helper()
	c, err := New(name)
	if err != nil {
		t.Fatal(err)
	}
	return Run(h.Ops, c)[0]
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
	Verdict Verdict
	Summary string            // substring of the summary, if set
	Vios    []ExpectViolation // each must be matched by some violation
	Total   int               // if > 0, the exact number of violations
}

func (w Want) Assert(t *testing.T, r Result) {
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
	if w.Verdict != Fail && len(r.Violations) > 0 {
		t.Errorf("%d violations on a %s verdict", len(r.Violations), w.Verdict)
	}
	if w.Total > 0 && r.Total != w.Total {
		t.Errorf("%d violations, want %d", r.Total, w.Total)
	}
	if r.Total < len(r.Violations) || len(r.Violations) > MaxViolations {
		t.Errorf("total %d with %d violations listed", r.Total, len(r.Violations))
	}
	CheckKinds(t, r)
	for _, e := range w.Vios {
		if !slices.ContainsFunc(r.Violations, func(v Violation) bool { return Matches(v, e) }) {
			t.Errorf("no violation with %q whose excerpt holds %v", e.Msg, e.Seqs)
		}
	}
	for _, v := range r.Violations {
		if len(v.Ops) == 0 || len(v.Ops) > MaxExcerpt {
			t.Errorf("violation %q carries %d ops", v.Message, len(v.Ops))
		}
		if !slices.IsSortedFunc(v.Ops, func(a, b Op) int { return int(a.Seq) - int(b.Seq) }) {
			t.Errorf("violation %q: ops not in Seq order", v.Message)
		}
	}
}

func Matches(v Violation, e ExpectViolation) bool {
	if !strings.Contains(v.Message, e.Msg) {
		return false
	}
	for _, s := range e.Seqs {
		if !slices.ContainsFunc(v.Ops, func(o Op) bool { return o.Seq == s }) {
			return false
		}
	}
	return true
}

// checkKinds: every violation is classified by a kind, and the kinds count
// every violation, listed or not.
func CheckKinds(t *testing.T, r Result) {
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

func Describe(r Result) string {
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
	op      Op
	fate    simFate
	applied bool
	effect  func(op *Op, acked bool)
}

type simActor interface {
	next() *simReq // the next request, or nil when the actor is done
	Result(op *Op) // the recorded answer
}

type simEngine struct {
	stopAt  int // if > 0, actors issue nothing new once this many ops are recorded
	r       *rand.Rand
	ops     []Op
	clock   int64
	orphans []*simReq
}

func (e *simEngine) record(op *Op) *Op {
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
	timeout := Output{Err: "timeout"}
	switch q.fate {
	case fNormal:
		q.effect(op, true)
	case fThrottle:
		op.Outcome, op.Out = Throttled, Output{Status: 503, ErrorCode: "ServerBusy"}
	case fError:
		op.Outcome, op.Out = Error, Output{Err: "connection refused"}
	case fLost:
		op.Outcome, op.Out = Unknown, timeout
	case fApplied:
		tmp := *op
		q.effect(&tmp, false)
		op.Outcome, op.Out = Unknown, timeout
	case fLate:
		op.Outcome, op.Out = Unknown, timeout
	case f500:
		if e.r.IntN(2) == 0 {
			tmp := *op
			q.effect(&tmp, false)
		}
		op.Outcome, op.Out = Throttled, Output{Status: 500, ErrorCode: "OperationTimedOut"}
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
func SimulateCounter(r *rand.Rand, cfg *CounterConfig) []Op {
	return SimulateCounterWith(r, cfg, &CounterSim{})
}

// simulateCounterWith runs the simulation on s, which the caller may inspect
// afterwards (injected) or bound (stopAt: stop issuing after that many ops).
func SimulateCounterWith(r *rand.Rand, cfg *CounterConfig, s *CounterSim) []Op {
	s.e, s.cfg = &simEngine{r: r, stopAt: s.StopAt}, cfg
	for i := range cfg.Keys {
		b := &simBlob{key: "k" + strconv.Itoa(i), exists: true}
		b.value = CounterValue{N: 0, Tag: "setup-" + strconv.Itoa(i+1)}.Format(cfg.Pad)
		b.bump()
		s.blobs = append(s.blobs, b)
		s.e.record(&Op{Actor: ActorSetup, Kind: KindBlobPut, Key: b.key, In: Input{Value: b.value}, Out: Output{Status: 201, ETag: b.etag}})
	}
	actors := make([]simActor, cfg.Actors)
	for i := range actors {
		actors[i] = &counterActor{s: s, id: i, left: cfg.Iters}
	}
	s.e.run(actors)
	for _, b := range s.blobs {
		s.e.record(&Op{Actor: ActorFinal, Kind: KindBlobGet, Key: b.key, Out: Output{Status: 200, ETag: b.etag, Value: b.value}})
	}
	for i := range s.e.ops {
		if s.e.ops[i].Outcome == Unknown {
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
		op:   Op{Actor: actor, Kind: KindBlobGet, Key: key, In: Input{LeaseID: lease}},
		fate: s.cfg.Probs.readFate(s.e.r),
		effect: func(op *Op, _ bool) {
			op.Outcome, op.Out = OK, Output{Status: 200, ETag: b.etag, Value: b.value}
		},
	}
}

func (s *CounterSim) putReq(actor int, key string, in Input, attempt int) *simReq {
	b := s.blob(key)
	return &simReq{
		op:   Op{Actor: actor, Kind: KindBlobPut, Key: key, In: in, Attempt: attempt},
		fate: s.cfg.Probs.writeFate(s.e.r),
		effect: func(op *Op, acked bool) {
			if in.IfMatch != "" && in.IfMatch != b.etag {
				op.Outcome, op.Out = Conflict, Output{Status: 412, ErrorCode: "ConditionNotMet"}
				return
			}
			if in.LeaseID != b.lease {
				op.Outcome, op.Out = Conflict, Output{Status: 412, ErrorCode: "LeaseIdMismatchWithBlobOperation"}
				return
			}
			if acked {
				s.okPuts++
				if s.cfg.Inject && !s.Injected && s.okPuts > s.cfg.injectAfter && op.Attempt == 1 {
					// The fault: acknowledge with a fresh ETag, store nothing.
					s.Injected = true
					op.Outcome, op.Out = OK, Output{Status: 201, ETag: "0xlost-" + b.key}
					return
				}
			}
			v, _ := ParseCounterValue(in.Value)
			b.value, b.n = in.Value, v.N
			b.bump()
			op.Outcome, op.Out = OK, Output{Status: 201, ETag: b.etag}
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
		op:   Op{Actor: actor, Kind: kind, Key: key, In: Input{LeaseID: id}},
		fate: fate,
		effect: func(op *Op, _ bool) {
			switch {
			case kind == "blob.lease.acquire" && b.lease == "":
				b.lease = id
				op.Outcome, op.Out = OK, Output{Status: 201, Value: id}
			case kind == "blob.lease.release" && b.lease == id:
				b.lease = ""
				op.Outcome, op.Out = OK, Output{Status: 200}
			default:
				op.Outcome, op.Out = Conflict, Output{Status: 409, ErrorCode: "LeaseAlreadyPresent"}
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
	base    Input // the write to retry
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
		v, _ := ParseCounterValue(in.Value)
		in.Value = CounterValue{N: v.N, Tag: a.tag()}.Format(s.cfg.Pad)
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

func (a *counterActor) Result(op *Op) {
	switch op.Kind {
	case "blob.lease.acquire":
		if op.Outcome == OK {
			a.state = 1
		}
	case "blob.lease.release":
		if op.Outcome == OK {
			a.done()
		}
	case KindBlobGet:
		if op.Outcome != OK {
			if a.s.cfg.Lease {
				a.state = 3 // the runner releases when the read fails
			}
			return
		}
		v, _ := ParseCounterValue(op.Out.Value)
		a.base = Input{IfMatch: op.Out.ETag, LeaseID: a.leaseID, Value: CounterValue{N: v.N + 1, Tag: "x"}.Format(0)}
		if a.s.cfg.Lease {
			a.base.IfMatch = ""
		}
		a.state, a.attempt = 2, 1
	case KindBlobPut:
		if (op.Outcome == Throttled || op.Outcome == Unknown) && a.attempt < 4 && a.s.e.r.Float64() < a.s.cfg.Probs.Retry {
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

func SimulateCreateOnce(r *rand.Rand, cfg *createConfig) (ops []Op, injected bool) {
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
			s.e.record(&Op{Actor: ActorFinal, Kind: KindBlobGet, Key: key, Outcome: Error, Out: Output{Status: 404, ErrorCode: "BlobNotFound"}})
			continue
		}
		s.e.record(&Op{Actor: ActorFinal, Kind: KindBlobGet, Key: key, Out: Output{Status: 200, ETag: b.etag, Value: b.value}})
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
	value := CounterValue{N: int64(a.round), Tag: "a" + strconv.Itoa(a.id) + "-" + strconv.Itoa(a.writes)}.Format(s.cfg.pad)
	return &simReq{
		op:   Op{Actor: a.id, Kind: KindBlobCreate, Key: key, Attempt: a.attempt, In: Input{IfNoneMatch: "*", Value: value}},
		fate: s.cfg.probs.writeFate(s.e.r),
		effect: func(op *Op, acked bool) {
			if b.exists {
				if acked && b.acked {
					s.conflict++
					if s.cfg.Inject && !s.injected && s.conflict > s.cfg.injectAfter {
						s.injected = true // the fault: a second 201 that overwrites
						b.value = value
						b.bump()
						op.Outcome, op.Out = OK, Output{Status: 201, ETag: b.etag}
						return
					}
				}
				op.Outcome, op.Out = Conflict, Output{Status: 409, ErrorCode: "BlobAlreadyExists"}
				return
			}
			b.exists, b.value, b.acked = true, value, acked
			b.bump()
			op.Outcome, op.Out = OK, Output{Status: 201, ETag: b.etag}
		},
	}
}

func (a *createActor) Result(op *Op) {
	if (op.Outcome == Throttled || op.Outcome == Unknown) && a.attempt < 4 && a.s.e.r.Float64() < a.s.cfg.probs.Retry {
		a.attempt++
		return
	}
	a.attempt = 0
}

// mrWrite records an entity write of props, all set to tag.
func (h *Hist) MrWrite(actor int, kind, key, tag string, props []string, o Outcome, call, ret int64) uint64 {
	out := Answered(kind, o)
	if o == OK {
		out.Status = 204
	}
	return h.Add(Op{Actor: actor, Kind: kind, Key: key, Outcome: o, Call: call, Return: ret,
		In: Input{Value: tag, Props: props}, Out: out})
}

// mrGet records an OK point read; props are "name=value".
func (h *Hist) MrGet(actor int, key string, call, ret int64, props ...string) uint64 {
	m := map[string]string{}
	for _, p := range props {
		k, v, _ := strings.Cut(p, "=")
		m[k] = v
	}
	return h.Add(Op{Actor: actor, Kind: KindTableGet, Key: key, Call: call, Return: ret, Out: Output{Status: 200, Props: m}})
}

// mrSetup writes p0, p1, p2 with tag "s" by a replace.
func (h *Hist) MrSetup(key string) uint64 {
	return h.MrWrite(ActorSetup, KindTableUpsert, key, "s", []string{"p0", "p1", "p2"}, OK, 1, 2)
}

// tbBatch records a table.batch of rows in partition part with stamp; call
// and ret may be 0 for "next".
func (h *Hist) TbBatch(actor int, part, stamp string, rows []string, o Outcome, call, ret int64) uint64 {
	out := Answered(KindTableBatch, o)
	if o == OK {
		out.Status = 202
	}
	return h.Add(Op{Actor: actor, Kind: KindTableBatch, Key: part, Outcome: o, Call: call, Return: ret,
		In: Input{Value: stamp, Rows: rows}, Out: out})
}

// tbFailing records a batch built to fail on row fails, answered 409.
func (h *Hist) TbFailing(actor int, part, stamp string, rows []string, fails string, call, ret int64) uint64 {
	s := h.TbBatch(actor, part, stamp, rows, Conflict, call, ret)
	h.Op(s).In.BatchFails = fails
	h.Op(s).Out = Output{Status: 409, ErrorCode: "EntityAlreadyExists"}
	return s
}

// tbSetup writes every row of part with the setup stamp "setup-<part>".
func (h *Hist) TbSetup(part string, rows ...string) uint64 {
	return h.TbBatch(ActorSetup, part, "setup-"+part, rows, OK, 1, 2)
}

// tbPage records one OK query page of part; ents are "row=stamp".
func (h *Hist) TbPage(actor int, part string, call, ret int64, ents ...string) uint64 {
	out := Output{Status: 200}
	for _, e := range ents {
		row, stamp, _ := strings.Cut(e, "=")
		out.Entities = append(out.Entities, Entity{Row: row, Value: stamp, ETag: "W/" + stamp})
	}
	return h.Add(Op{Actor: actor, Kind: KindTableQuery, Key: part, Call: call, Return: ret, Out: out})
}

func (h *Hist) TbFinal(part string, ents ...string) uint64 {
	return h.TbPage(ActorFinal, part, 10_000, 10_010, ents...)
}

func TbRows(s ...string) []string { return s }
