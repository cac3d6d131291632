package consistency

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/stormcheck/stormcheck/checks"
)

// A generator of register histories for the linearizable checker's property
// tests and the checkers' benchmark: actors read blobs and write them with
// If-Match (or unconditionally, or Set Metadata) against a simulated service
// that is atomic unless a fault is injected. Every request is sent (Call),
// takes effect or not, and returns (Return, and the record), the three steps
// of all actors interleaved at random, so requests overlap as they do under
// load. Unknown outcomes: lost before the service, applied before the
// timeout, or still in flight (applied at a random later step, or never).
// The shared genRegisterHistory (versionchain_gen_test.go) makes the
// benchmark's histories and half of the cross-check's; this one adds the
// other faults.

// linFault is the fault a generated history may carry.
type linFault uint8

const (
	linNoFault     linFault = iota
	linFork                 // an If-Match write on the previous version is applied anyway: a lost update
	linStaleRead            // a read returns the previous version after its successor's write returned
	linSpurious412          // a write whose If-Match held is refused
	linLostAck              // a write is acknowledged with a new ETag but not stored
)

func (f linFault) String() string {
	return [...]string{"none", "fork", "stale-read", "spurious-412", "lost-ack"}[f]
}

type linGenConfig struct {
	keys, actors int
	ops          int     // write and read attempts per key, roughly
	readFrac     float64 // reads among attempts
	uncondFrac   float64 // unconditional writes among writes
	setmetaFrac  float64 // Set Metadata among attempts
	cond304      float64 // reads with If-None-Match on the cached ETag
	unknown      float64 // write attempts with an unknown outcome
	throttle     float64 // attempts throttled (503)
	fault        linFault
	faultAfter   int // recorded operations before the fault may strike
}

func (c linGenConfig) String() string {
	return fmt.Sprintf("keys=%d actors=%d ops=%d read=%.2f uncond=%.2f meta=%.2f 304=%.2f unknown=%.2f throttle=%.2f fault=%s after=%d",
		c.keys, c.actors, c.ops, c.readFrac, c.uncondFrac, c.setmetaFrac, c.cond304, c.unknown, c.throttle, c.fault, c.faultAfter)
}

// linBenchConfig is the mix of CHECKERS.md's measurements: 45% reads, 45%
// If-Match writes, 10% unconditional writes, 1% unknown outcomes.
func linBenchConfig(actors, ops int, fault linFault) linGenConfig {
	return linGenConfig{keys: 1, actors: actors, ops: ops, readFrac: 0.45, uncondFrac: 0.18, unknown: 0.01,
		fault: fault, faultAfter: ops / 10}
}

type linGenBlob struct {
	key              string
	val, etag        string
	ver              int
	writerRet        int64 // when the write that made this version returned acknowledged; -1 unknown
	prevVal, prevTag string
	consumed         map[string]bool // ETags an acknowledged If-Match write replaced
	lost             int
}

func (b *linGenBlob) bump() {
	b.ver++
	b.etag = "0x" + b.key + "-" + strconv.Itoa(b.ver)
	b.writerRet = -1
}

type linGenFate uint8

const (
	gNormal linGenFate = iota
	gThrottle
	gLost    // timed out before the service
	gApplied // timed out after the service applied it
	gLate    // timed out, lands later or never
)

type linGenReq struct {
	op   checks.Op
	fate linGenFate
	b    *linGenBlob
	ver  int // the version it made, if any
}

type linGenActor struct {
	id, left, writes int
	req              *linGenReq
	phase            int
	cache            map[string][2]string // key -> value, ETag
	needRead         map[string]bool
}

type linGen struct {
	r        *rand.Rand
	cfg      linGenConfig
	blobs    []*linGenBlob
	ops      []checks.Op
	clock    int64
	injected bool
	orphans  []*linGenReq
}

