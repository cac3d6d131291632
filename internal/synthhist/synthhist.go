// Package synthhist writes large synthetic histories for the checks'
// memory benchmark: a closed-loop simulation of three blob workloads
// (blob.etag-counter, blob.lww, blob.create-once) against a correct,
// atomic service, recorded in return order with the fields the recorder
// writes (ETags, request ids, Last-Modified dates, byte counts). It streams:
// memory is the keys' state, whatever the number of operations.
package synthhist

import (
	"bufio"
	"container/heap"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"time"

	"github.com/stormcheck/stormcheck/checks"
)

// Config sizes a synthetic history.
type Config struct {
	// Ops is how many load operations to simulate (setup and final reads
	// come on top).
	Ops int
	// CounterKeys, LWWKeys: keys of the etag-counter and lww workloads.
	CounterKeys, LWWKeys int
	// Seed drives every random choice.
	Seed uint64
	// PlantFork makes one If-Match put on a stale ETag succeed halfway
	// through: a lost update the checks must report.
	PlantFork bool
	// Cut writes the history of a run killed during its load: no final
	// quiet reads, and the last record only half written (no newline).
	Cut bool
}

// Default is the benchmark's mix: 80 % of operations on 10,000 counters
// (32 actors), 15 % on 1,000 last-writer-wins blobs (16 actors), 5 %
// create-once rounds (8 actors), 0.1 % of writes with an unknown outcome.
func Default(ops int) Config {
	return Config{Ops: ops, CounterKeys: 10_000, LWWKeys: 1_000, Seed: 1}
}

// Scenario is the scenario file that names the history's workloads and
// every check that applies to them.
const Scenario = `name: synthetic
description: a synthetic history (internal/synthhist) for the checks' memory benchmark
duration: 1h
workloads:
  - {name: counter, kind: blob.etag-counter, actors: 32, keys: 10000}
  - {name: lww, kind: blob.lww, actors: 16, keys: 1000}
  - {name: create, kind: blob.create-once, actors: 8}
checks: [no-lost-updates, version-chain, linearizable, single-winner]
`

// Actor counts of the three workloads.
const (
	counterActors = 32
	lwwActors     = 16
	createActors  = 8
	unknownRate   = 0.001
)

type blob struct {
	value   string
	etag    string
	exists  bool
	created bool // a create-once round's blob
}

type actor struct {
	workload string
	id       int
	free     int64 // when its last call returned
	writes   int
	// counter: the version read, to write back with If-Match
	key    string
	etag   string
	n      int64
	cached bool
	round  int
}

type actorHeap []*actor

func (h actorHeap) Len() int           { return len(h) }
func (h actorHeap) Less(i, j int) bool { return h[i].free < h[j].free }
func (h actorHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *actorHeap) Push(x any)        { *h = append(*h, x.(*actor)) }
func (h *actorHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

type pending []*checks.Op

func (p pending) Len() int           { return len(p) }
func (p pending) Less(i, j int) bool { return p[i].Return < p[j].Return }
func (p pending) Swap(i, j int)      { p[i], p[j] = p[j], p[i] }
func (p *pending) Push(x any)        { *p = append(*p, x.(*checks.Op)) }
func (p *pending) Pop() any {
	old := *p
	x := old[len(old)-1]
	*p = old[:len(old)-1]
	return x
}

type gen struct {
	cfg     Config
	r       *rand.Rand
	w       io.Writer
	seq     uint64
	version uint64
	blobs   map[string]*blob
	pend    pending
	planted bool
	err     error
	start   time.Time
	Stats   Stats
}

// Stats is what was written.
type Stats struct {
	// Records is every record written (load, setup and final reads).
	Records int64
	// Bytes is the uncompressed size of the JSON lines.
	Bytes int64
}

// Write simulates cfg and writes the history to w, one JSON Op per line.
func Write(w io.Writer, cfg Config) (Stats, error) {
	g := &gen{cfg: cfg, r: rand.New(rand.NewPCG(cfg.Seed, 12)), w: w, blobs: map[string]*blob{},
		start: time.Date(2026, 11, 24, 6, 0, 0, 0, time.UTC)}
	var clock int64 = 1_000_000
	for i := range cfg.CounterKeys {
		g.setup("counter", fmt.Sprintf("counter-%d", i), &clock)
	}
	for i := range cfg.LWWKeys {
		g.setup("lww", fmt.Sprintf("lww-%d", i), &clock)
	}
	var actors actorHeap
	for i := range counterActors {
		actors = append(actors, &actor{workload: "counter", id: i, free: clock})
	}
	for i := range lwwActors {
		actors = append(actors, &actor{workload: "lww", id: i, free: clock})
	}
	for i := range createActors {
		actors = append(actors, &actor{workload: "create", id: i, free: clock})
	}
	heap.Init(&actors)
	// Each workload's actors run closed loops; the mix of operations
	// follows from how long each workload's calls take (create calls are
	// slow, counters fast), tuned so that about 80/15/5 % result.
	for started := 0; started < cfg.Ops && g.err == nil; started++ {
		a := heap.Pop(&actors).(*actor)
		g.emitUntil(a.free)
		call := a.free
		op := g.step(a, call, started >= cfg.Ops/2)
		a.free = op.Return
		heap.Push(&actors, a)
		heap.Push(&g.pend, op)
	}
	g.emitUntil(1 << 62)
	if cfg.Cut {
		g.cut()
		return g.Stats, g.err
	}
	end := int64(0)
	for _, a := range actors {
		end = max(end, a.free)
	}
	end += 1_000_000
	// The final quiet reads, in key order.
	finals := func(workload, prefix string, n int) {
		for i := range n {
			key := fmt.Sprintf("%s-%d", prefix, i)
			g.final(workload, key, &end)
		}
	}
	finals("counter", "counter", cfg.CounterKeys)
	finals("lww", "lww", cfg.LWWKeys)
	for round := 0; ; round++ {
		key := fmt.Sprintf("create-%d", round)
		if _, ok := g.blobs[key]; !ok {
			break
		}
		g.final("create", key, &end)
	}
	return g.Stats, g.err
}

func (g *gen) emitUntil(t int64) {
	for len(g.pend) > 0 && g.pend[0].Return <= t {
		g.emit(heap.Pop(&g.pend).(*checks.Op))
	}
}

func (g *gen) emit(op *checks.Op) {
	if g.err != nil {
		return
	}
	g.seq++
	op.Seq = g.seq
	op.Out.RequestID = fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", g.r.Uint32(), g.r.Uint32()&0xffff, 0x4000|g.r.Uint32()&0x0fff,
		0x8000|g.r.Uint32()&0x3fff, g.r.Uint64()&0xffffffffffff)
	if op.Out.Status == 0 {
		op.Out.RequestID = ""
	}
	line, err := op.MarshalJSONLine()
	if err == nil {
		_, err = g.w.Write(line)
	}
	g.err = err
	g.Stats.Records++
	g.Stats.Bytes += int64(len(line))
}

