package consistency

// Histories of a linearizable blob register, for the version-chain and
// linearizable checkers' property tests, cross-checks and benchmarks:
//
//	func genRegisterHistory(r *rand.Rand, actors, ops int, mix registerMix, unknownRate float64, violation bool) []Op
//
// simulates `actors` clients issuing `ops` operations (in all, besides the
// setup write and the final read) on one blob, key regKey, against a correct
// service, with real concurrency: every operation has its own call/return
// interval, and the service applies it at one random instant inside it (a
// read returns the state at its instant; an If-Match write succeeds iff its
// base is the current ETag at its instant). mix weighs reads, If-Match
// writes and unconditional writes (registerCASMix: 45/45/10), and optionally
// makes reads conditional (If-None-Match on the actor's last ETag: a 304 when
// it is current) and writes set-metadata. unknownRate is the chance that a
// write times out (Outcome Unknown, Return = the end of the history; it takes
// effect or not, possibly after the actor gave up) and that a read times out
// (dropped by checkers). An actor that got a 412 or an unknown outcome reads
// before its next If-Match write. With violation, the service lets exactly
// one If-Match write succeed on a base another acknowledged If-Match write
// already replaced: a lost update (two applied writes on one base).
//
// The history starts with the setup write (ActorSetup, value "init", ETag
// "0x1") and ends with a final read (ActorFinal). Seq is record order: when
// the client got its answer (or gave up). Every write attempt stores a unique
// value "a<actor>-<n>"; ETags are "0x<version in hex>".

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/stormcheck/stormcheck/checks"
)

// registerMix weighs the operations genRegisterHistory issues.
type registerMix struct {
	Read, IfMatch, Uncond float64 // relative weights of reads, If-Match writes and unconditional writes
	CondRead              float64 // fraction of reads sent with If-None-Match: the actor's last ETag
	SetMeta               float64 // fraction of writes that are blob.setmeta (a new ETag, the same content)
}

// registerCASMix is CHECKERS.md's mix: 45% reads, 45% If-Match writes, 10%
// unconditional writes.
var registerCASMix = registerMix{Read: 0.45, IfMatch: 0.45, Uncond: 0.10}

// regKey is the blob genRegisterHistory writes.
const regKey = "reg"

type regEvent struct {
	t     int64
	apply bool // the service applies the op (else: the client gets its answer)
	n     int  // issue order, to break ties
	p     *regPending
}

type regEvents []regEvent

func (h regEvents) Len() int { return len(h) }
func (h regEvents) Less(i, j int) bool {
	if h[i].t != h[j].t {
		return h[i].t < h[j].t
	}
	if h[i].apply != h[j].apply {
		return h[i].apply
	}
	return h[i].n < h[j].n
}
func (h regEvents) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *regEvents) Push(x any)   { *h = append(*h, x.(regEvent)) }
func (h *regEvents) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

type regPending struct {
	op      checks.Op
	actor   *regActor
	unknown bool // the client will time out
	lands   bool // an unknown write takes effect
}

type regActor struct {
	id     int
	etag   string // the last ETag it knows, "" after a 412 or an unknown outcome
	writes int
}

type regGen struct {
	r           *rand.Rand
	mix         registerMix
	unknownRate float64
	left        int // operations still to issue
	n           int
	events      regEvents
	ops         []checks.Op
	end         int64

	etag, value string
	ver         int
	// For the injected fault: how the current version was installed.
	curBase       string // the base ETag of the acknowledged If-Match write that installed it, "" otherwise
	violation     bool
	injectAfter   int // applied writes before the fault may happen
	appliedWrites int
	injected      bool
}

// genRegisterHistory: see the top of this file.
func genRegisterHistory(r *rand.Rand, actors, ops int, mix registerMix, unknownRate float64, violation bool) []checks.Op {
	g := &regGen{r: r, mix: mix, unknownRate: unknownRate, left: ops, violation: violation, value: "init"}
	g.injectAfter = ops/8 + r.IntN(ops/4+1)
	g.bump()
	g.ops = make([]checks.Op, 0, ops+4)
	g.record(checks.Op{Actor: checks.ActorSetup, Kind: checks.KindBlobPut, Key: regKey, Call: 1, Return: 2, In: checks.Input{Value: g.value},
		Out: checks.Output{Status: 201, ETag: g.etag}})
	for i := range max(actors, 1) {
		g.issue(&regActor{id: i}, 3+r.Int64N(10))
	}
	for g.events.Len() > 0 {
		e := heap.Pop(&g.events).(regEvent)
		g.end = max(g.end, e.t)
		if e.apply {
			g.applyOp(e.p)
			continue
		}
		g.answer(e.p, e.t)
	}
	for i := range g.ops {
		if o := &g.ops[i]; o.Outcome == checks.Unknown && o.Kind != checks.KindBlobGet {
			o.Return = g.end + 1 // concurrent with everything after its call
		}
	}
	t := g.end + 2
	if violation && !g.injected {
		// Too few writes met the fault's condition: append one fork.
		g.record(checks.Op{Actor: 0, Kind: checks.KindBlobGet, Key: regKey, Call: t, Return: t + 1, Out: checks.Output{Status: 200, ETag: g.etag, Value: g.value}})
		base := g.etag
		for i := range 2 {
			v := fmt.Sprintf("a%d-fork%d", i%max(actors, 1), i)
			g.value = v
			g.bump()
			g.record(checks.Op{Actor: i % max(actors, 1), Kind: checks.KindBlobPut, Key: regKey, Call: t + 2 + int64(2*i), Return: t + 3 + int64(2*i),
				In: checks.Input{IfMatch: base, Value: v}, Out: checks.Output{Status: 201, ETag: g.etag}})
		}
		t += 6
	}
	g.record(checks.Op{Actor: checks.ActorFinal, Kind: checks.KindBlobGet, Key: regKey, Call: t, Return: t + 1, Out: checks.Output{Status: 200, ETag: g.etag, Value: g.value}})
	return g.ops
}

