package blob

import (
	"context"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// etagCounter is blob.etag-counter: read a counter blob, add one, write it
// back with If-Match on the ETag read; a 412 means another actor won, and the
// next iteration reads again (optimistic concurrency, the seeds' first
// strategy).
type EtagCounter struct{ B *Blobs }

func init() {
	workload.Register("blob.etag-counter", func(scenarios.Workload, *target.Target) (workload.Workload, error) { return &EtagCounter{}, nil })
}

func (w *EtagCounter) Setup(ctx context.Context, e *workload.Env) error {
	w.B = newBlobs(e)
	return keysSetup(ctx, e, w.B)
}

func (w *EtagCounter) Iterate(ctx context.Context, a *workload.Actor) {
	key := workload.KeyName(a.Key())
	p := a.Env.Params
	v, ok := w.B.read(ctx, a, key, p.ConditionalReads, p.DateConditions)
	if !ok {
		return
	}
	cur, err := checks.ParseCounterValue(v.Value)
	if err != nil {
		return // the checker reports a value nobody wrote
	}
	// With date_conditions, the write also carries If-Unmodified-Since the
	// Last-Modified read: both must hold (If-Match keeps it an exact
	// compare-and-swap; date-conditions judges the date).
	ius := ""
	if p.DateConditions > 0 && a.Rand.Float64() < p.DateConditions {
		ius = v.LastModified
	}
	w.B.put(ctx, a, "blob.put", key, func() checks.Input {
		return checks.Input{IfMatch: v.Etag, IfUnmodifiedSince: ius, Value: checks.CounterValue{N: cur.N + 1, Tag: a.Tag()}.Format(p.PayloadBytes)}
	}, ConflictPrecondition)
}

func (w *EtagCounter) Final(ctx context.Context, e *workload.Env) error {
	keysFinal(ctx, e, w.B)
	return nil
}
