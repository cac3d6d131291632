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
	return keysSetup(ctx, e, w.b)
}

func (w *etagCounter) Iterate(ctx context.Context, a *Actor) {
	key := KeyName(a.Key())
	value, etag, ok := w.b.read(ctx, a, key, a.env.Params.ConditionalReads)
	if !ok {
		return
	}
	cur, err := checks.ParseCounterValue(value)
	if err != nil {
		return // the checker reports a value nobody wrote
	}
	pad := a.env.Params.PayloadBytes
	w.b.put(ctx, a, "blob.put", key, func() checks.Input {
		return checks.Input{IfMatch: etag, Value: checks.CounterValue{N: cur.N + 1, Tag: a.Tag()}.Format(pad)}
	}, conflictPrecondition)
}

func (w *etagCounter) Final(ctx context.Context, e *Env) error {
	keysFinal(ctx, e, w.b)
	return nil
}