func (g *regGen) bump() {
	g.ver++
	g.etag = "0x" + strconv.FormatInt(int64(g.ver), 16)
}

func (g *regGen) record(op checks.Op) {
	op.Seq = uint64(len(g.ops) + 1)
	op.Workload = "register"
	op.Attempt = 1
	op.Intended = op.Call
	g.ops = append(g.ops, op)
}

// duration draws a call's latency: mostly short, sometimes long.
func (g *regGen) duration() int64 {
	d := 1 + g.r.Int64N(40)
	if g.r.IntN(10) == 0 {
		d += g.r.Int64N(400)
	}
	return d
}

func (g *regGen) issue(a *regActor, call int64) {
	if g.left == 0 {
		return
	}
	g.left--
	p := &regPending{actor: a, unknown: g.r.Float64() < g.unknownRate}
	op := checks.Op{Actor: a.id, Key: regKey, Call: call}
	m := g.mix
	x := g.r.Float64() * (m.Read + m.IfMatch + m.Uncond)
	switch {
	case x < m.Read || x < m.Read+m.IfMatch && a.etag == "":
		op.Kind = checks.KindBlobGet
		if a.etag != "" && g.r.Float64() < m.CondRead {
			op.In.IfNoneMatch = a.etag
		}
	default:
		op.Kind = checks.KindBlobPut
		if x < m.Read+m.IfMatch {
			op.In.IfMatch = a.etag
		}
		if g.r.Float64() < m.SetMeta {
			op.Kind = "blob.setmeta"
		} else {
			a.writes++
			op.In.Value = "a" + strconv.Itoa(a.id) + "-" + strconv.Itoa(a.writes)
		}
		p.lands = g.r.IntN(2) == 0
	}
	d := g.duration()
	op.Return = call + d
	if p.unknown {
		op.Outcome, op.Out = checks.Unknown, checks.Output{Err: "context deadline exceeded"}
	}
	p.op = op
	apply := call + g.r.Int64N(d+1)
	if p.unknown && op.Kind != checks.KindBlobGet {
		apply = call + g.r.Int64N(3*d+1) // may land after the client gave up
	}
	g.n++
	heap.Push(&g.events, regEvent{t: apply, apply: true, n: g.n, p: p})
	heap.Push(&g.events, regEvent{t: op.Return, n: g.n, p: p})
}

// applyOp is the service: the op takes effect at this instant.
func (g *regGen) applyOp(p *regPending) {
	op := &p.op
	if op.Kind == checks.KindBlobGet {
		if p.unknown {
			return
		}
		if op.In.IfNoneMatch != "" && op.In.IfNoneMatch == g.etag {
			op.Outcome, op.Out = checks.OK, checks.Output{Status: 304, ETag: g.etag}
			return
		}
		op.Outcome, op.Out = checks.OK, checks.Output{Status: 200, ETag: g.etag, Value: g.value}
		return
	}
	if p.unknown {
		if !p.lands || op.In.IfMatch != "" && op.In.IfMatch != g.etag {
			return
		}
		g.install(op, "")
		return
	}
	if m := op.In.IfMatch; m != "" && m != g.etag {
		if g.violation && !g.injected && g.appliedWrites >= g.injectAfter && m == g.curBase {
			// The fault: this write and the one that installed the current
			// version both succeed on base m.
			g.injected = true
			g.install(op, "")
			op.Outcome, op.Out = checks.OK, checks.Output{Status: 201, ETag: g.etag}
			return
		}
		op.Outcome, op.Out = checks.Conflict, checks.Output{Status: 412, ErrorCode: "ConditionNotMet"}
		return
	}
	g.install(op, op.In.IfMatch)
	op.Outcome, op.Out = checks.OK, checks.Output{Status: 201, ETag: g.etag}
}

func (g *regGen) install(op *checks.Op, ackedBase string) {
	if op.Kind != "blob.setmeta" {
		g.value = op.In.Value
	}
	g.bump()
	g.curBase = ackedBase
	g.appliedWrites++
}

// answer is the client getting its answer (or giving up) at t.
func (g *regGen) answer(p *regPending, t int64) {
	a, op := p.actor, &p.op
	g.record(*op)
	switch {
	case op.Outcome != checks.OK:
		if op.Kind != checks.KindBlobGet {
			a.etag = "" // read before writing again (CHECKERS.md, unknown outcomes, rule 6)
		}
	case op.Out.ETag != "":
		a.etag = op.Out.ETag
	}
	g.issue(a, t+g.r.Int64N(5))
}
