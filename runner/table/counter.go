package table

import (
	"context"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// tableCounter is table.etag-counter: the blob counter on a table entity.
// Read the entity (a point query), add one, write it back with Update
// Entity or Merge Entity under If-Match on the ETag read; a 412 means
// another actor won. The table service requires If-Match on both (the
// SDK sends If-Match: * when none is given), so every write here is an
// exact compare-and-swap.
type tableCounter struct{ t *tables }

func init() {
	workload.Register("table.etag-counter", func(scenarios.Workload, *target.Target) (workload.Workload, error) { return &tableCounter{}, nil })
}

// counterRow is the row key of every register entity; its partition is the
// key's name, so each counter is its own partition.
const counterRow = "counter"

func (w *tableCounter) Setup(ctx context.Context, e *workload.Env) (err error) {
	w.t, err = registerSetup(ctx, e)
	return err
}

func (w *tableCounter) Iterate(ctx context.Context, a *workload.Actor) {
	pk := workload.KeyName(a.Key())
	p := a.Env.Params
	read := w.t.get(ctx, a, pk, counterRow, true)
	if read.Outcome != checks.OK || read.Out.ETag == "" {
		return
	}
	cur, err := checks.ParseCounterValue(read.Out.Value)
	if err != nil {
		return // the checker reports a value nobody wrote
	}
	kind := checks.KindTableUpdate
	if a.Rand.Float64() < p.MergeFraction {
		kind = checks.KindTableMerge
	}
	w.t.write(ctx, a, kind, pk, counterRow, p.PayloadBytes, func() checks.Input {
		return checks.Input{IfMatch: read.Out.ETag, Value: checks.CounterValue{N: cur.N + 1, Tag: a.Tag()}.Format(0)}
	}, valueProp)
}

func (w *tableCounter) Final(ctx context.Context, e *workload.Env) error {
	registerFinal(ctx, e, w.t)
	return nil
}

// valueProp stores a write's value in the register's value property.
func valueProp(i checks.Input) map[string]string { return map[string]string{propValue: i.Value} }

// registerSetup creates the table and one register entity per key, with
// the value 0.
func registerSetup(ctx context.Context, e *workload.Env) (*tables, error) {
	t, a, err := tableSetup(ctx, e)
	if err != nil || e.AttachOnly {
		return t, err
	}
	for i := 0; i < e.Keys; i++ {
		op := t.write(ctx, a, checks.KindTableUpsert, workload.KeyName(i), counterRow, e.Params.PayloadBytes, func() checks.Input {
			return checks.Input{Value: checks.CounterValue{N: 0, Tag: a.Tag()}.Format(0)}
		}, valueProp)
		if op.Outcome != checks.OK {
			return nil, target.OpError("insert "+workload.KeyName(i), &op)
		}
	}
	return t, nil
}

// registerFinal reads every register entity once the load has stopped.
func registerFinal(ctx context.Context, e *workload.Env, t *tables) {
	keys := make([]string, e.Keys)
	for i := range keys {
		keys[i] = workload.KeyName(i)
	}
	workload.FinalReads(ctx, e, keys, func(ctx context.Context, a *workload.Actor, k string) { t.get(ctx, a, k, counterRow, true) })
}