func (g *gen) newETag() string {
	g.version++
	return fmt.Sprintf("\"0x8DD0C%011X\"", g.version)
}

func (g *gen) lastModified(t int64) string {
	return g.start.Add(time.Duration(t)).Format(time.RFC1123)
}

func (g *gen) setup(workload, key string, clock *int64) {
	b := &blob{value: checks.CounterValue{N: 0, Tag: "setup-1"}.Format(0), etag: g.newETag(), exists: true}
	g.blobs[key] = b
	call := *clock
	*clock += 2_000_000
	g.emit(&checks.Op{Actor: checks.ActorSetup, Workload: workload, Kind: "blob.put", Key: key, Attempt: 1,
		Intended: call, Call: call, Return: *clock, Outcome: checks.OK, In: checks.Input{Value: b.value, Bytes: int64(len(b.value))},
		Out: checks.Output{Status: 201, ETag: b.etag, LastModified: g.lastModified(*clock)}})
}

func (g *gen) final(workload, key string, clock *int64) {
	b := g.blobs[key]
	call := *clock
	*clock += 1_000_000
	op := &checks.Op{Actor: checks.ActorFinal, Workload: workload, Kind: "blob.get", Key: key, Attempt: 1,
		Intended: call, Call: call, Return: *clock, Outcome: checks.OK}
	if b == nil || !b.exists {
		op.Outcome, op.Out = checks.Conflict, checks.Output{Status: 404, ErrorCode: "BlobNotFound"}
	} else {
		op.Out = checks.Output{Status: 200, ETag: b.etag, Value: b.value, Bytes: int64(len(b.value)), LastModified: g.lastModified(call)}
	}
	g.emit(op)
}

// cut writes the first half of one more record, as a killed run leaves
// its last line.
func (g *gen) cut() {
	if g.err != nil {
		return
	}
	op := &checks.Op{Seq: g.seq + 1, Actor: 0, Workload: "counter", Kind: "blob.get", Key: "counter-0", Attempt: 1, Outcome: checks.OK}
	line, err := op.MarshalJSONLine()
	if err == nil {
		_, err = g.w.Write(line[:len(line)/2])
	}
	g.err = err
	g.Stats.Bytes += int64(len(line) / 2)
}

// step simulates one call by a, applied atomically at call + 300 µs
// (calls start in time order, so applications are in time order too).
func (g *gen) step(a *actor, call int64, late bool) *checks.Op {
	apply := call + 300_000
	ret := apply + 200_000 + g.r.Int64N(2_500_000)
	op := &checks.Op{Actor: a.id, Workload: a.workload, Attempt: 1, Intended: call, Call: call, Return: ret}
	switch a.workload {
	case "counter":
		g.counter(a, op, late)
	case "lww":
		g.lww(a, op)
	default:
		op.Return += 8_000_000 // creates are the slow calls of the mix
		g.create(a, op)
	}
	return op
}