// linGenerate returns a history and whether the fault was injected.
func linGenerate(r *rand.Rand, cfg linGenConfig) ([]checks.Op, bool) {
	g := &linGen{r: r, cfg: cfg, ops: make([]checks.Op, 0, cfg.keys*cfg.ops+2*cfg.keys+cfg.actors)}
	for i := range cfg.keys {
		b := &linGenBlob{key: "k" + strconv.Itoa(i), val: "setup-" + strconv.Itoa(i)}
		b.bump()
		g.clock++
		g.record(&checks.Op{Actor: checks.ActorSetup, Kind: checks.KindBlobPut, Key: b.key, Call: g.clock, In: checks.Input{Value: b.val}, Out: checks.Output{Status: 201, ETag: b.etag}})
		b.writerRet = g.clock
		g.blobs = append(g.blobs, b)
	}
	actors := make([]*linGenActor, cfg.actors)
	per := (cfg.keys*cfg.ops + cfg.actors - 1) / cfg.actors
	for i := range actors {
		actors[i] = &linGenActor{id: i, left: per, cache: map[string][2]string{}, needRead: map[string]bool{}}
	}
	live := append([]*linGenActor(nil), actors...)
	for len(live) > 0 || len(g.orphans) > 0 {
		g.clock++
		i := g.r.IntN(len(live) + len(g.orphans))
		if i >= len(live) {
			j := i - len(live)
			q := g.orphans[j]
			g.orphans[j] = g.orphans[len(g.orphans)-1]
			g.orphans = g.orphans[:len(g.orphans)-1]
			if g.r.IntN(3) > 0 {
				tmp := q.op
				g.effect(q, &tmp, false)
			}
			continue
		}
		a := live[i]
		switch a.phase {
		case 0:
			if a.left == 0 {
				live[i] = live[len(live)-1]
				live = live[:len(live)-1]
				continue
			}
			a.left--
			a.req = g.next(a)
			a.req.op.Call = g.clock
			a.phase = 1
		case 1:
			g.decide(a.req)
			a.phase = 2
		default:
			q := a.req
			op := g.record(&q.op)
			if q.fate == gNormal && op.Outcome == checks.OK && q.ver > 0 && q.b.ver == q.ver {
				q.b.writerRet = g.clock
			}
			if q.fate == gLate {
				g.orphans = append(g.orphans, q)
			}
			g.Result(a, op)
			a.req, a.phase = nil, 0
		}
	}
	for _, b := range g.blobs {
		g.clock++
		g.record(&checks.Op{Actor: checks.ActorFinal, Kind: checks.KindBlobGet, Key: b.key, Call: g.clock, Out: checks.Output{Status: 200, ETag: b.etag, Value: b.val}})
	}
	return g.ops, g.injected
}

func (g *linGen) record(op *checks.Op) *checks.Op {
	op.Seq = uint64(len(g.ops) + 1)
	op.Workload = "gen"
	if op.Attempt == 0 {
		op.Attempt = 1
	}
	op.Intended = op.Call
	g.clock++
	op.Return = g.clock
	g.ops = append(g.ops, *op)
	return &g.ops[len(g.ops)-1]
}

// next is the actor's next request: a read when it must, else a read, a
// Set Metadata or a write on its cached version.
func (g *linGen) next(a *linGenActor) *linGenReq {
	b := g.blobs[g.r.IntN(len(g.blobs))]
	c, have := a.cache[b.key]
	q := &linGenReq{b: b, op: checks.Op{Actor: a.id, Key: b.key}}
	x := g.r.Float64()
	if !have || a.needRead[b.key] || x < g.cfg.readFrac {
		q.op.Kind = checks.KindBlobGet
		if have && g.r.Float64() < g.cfg.cond304 {
			q.op.In.IfNoneMatch = c[1]
		}
		if g.r.Float64() < g.cfg.throttle {
			q.fate = gThrottle
		} else if g.r.Float64() < g.cfg.unknown {
			q.fate = gLost
		}
		return q
	}
	q.op.Kind = checks.KindBlobPut
	if x < g.cfg.readFrac+g.cfg.setmetaFrac {
		q.op.Kind = checks.KindBlobSetMeta
	} else {
		a.writes++
		q.op.In.Value = "a" + strconv.Itoa(a.id) + "-" + strconv.Itoa(a.writes)
	}
	if g.r.Float64() >= g.cfg.uncondFrac {
		q.op.In.IfMatch = c[1]
	}
	switch y := g.r.Float64(); {
	case y < g.cfg.throttle:
		q.fate = gThrottle
	case y < g.cfg.throttle+g.cfg.unknown:
		q.fate = []linGenFate{gLost, gApplied, gLate}[g.r.IntN(3)]
	}
	return q
}

