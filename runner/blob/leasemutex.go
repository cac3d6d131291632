package blob

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sync"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// leaseMutex is blob.lease-mutex: the pessimistic pattern. An actor acquires
// a lease on a counter blob (409 while someone else holds it: it backs off,
// see acquire_retry), reads the counter and writes it back plus one with its
// lease id (no If-Match: the lease is the only guard), holds for a while,
// then releases. If two actors ever held the lease together, increments are
// lost and no-lost-updates says so.
type leaseMutex struct {
	b       *Blobs
	mu      sync.Mutex
	losses  map[int]int    // actor -> races lost in a row
	pending map[int]string // actor -> lease id whose release got no answer
}

func init() {
	workload.Register("blob.lease-mutex", func(scenarios.Workload, *target.Target) (workload.Workload, error) {
		return &leaseMutex{losses: map[int]int{}, pending: map[int]string{}}, nil
	})
}

func (w *leaseMutex) Setup(ctx context.Context, e *workload.Env) error {
	w.b = newBlobs(e)
	return keysSetup(ctx, e, w.b)
}

// leaseSeconds is the duration the Lease Blob call takes (-1: infinite).
func leaseSeconds(d time.Duration) int32 {
	if d == scenarios.Infinite {
		return -1
	}
	return int32(d / time.Second)
}

// Ways a lease holder deviates from acquire-write-release (param misbehave).
const (
	behave = iota
	letExpire
	breakOwn
	changeID
	staleWrite
)

func (w *leaseMutex) Iterate(ctx context.Context, a *workload.Actor) {
	key := workload.KeyName(a.Key())
	p := a.Env.Params
	if id := w.pendingOf(a); id != "" {
		// Its release got no answer: the lease may still be held. Settle
		// that first (others must not wait a whole lease out).
		w.letGo(ctx, a, key, id)
		return
	}
	id := newLeaseID(a)
	acq := w.b.leaseAcquire(ctx, a, key, id, leaseSeconds(p.LeaseDuration))
	if workload.MayHaveApplied(&acq) {
		acq = w.settle(ctx, a, key, id)
	}
	switch acq.Outcome {
	case checks.OK:
		w.won(a)
	case checks.Conflict:
		if a.Rand.Float64() < p.Misbehave {
			w.intrude(ctx, a, key)
		}
		w.backoff(ctx, a)
		return
	default:
		w.backoff(ctx, a)
		return
	}
	how := behave
	if a.Rand.Float64() < p.Misbehave {
		how = letExpire + a.Rand.IntN(4)
		if how == letExpire && p.LeaseDuration == scenarios.Infinite {
			how = breakOwn // an infinite lease never expires
		}
	}
	if how == changeID {
		next := newLeaseID(a)
		op := w.b.leaseChange(ctx, a, key, id, next)
		if workload.MayHaveApplied(&op) {
			op = w.b.leaseRenew(ctx, a, key, next) // succeeds only if the change took effect
		}
		if op.Outcome != checks.OK {
			w.letGo(ctx, a, key, id)
			return
		}
		id = next
	}
	cur, ok := w.increment(ctx, a, key, id)
	if ok {
		w.hold(ctx, a, key, id)
	}
	switch how {
	case letExpire:
		// No release: the others get 409 until the lease runs out.
	case breakOwn:
		// Break period 0 (broken at once), 1 s, or none sent (a finite
		// lease then stays breaking for what remains of it).
		w.b.leaseBreak(ctx, a, key, []int{0, 1, -1}[a.Rand.IntN(3)])
	case staleWrite:
		w.letGo(ctx, a, key, id)
		// Writing with a lease id that is no longer held must be refused (412).
		w.b.put(ctx, a, "blob.put", key, func() checks.Input {
			return checks.Input{LeaseID: id, Value: checks.CounterValue{N: cur + 1, Tag: a.Tag()}.Format(p.PayloadBytes)}
		}, ConflictPrecondition)
	default:
		w.letGo(ctx, a, key, id)
	}
}

// letGo releases the lease id; a release that was neither done nor
// refused (no answer, a 500 or 503, the target unreachable) leaves the id
// pending: the actor's next iteration releases it again before anything
// else, which also says what became of the first (CHECKERS.md, unknown
// outcomes, rule 6).
func (w *leaseMutex) letGo(ctx context.Context, a *workload.Actor, key, id string) {
	w.release(ctx, a, key, id)
	// a.op is the last attempt the actor recorded: this release's, unless
	// none was made (the run stopping), which leaves nothing pending.
	last := &a.Op
	unsettled := last.Kind == "blob.lease.release" && last.In.LeaseID == id &&
		last.Outcome != checks.OK && last.Outcome != checks.Conflict && last.Out.Status != http.StatusNotFound
	w.mu.Lock()
	defer w.mu.Unlock()
	if unsettled {
		w.pending[a.ID] = id
	} else {
		delete(w.pending, a.ID)
	}
}

func (w *leaseMutex) pendingOf(a *workload.Actor) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pending[a.ID]
}

