package table

import (
	"context"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// tableBatch is table.batch: actors submit entity group transactions of
// batch_size Insert Or Replace operations on random rows of one partition,
// every row stamped with the batch's unique stamp; a fail_fraction of the
// batches also insert a row that exists, so the service must refuse the
// whole batch. Readers query the partition. batch-atomicity judges all or
// nothing; snapshot-reads judges that one page of a query never shows part
// of a batch.
type tableBatch struct{ t *tables }

func init() {
	workload.Register("table.batch", func(w scenarios.Workload, _ *target.Target) (workload.Workload, error) {
		if w.Params.BatchSize > w.Params.Rows {
			return nil, fmt.Errorf("batch_size %d is larger than rows %d: a batch writes distinct rows of one partition", w.Params.BatchSize, w.Params.Rows)
		}
		return &tableBatch{}, nil
	})
}

func rowName(i int) string { return fmt.Sprintf("r%04d", i) }

// partitionFilter selects one partition.
func partitionFilter(pk string) string { return fmt.Sprintf("PartitionKey eq '%s'", pk) }

func (w *tableBatch) Setup(ctx context.Context, e *workload.Env) error {
	t, a, err := tableSetup(ctx, e)
	if err != nil {
		return err
	}
	w.t = t
	return fillPartitions(ctx, e, t, a, stampRows)
}

// stampRows upserts every row of the batch with its stamp; the row named
// in BatchFails is inserted instead, which fails because it exists.
func stampRows(i checks.Input) []batchAction {
	acts := make([]batchAction, len(i.Rows))
	for n, r := range i.Rows {
		kind := aztables.TransactionTypeInsertReplace
		if r == i.BatchFails {
			kind = aztables.TransactionTypeAdd
		}
		acts[n] = batchAction{kind: kind, row: r, props: map[string]string{propStamp: i.Value}}
	}
	return acts
}

func (w *tableBatch) Iterate(ctx context.Context, a *workload.Actor) {
	pk := workload.KeyName(a.Key())
	p := a.Env.Params
	if a.Rand.Float64() < p.ReadFraction {
		w.t.query(ctx, a, checks.KindTableQuery, pk, partitionFilter(pk), nil, p.Rows)
		return
	}
	rows := make([]string, 0, p.BatchSize)
	for _, r := range a.Rand.Perm(p.Rows)[:p.BatchSize] {
		rows = append(rows, rowName(r))
	}
	in := checks.Input{Value: a.Tag(), Rows: rows}
	var conflicts []workload.Expect
	if a.Rand.Float64() < p.FailFraction {
		in.BatchFails = rows[a.Rand.IntN(len(rows))]
		conflicts = conflictEntityExists
	}
	// Retries resend the same batch with the same stamp: one logical batch.
	w.t.batch(ctx, a, pk, p.PayloadBytes, func() checks.Input { return in }, stampRows, conflicts)
}

func (w *tableBatch) Final(ctx context.Context, e *workload.Env) error {
	keys := make([]string, e.Keys)
	for i := range keys {
		keys[i] = workload.KeyName(i)
	}
	workload.FinalReads(ctx, e, keys, func(ctx context.Context, a *workload.Actor, pk string) {
		w.t.query(ctx, a, checks.KindTableQuery, pk, partitionFilter(pk), nil, e.Params.Rows)
	})
	return nil
}