// decide is the step where the request reaches the service or not.
func (g *linGen) decide(q *linGenReq) {
	op := &q.op
	switch q.fate {
	case gNormal:
		g.effect(q, op, true)
	case gThrottle:
		op.Outcome, op.Out = checks.Throttled, checks.Output{Status: 503, ErrorCode: "ServerBusy"}
	case gApplied:
		tmp := *op
		g.effect(q, &tmp, false)
		fallthrough
	default:
		op.Outcome, op.Out = checks.Unknown, checks.Output{Err: "context deadline exceeded"}
	}
}

// effect applies a request to the simulated blob and fills its answer.
func (g *linGen) effect(q *linGenReq, op *checks.Op, acked bool) {
	b := q.b
	may := acked && !g.injected && len(g.ops) >= g.cfg.faultAfter
	if op.Kind == checks.KindBlobGet {
		if may && g.cfg.fault == linStaleRead && b.prevTag != "" && b.writerRet >= 0 && b.writerRet < op.Call {
			g.injected = true
			op.Outcome, op.Out = checks.OK, checks.Output{Status: 200, ETag: b.prevTag, Value: b.prevVal}
			return
		}
		if op.In.IfNoneMatch != "" && op.In.IfNoneMatch == b.etag {
			op.Outcome, op.Out = checks.OK, checks.Output{Status: 304, ETag: b.etag}
			return
		}
		op.Outcome, op.Out = checks.OK, checks.Output{Status: 200, ETag: b.etag, Value: b.val}
		return
	}
	holds := op.In.IfMatch == "" || op.In.IfMatch == b.etag
	switch {
	case !holds && may && g.cfg.fault == linFork && b.consumed[op.In.IfMatch]:
		// Applied on a version an acknowledged If-Match write already
		// replaced: two writes succeed on one base.
		g.injected = true
	case !holds:
		op.Outcome, op.Out = checks.Conflict, checks.Output{Status: 412, ErrorCode: "ConditionNotMet"}
		return
	case may && g.cfg.fault == linSpurious412 && op.In.IfMatch != "" && b.writerRet >= 0 && b.writerRet < op.Call:
		g.injected = true
		op.Outcome, op.Out = checks.Conflict, checks.Output{Status: 412, ErrorCode: "ConditionNotMet"}
		return
	case may && g.cfg.fault == linLostAck:
		g.injected = true
		b.lost++
		op.Outcome, op.Out = checks.OK, checks.Output{Status: 201, ETag: "0xlost-" + b.key + "-" + strconv.Itoa(b.lost)}
		return
	}
	b.prevVal, b.prevTag = b.val, b.etag
	if op.Kind != checks.KindBlobSetMeta {
		b.val = op.In.Value
	}
	if acked && op.In.IfMatch != "" {
		if b.consumed == nil {
			b.consumed = map[string]bool{}
		}
		b.consumed[op.In.IfMatch] = true
	}
	b.bump()
	q.ver = b.ver
	op.Outcome, op.Out = checks.OK, checks.Output{Status: 201, ETag: b.etag}
}

func (g *linGen) Result(a *linGenActor, op *checks.Op) {
	switch {
	case op.Kind == checks.KindBlobGet && op.Outcome == checks.OK && op.Out.Status == 200:
		a.cache[op.Key] = [2]string{op.Out.Value, op.Out.ETag}
		a.needRead[op.Key] = false
	case op.Kind == checks.KindBlobGet:
	case op.Outcome == checks.OK:
		c := a.cache[op.Key]
		if op.Kind != checks.KindBlobSetMeta {
			c[0] = op.In.Value
		}
		c[1] = op.Out.ETag
		a.cache[op.Key] = c
	case op.Outcome == checks.Conflict, op.Outcome == checks.Unknown:
		a.needRead[op.Key] = true // after an unknown outcome, read before writing again
	}
}

// randomLinConfig is a small random configuration for property tests.
func randomLinConfig(r *rand.Rand, fault linFault) linGenConfig {
	return linGenConfig{
		keys: 1 + r.IntN(2), actors: 2 + r.IntN(5), ops: 10 + r.IntN(51),
		readFrac: 0.2 + 0.5*r.Float64(), uncondFrac: 0.3 * r.Float64(), setmetaFrac: 0.05 * r.Float64(),
		cond304: 0.4 * r.Float64(), unknown: 0.25 * r.Float64(), throttle: 0.1 * r.Float64(),
		fault: fault, faultAfter: r.IntN(4),
	}
}
