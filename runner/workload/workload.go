package workload

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios"
)

// Workload is what the actors of one scenario workload do.
type Workload interface {
	// Setup creates the workload's resources and initial values; the calls
	// it makes are recorded as the setup actor's.
	Setup(ctx context.Context, e *Env) error
	// Iterate performs one logical operation (for a counter: read, add one,
	// write back).
	Iterate(ctx context.Context, a *Actor)
	// Final reads every key once the load has stopped (the quiet read that
	// lets checkers see the last versions).
	Final(ctx context.Context, e *Env) error
}

// Factory makes a workload for one scenario workload.
type Factory func(w scenarios.Workload, t *target.Target) (Workload, error)

// registry maps each registered kind to its factory.
var registry = map[string]Factory{}

// Lookup returns the factory registered for kind; false when no service
// package registered it.
func Lookup(kind string) (Factory, bool) {
	f, ok := registry[kind]
	return f, ok
}

// Register makes kind available to runs: each service package (runner/blob,
// runner/table, runner/queue) registers its workload kinds from an init
// function, the way database/sql drivers register themselves, and a
// program that runs workloads imports the service packages it offers.
func Register(kind string, f Factory) {
	if _, dup := registry[kind]; dup {
		panic("workload: kind " + kind + " registered twice")
	}
	registry[kind] = f
}

// Kinds lists the kinds the runner implements.
func Kinds() []string {
	out := make([]string, 0, len(registry))
	for k := range registry {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Env is what a running workload shares among its actors: the recorder, the
// policy, the resource names and the stop signal.
type Env struct {
	Name    string
	Kind    string
	Keys    int
	Params  scenarios.Params
	Timeout time.Duration
	Retry   scenarios.Retry
	Rec     *Recorder
	Target  *target.Target
	// Prefix is the run-unique name every resource of this workload starts
	// with; cleanup deletes what carries it and nothing else.
	Prefix string
	// ActorBase is the global id of this process's first actor (a shard's
	// actors are numbered after the earlier shards').
	ActorBase int
	// keyLo, keyN are the keys this process's actors pick from (a shard of
	// a run with divided keys owns keys keyLo..keyLo+keyN-1); keyN 0: all.
	KeyLo, KeyN int
	// attachOnly: another shard set the workload up; Setup opens the
	// clients and sends nothing.
	AttachOnly bool
	// sharded: other processes run shards of the same run (final reads
	// must cover what they did too).
	Sharded bool
	// zero is the wall time (UnixNano, this machine's clock as the run
	// reads it) of the run's time zero: Date headers are measured from it.
	Zero int64
	// actors are every actor made, whose Date-header estimates the run
	// intersects at its end.
	actorsMu sync.Mutex
	actors   []*Actor
	Seed     int64
	RetryOn  [checks.Unknown + 1]bool
	Stop     atomic.Bool
	// openKind is the op kind the first open-loop iteration started with:
	// the corrected histogram unserved arrivals are recorded in.
	openKind atomic.Pointer[string]
	// stopStage is the run's stage for calls made once the load's context
	// is done (see afterStop); nil: none (no such call is sent).
	StopStage func() context.Context
}

// afterStop is the context for a call that leaves the target as others
// need it (a lease release) when ctx, the load's, may be done: while the
// load runs, ctx itself; once it stopped, the run's stopping stage (one
// deadline for every such call, cut by the next Ctrl-C).
func (e *Env) AfterStop(ctx context.Context) context.Context {
	if ctx.Err() == nil || e.StopStage == nil {
		return ctx
	}
	return e.StopStage()
}

// firstKind is the op kind open-loop iterations start with, or "arrival"
// when no iteration ever started.
func (e *Env) FirstKind() string {
	if k := e.openKind.Load(); k != nil {
		return *k
	}
	return "arrival"
}

func NewEnv(w scenarios.Workload, sc *scenarios.Scenario, rec *Recorder, t *target.Target, runID string) *Env {
	e := &Env{
		Name: w.Name, Kind: w.Kind, Keys: w.Keys, Params: w.Params, Timeout: sc.Timeout,
		Retry: sc.Retry, Rec: rec, Target: t, Prefix: "sc" + runID + "-" + w.Name, Seed: sc.Seed,
		KeyN: w.Keys,
	}
	for _, s := range sc.Retry.On {
		if o, err := checks.ParseOutcome(s); err == nil {
			e.RetryOn[o] = true
		}
	}
	return e
}

func (e *Env) retryable(o checks.Outcome) bool { return o != checks.OK && e.RetryOn[o] }

// stopping reports whether the load phase is over: no new operations, no
// further retries.
func (e *Env) Stopping() bool { return e.Stop.Load() }

// Actor makes actor id with its reproducible random source.
func (e *Env) Actor(id int) *Actor {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", e.Name, id)
	a := &Actor{ID: id, Env: e, Rand: rand.New(rand.NewPCG(uint64(e.Seed), h.Sum64()))}
	e.actorsMu.Lock()
	e.actors = append(e.actors, a)
	e.actorsMu.Unlock()
	return a
}

// ownKeys is how many keys this process's actors pick from.
func (e *Env) OwnKeys() int {
	if e.KeyN > 0 {
		return e.KeyN
	}
	return e.Keys
}

// clockOffset intersects the Date-header estimates of every actor made;
// call it once no actor runs.
func (e *Env) ClockOffset(into *DateClock) {
	e.actorsMu.Lock()
	defer e.actorsMu.Unlock()
	for _, a := range e.actors {
		into.Merge(&a.clock)
	}
}

// KeyName is the name of key i of this workload.
func KeyName(i int) string { return "k" + strconv.Itoa(i) }
