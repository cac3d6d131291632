package runner

import (
	"context"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/scenarios"
)

// etagCounter is blob.etag-counter: read a counter blob, add one, write it
// back with If-Match on the ETag read; a 412 means another actor won, and the
// next iteration reads again (optimistic concurrency, the seeds' first
// strategy).
type etagCounter struct{ b *blobs }

func init() {
	registerWorkload("blob.etag-counter", func(scenarios.Workload, *Target) (Workload, error) { return &etagCounter{}, nil })
}

func (w *etagCounter) Setup(ctx context.Context, e *Env) error {
	w.b = newBlobs(e)
	return counterSetup(ctx, e, w.b)
}

func (w *etagCounter) Iterate(ctx context.Context, a *Actor) {
	key := KeyName(a.Key())
	get := w.b.get(ctx, a, key, "")
	if get.Outcome != checks.OK {
		return
	}
	cur, err := checks.ParseCounterValue(get.Out.Value)
	if err != nil || get.Out.ETag == "" {
		return // the checker reports a value nobody wrote
	}
	pad := a.env.Params.PayloadBytes
	w.b.put(ctx, a, "blob.put", key, func() checks.Input {
		return checks.Input{IfMatch: get.Out.ETag, Value: checks.CounterValue{N: cur.N + 1, Tag: a.Tag()}.Format(pad)}
	}, conflictPrecondition)
}

func (w *etagCounter) Final(ctx context.Context, e *Env) error {
	counterFinal(ctx, e, w.b)
	return nil
}
