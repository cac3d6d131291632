package table

import (
	"context"
	"fmt"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// tableMerge is table.merge-vs-replace: concurrent Merge Entity (sets a
// subset of the properties, keeps the others) and Update Entity (replaces
// the entity: afterwards it holds only the properties written), both with
// If-Match: * so that neither is refused, and point reads. Each write sets
// every property it writes to its own unique tag, so a read maps each
// property to the write that produced it; merge-replace judges whether the
// set of properties read can be explained by the last replace and the
// merges after it.
type tableMerge struct{ t *tables }

func init() {
	workload.Register("table.merge-vs-replace", func(scenarios.Workload, *target.Target) (workload.Workload, error) { return &tableMerge{}, nil })
}

// mergeRow is the row key of every merge-vs-replace entity.
const mergeRow = "entity"

func propName(i int) string { return fmt.Sprintf("p%d", i) }

// tagProps sets every property a write names to its tag.
func tagProps(i checks.Input) map[string]string {
	m := make(map[string]string, len(i.Props))
	for _, p := range i.Props {
		m[p] = i.Value
	}
	return m
}

func (w *tableMerge) Setup(ctx context.Context, e *workload.Env) error {
	t, a, err := tableSetup(ctx, e)
	if err != nil {
		return err
	}
	w.t = t
	if e.AttachOnly {
		return nil
	}
	all := make([]string, e.Params.Props)
	for i := range all {
		all[i] = propName(i)
	}
	for k := 0; k < e.Keys; k++ {
		op := t.write(ctx, a, checks.KindTableUpsert, workload.KeyName(k), mergeRow, 0, func() checks.Input {
			return checks.Input{Value: a.Tag(), Props: all}
		}, tagProps)
		if op.Outcome != checks.OK {
			return target.OpError("insert "+workload.KeyName(k), &op)
		}
	}
	return nil
}

func (w *tableMerge) Iterate(ctx context.Context, a *workload.Actor) {
	pk := workload.KeyName(a.Key())
	p := a.Env.Params
	if a.Rand.Float64() < p.ReadFraction {
		w.t.get(ctx, a, pk, mergeRow, false)
		return
	}
	kind := checks.KindTableMerge
	if a.Rand.Float64() < p.ReplaceFraction {
		kind = checks.KindTableUpdate
	}
	// A random non-empty subset of the properties.
	var props []string
	for len(props) == 0 {
		for i := 0; i < p.Props; i++ {
			if a.Rand.IntN(2) == 0 {
				props = append(props, propName(i))
			}
		}
	}
	w.t.write(ctx, a, kind, pk, mergeRow, 0, func() checks.Input {
		return checks.Input{IfMatch: "*", Value: a.Tag(), Props: props}
	}, tagProps)
}

func (w *tableMerge) Final(ctx context.Context, e *workload.Env) error {
	keys := make([]string, e.Keys)
	for i := range keys {
		keys[i] = workload.KeyName(i)
	}
	workload.FinalReads(ctx, e, keys, func(ctx context.Context, a *workload.Actor, k string) { w.t.get(ctx, a, k, mergeRow, false) })
	return nil
}
