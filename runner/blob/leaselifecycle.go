package blob

import (
	"context"
	"sync"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// leaseLifecycle is blob.lease-lifecycle: many actors make random Lease Blob
// calls on a few blobs (acquire, renew, change, release, break with short
// break periods) with ids they hold, ids that went stale, and ids nobody
// holds, plus writes with and without a lease id, so that the lease state
// machine (available, leased, expired, breaking, broken) is exercised under
// contention. lease-protocol judges every answer; lease-exclusion checks
// that no two ids were ever certainly held at once.
type leaseLifecycle struct {
	b     *Blobs
	mu    sync.Mutex
	known map[string][]string // key -> lease ids ever proposed on it (stale ones included)
}

func init() {
	workload.Register("blob.lease-lifecycle", func(scenarios.Workload, *target.Target) (workload.Workload, error) {
		return &leaseLifecycle{known: map[string][]string{}}, nil
	})
}

func (w *leaseLifecycle) Setup(ctx context.Context, e *workload.Env) error {
	w.b = newBlobs(e)
	return keysSetup(ctx, e, w.b)
}

// someID is an id to use on key: most often the latest one proposed there
// (likely the current holder's), sometimes an older, probably stale one.
func (w *leaseLifecycle) someID(a *workload.Actor, key string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	ids := w.known[key]
	if len(ids) == 0 || a.Rand.Float64() < 0.1 {
		return newLeaseID(a) // an id nobody holds
	}
	if a.Rand.Float64() < 0.7 {
		return ids[len(ids)-1]
	}
	return ids[a.Rand.IntN(len(ids))]
}

func (w *leaseLifecycle) propose(a *workload.Actor, key string) string {
	id := newLeaseID(a)
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.known[key]) >= 64 {
		w.known[key] = w.known[key][32:]
	}
	w.known[key] = append(w.known[key], id)
	return id
}

func (w *leaseLifecycle) Iterate(ctx context.Context, a *workload.Actor) {
	key := workload.KeyName(a.Key())
	p := a.Env.Params
	r := a.Rand.Float64()
	switch {
	case r < 0.25:
		id := w.propose(a, key)
		if op := w.b.leaseAcquire(ctx, a, key, id, leaseSeconds(p.LeaseDuration)); workload.MayHaveApplied(&op) {
			w.b.leaseRenew(ctx, a, key, id) // settles it: succeeds only if the acquire took effect
		}
	case r < 0.40:
		w.b.leaseRenew(ctx, a, key, w.someID(a, key))
	case r < 0.50:
		id := w.propose(a, key)
		if op := w.b.leaseChange(ctx, a, key, w.someID(a, key), id); workload.MayHaveApplied(&op) {
			w.b.leaseRenew(ctx, a, key, id) // settles it: succeeds only if the change took effect
		}
	case r < 0.70:
		w.b.leaseRelease(ctx, a, key, w.someID(a, key))
	case r < 0.78:
		w.b.leaseBreak(ctx, a, key, a.Rand.IntN(3)-1) // no period, 0 s or 1 s
	case r < 0.90:
		w.b.get(ctx, a, key, readOpts{})
	default:
		id := ""
		if a.Rand.Float64() < 0.7 {
			id = w.someID(a, key)
		}
		w.b.put(ctx, a, "blob.put", key, func() checks.Input {
			return checks.Input{LeaseID: id, Value: checks.CounterValue{Tag: a.Tag()}.Format(p.PayloadBytes)}
		}, ConflictPrecondition)
	}
}

func (w *leaseLifecycle) Final(ctx context.Context, e *workload.Env) error {
	keysFinal(ctx, e, w.b)
	// Break what is left so cleanup can delete the blobs' container quickly.
	a := e.Actor(checks.ActorFinal)
	for i := 0; i < e.Keys; i++ {
		w.b.leaseBreak(ctx, a, workload.KeyName(i), 0)
	}
	return nil
}