// settle finds out whether an acquire of unknown outcome (no answer, or a
// 500) granted the lease before the actor acts again: a renew with its id
// succeeds only if it did. It returns the renew's record. A renew that
// got no answer leaves the lease possibly held: it is released (letGo), so
// that the others need not wait a whole lease out.
func (w *leaseMutex) settle(ctx context.Context, a *workload.Actor, key, id string) checks.Op {
	op := w.b.leaseRenew(ctx, a, key, id)
	if op.Outcome != checks.OK && op.Outcome != checks.Conflict {
		w.letGo(ctx, a, key, id)
	}
	return op
}

// won ends a streak of lost races.
func (w *leaseMutex) won(a *workload.Actor) {
	w.mu.Lock()
	delete(w.losses, a.ID)
	w.mu.Unlock()
}

// backoff waits after a lost race (or a failed acquire) before the next
// acquire, as a client polling for a lock does (acquire_retry backoff): a
// random time from 1/64 to 1/32 of the lease duration after the first loss,
// twice as long after each further loss in a row, at most 1/8 to 1/4 of it
// (an infinite lease counts as 60 s). hammer does not wait.
func (w *leaseMutex) backoff(ctx context.Context, a *workload.Actor) {
	p := a.Env.Params
	if p.AcquireRetry == scenarios.AcquireHammer {
		return
	}
	w.mu.Lock()
	w.losses[a.ID]++
	n := w.losses[a.ID]
	w.mu.Unlock()
	t := time.NewTimer(LeaseBackoff(a.Rand, p.LeaseDuration, n))
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// leaseBackoff is the wait after the n-th race lost in a row (n ≥ 1) for a
// lease of duration d (scenarios.Infinite counts as 60 s).
func LeaseBackoff(r *rand.Rand, d time.Duration, n int) time.Duration {
	if d == scenarios.Infinite {
		d = 60 * time.Second
	}
	hi := d / 32 << min(max(n, 1)-1, 3)
	return hi/2 + time.Duration(r.Int64N(int64(hi/2)+1))
}

// hold keeps the lease for the param hold, renewing it every half lease
// so that a long hold never loses it; with no hold, a third of the holders
// still renew once, so renewals race the others' acquires.
func (w *leaseMutex) hold(ctx context.Context, a *workload.Actor, key, id string) {
	p := a.Env.Params
	if p.Hold <= 0 {
		if a.Rand.Float64() < 1.0/3 {
			w.b.leaseRenew(ctx, a, key, id)
		}
		return
	}
	step := p.Hold
	if p.LeaseDuration > 0 && step > p.LeaseDuration/2 {
		step = p.LeaseDuration / 2
	}
	for left := p.Hold; left > 0; left -= step {
		select {
		case <-ctx.Done():
			return
		case <-time.After(min(step, left)):
		}
		if left > step {
			w.b.leaseRenew(ctx, a, key, id)
		}
	}
}

// increment reads the counter and writes it plus one, both with the lease
// id (no If-Match: the lease is the only guard). It returns the value read.
func (w *leaseMutex) increment(ctx context.Context, a *workload.Actor, key, id string) (int64, bool) {
	get := w.b.get(ctx, a, key, readOpts{LeaseID: id})
	if get.Outcome != checks.OK {
		return 0, false
	}
	cur, err := checks.ParseCounterValue(get.Out.Value)
	if err != nil {
		return 0, false
	}
	op := w.b.put(ctx, a, "blob.put", key, func() checks.Input {
		return checks.Input{LeaseID: id, Value: checks.CounterValue{N: cur.N + 1, Tag: a.Tag()}.Format(a.Env.Params.PayloadBytes)}
	}, ConflictPrecondition)
	return cur.N, op.Outcome == checks.OK
}

// intrude is a non-holder writing without a lease id while someone holds
// the lease: the service must refuse it (412 LeaseIdMissing; lease-protocol
// checks the answer). It writes with If-Match on the version it read, so
// when the lease happens to be released before its write lands, an accepted
// write is still a correct increment rather than a lost update of the
// intruder's own making.
func (w *leaseMutex) intrude(ctx context.Context, a *workload.Actor, key string) {
	get := w.b.get(ctx, a, key, readOpts{}) // reads need no lease id
	if get.Outcome != checks.OK {
		return
	}
	cur, err := checks.ParseCounterValue(get.Out.Value)
	if err != nil {
		return
	}
	w.b.put(ctx, a, "blob.put", key, func() checks.Input {
		return checks.Input{IfMatch: get.Out.ETag, Value: checks.CounterValue{N: cur.N + 1, Tag: a.Tag()}.Format(a.Env.Params.PayloadBytes)}
	}, ConflictPrecondition)
}

// release lets go of the lease, even once the load was stopped (others
// must not wait a lease out): then within the run's stopping stage.
func (w *leaseMutex) release(ctx context.Context, a *workload.Actor, key, id string) {
	w.b.leaseRelease(a.Env.AfterStop(ctx), a, key, id)
}

// newLeaseID is a version-4 GUID from the actor's reproducible source.
func newLeaseID(a *workload.Actor) string { return newGUID(a.Rand.Uint64(), a.Rand.Uint64()) }

func newGUID(hi, lo uint64) string {
	hi = hi&^(0xf<<12) | 0x4<<12
	lo = lo&^(0x3<<62) | 0x2<<62
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, (hi>>16)&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff)
}

func (w *leaseMutex) Final(ctx context.Context, e *workload.Env) error {
	keysFinal(ctx, e, w.b)
	return nil
}
