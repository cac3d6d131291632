package blob

import (
	"context"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// lww is blob.lww: last writer wins, the service's default strategy. Actors
// write unique values without any condition, or read (sometimes with
// If-None-Match on their cached ETag). Nothing is refused; the checks decide
// whether every read saw a version that real time allows (linearizability).
type lww struct{ b *Blobs }

func init() {
	workload.Register("blob.lww", func(scenarios.Workload, *target.Target) (workload.Workload, error) { return &lww{}, nil })
}

func (w *lww) Setup(ctx context.Context, e *workload.Env) error {
	w.b = newBlobs(e)
	return keysSetup(ctx, e, w.b)
}

func (w *lww) Iterate(ctx context.Context, a *workload.Actor) {
	key := workload.KeyName(a.Key())
	p := a.Env.Params
	if a.Rand.Float64() < p.ReadFraction {
		w.b.read(ctx, a, key, p.ConditionalReads, 0)
		return
	}
	w.b.put(ctx, a, "blob.put", key, func() checks.Input {
		return checks.Input{Value: checks.CounterValue{Tag: a.Tag()}.Format(p.PayloadBytes)}
	}, nil)
}

func (w *lww) Final(ctx context.Context, e *workload.Env) error {
	keysFinal(ctx, e, w.b)
	return nil
}