func (g *gen) tag(a *actor) string {
	a.writes++
	return fmt.Sprintf("a%d-%d", a.id, a.writes)
}

func (g *gen) read(op *checks.Op, key string) *blob {
	b := g.blobs[key]
	op.Kind, op.Key, op.Outcome = "blob.get", key, checks.OK
	op.Out = checks.Output{Status: 200, ETag: b.etag, Value: b.value, Bytes: int64(len(b.value)), LastModified: g.lastModified(op.Call)}
	return b
}

// unknown makes op a write that timed out; it applied or not at random.
func (g *gen) unknown(op *checks.Op) bool {
	op.Outcome, op.Out = checks.Unknown, checks.Output{Err: "context deadline exceeded"}
	op.Return = op.Call + 10_000_000_000
	return g.r.IntN(2) == 0
}

func (g *gen) counter(a *actor, op *checks.Op, late bool) {
	if !a.cached {
		// Contention: a third of the reads go to the 64 hottest counters.
		k := g.r.IntN(g.cfg.CounterKeys)
		if g.r.IntN(3) == 0 {
			k = g.r.IntN(min(64, g.cfg.CounterKeys))
		}
		a.key = fmt.Sprintf("counter-%d", k)
		b := g.read(op, a.key)
		v, _ := checks.ParseCounterValue(b.value)
		a.etag, a.n, a.cached = b.etag, v.N, true
		return
	}
	a.cached = false
	b := g.blobs[a.key]
	value := checks.CounterValue{N: a.n + 1, Tag: g.tag(a)}.Format(0)
	op.Kind, op.Key = "blob.put", a.key
	op.In = checks.Input{IfMatch: a.etag, Value: value, Bytes: int64(len(value))}
	stale := b.etag != a.etag
	if stale && g.cfg.PlantFork && late && !g.planted {
		g.planted, stale = true, false // the service lets a stale If-Match through: a lost update
	}
	switch {
	case stale:
		op.Outcome = checks.Conflict
		op.Out = checks.Output{Status: 412, ErrorCode: "ConditionNotMet"}
	case g.r.Float64() < unknownRate:
		if g.unknown(op) {
			b.value, b.etag = value, g.newETag()
		}
	default:
		b.value, b.etag = value, g.newETag()
		op.Outcome = checks.OK
		op.Out = checks.Output{Status: 201, ETag: b.etag, LastModified: g.lastModified(op.Call)}
	}
}

func (g *gen) lww(a *actor, op *checks.Op) {
	key := fmt.Sprintf("lww-%d", g.r.IntN(g.cfg.LWWKeys))
	if g.r.IntN(2) == 0 {
		g.read(op, key)
		return
	}
	b := g.blobs[key]
	value := checks.CounterValue{Tag: g.tag(a)}.Format(0)
	op.Kind, op.Key = "blob.put", key
	op.In = checks.Input{Value: value, Bytes: int64(len(value))}
	if g.r.Float64() < unknownRate {
		if g.unknown(op) {
			b.value, b.etag = value, g.newETag()
		}
		return
	}
	b.value, b.etag = value, g.newETag()
	op.Outcome = checks.OK
	op.Out = checks.Output{Status: 201, ETag: b.etag, LastModified: g.lastModified(op.Call)}
}

// create races every create actor to create the blob of each round, with
// If-None-Match: *; the first one wins, the others get 409.
func (g *gen) create(a *actor, op *checks.Op) {
	key := fmt.Sprintf("create-%d", a.round)
	value := checks.CounterValue{N: int64(a.round), Tag: g.tag(a)}.Format(0)
	a.round++
	op.Kind, op.Key = "blob.create", key
	op.In = checks.Input{IfNoneMatch: "*", Value: value, Bytes: int64(len(value))}
	b := g.blobs[key]
	if b == nil {
		b = &blob{created: true}
		g.blobs[key] = b
	}
	if b.exists {
		op.Outcome = checks.Conflict
		op.Out = checks.Output{Status: 409, ErrorCode: "BlobAlreadyExists"}
		return
	}
	b.value, b.etag, b.exists = value, g.newETag(), true
	op.Outcome = checks.OK
	op.Out = checks.Output{Status: 201, ETag: b.etag, LastModified: g.lastModified(op.Call)}
}

// WriteFile writes the history to path compressed, as the recorder writes
// a run's history.jsonl.zst.
func WriteFile(path string, cfg Config) (Stats, error) {
	f, err := os.Create(path)
	if err != nil {
		return Stats{}, err
	}
	z, err := checks.NewHistoryWriter(f)
	if err != nil {
		f.Close()
		return Stats{}, err
	}
	bw := bufio.NewWriterSize(z, 256<<10)
	st, err := Write(bw, cfg)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = z.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return st, err
}
