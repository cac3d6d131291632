package table

import (
	"context"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// tableForce is table.force-update: conditional updaters (read, then
// Update or Merge under If-Match on the ETag read) mixed with forced
// writers that do no concurrency check: Update with If-Match: * (last
// writer wins, but the entity must exist), Insert Or Replace and Insert Or
// Merge (no If-Match at all). Every write stores a unique value, so the
// checks (version-chain, linearizable) model the forced writes as the
// unconditional writes they are; a counter would lose increments here by
// design, so no-lost-updates does not apply.
type tableForce struct{ t *tables }

func init() {
	workload.Register("table.force-update", func(scenarios.Workload, *target.Target) (workload.Workload, error) { return &tableForce{}, nil })
}

// forcedKinds are the writes without a concurrency check, in turn.
var forcedKinds = []string{checks.KindTableUpdate, checks.KindTableUpsert, checks.KindTableUpsertMerge, checks.KindTableMerge}

func (w *tableForce) Setup(ctx context.Context, e *workload.Env) (err error) {
	w.t, err = registerSetup(ctx, e)
	return err
}

func (w *tableForce) Iterate(ctx context.Context, a *workload.Actor) {
	pk := workload.KeyName(a.Key())
	p := a.Env.Params
	value := func() string { return checks.CounterValue{Tag: a.Tag()}.Format(0) }
	if a.Rand.Float64() < p.ForceFraction {
		kind := forcedKinds[a.Rand.IntN(len(forcedKinds))]
		ifMatch := ""
		if kind == checks.KindTableUpdate || kind == checks.KindTableMerge {
			ifMatch = "*"
		}
		w.t.write(ctx, a, kind, pk, counterRow, p.PayloadBytes, func() checks.Input {
			return checks.Input{IfMatch: ifMatch, Value: value()}
		}, valueProp)
		return
	}
	read := w.t.get(ctx, a, pk, counterRow, true)
	if read.Outcome != checks.OK || read.Out.ETag == "" || a.Rand.Float64() < p.ReadFraction {
		return // a plain read
	}
	kind := checks.KindTableUpdate
	if a.Rand.IntN(2) == 0 {
		kind = checks.KindTableMerge
	}
	w.t.write(ctx, a, kind, pk, counterRow, p.PayloadBytes, func() checks.Input {
		return checks.Input{IfMatch: read.Out.ETag, Value: value()}
	}, valueProp)
}

func (w *tableForce) Final(ctx context.Context, e *workload.Env) error {
	registerFinal(ctx, e, w.t)
	return nil
}
