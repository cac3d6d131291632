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

// tableQuery is table.query: the checklist's query scope and density
// advice, measured. The table holds `keys` partitions of `rows` entities,
// each with a category c0..c9 (a tenth of the rows each). Every iteration
// picks one of four query shapes, uniformly:
//   - table.get: a point query (PartitionKey and RowKey): scans one;
//   - table.query: a whole partition: scans and returns `rows`;
//   - table.query-filter: a partition filtered on the category: scans the
//     partition, returns a tenth of it;
//   - table.scan: the whole table filtered on the category: scans every
//     entity (a table scan), returns a tenth.
//
// A `projection` share of the queries ask only for the keys and the
// category ($select). The report shows, per shape, entities scanned vs
// returned and the latency: what "use point queries, filter, project"
// buys.
type tableQuery struct{ t *tables }

// Operation kinds of the query shapes besides table.get and table.query.
const (
	kindTableQueryFilter = "table.query-filter"
	kindTableScan        = "table.scan"
)

const propCategory = "cat"

func init() {
	workload.Register("table.query", func(scenarios.Workload, *target.Target) (workload.Workload, error) { return &tableQuery{}, nil })
}

func (w *tableQuery) Setup(ctx context.Context, e *workload.Env) error {
	t, a, err := tableSetup(ctx, e)
	if err != nil {
		return err
	}
	w.t = t
	return fillPartitions(ctx, e, t, a, categoryRows)
}

// category is row r's category.
func category(r int) string { return fmt.Sprintf("c%d", r%10) }

// categoryRows inserts every row with its category.
func categoryRows(i checks.Input) []batchAction {
	acts := make([]batchAction, len(i.Rows))
	for n, r := range i.Rows {
		var num int
		fmt.Sscanf(r, "r%d", &num)
		acts[n] = batchAction{kind: aztables.TransactionTypeInsertReplace, row: r, props: map[string]string{propCategory: category(num), propStamp: i.Value}}
	}
	return acts
}

func (w *tableQuery) Iterate(ctx context.Context, a *workload.Actor) {
	p := a.Env.Params
	k := a.Key()
	pk, row := workload.KeyName(k), a.Rand.IntN(p.Rows)
	cat := category(row)
	var sel []string
	if a.Rand.Float64() < p.Projection {
		sel = []string{"PartitionKey", "RowKey", propCategory}
	}
	switch a.Rand.IntN(4) {
	case 0:
		w.t.get(ctx, a, pk, rowName(row), false)
	case 1:
		w.t.query(ctx, a, checks.KindTableQuery, pk, partitionFilter(pk), sel, p.Rows)
	case 2:
		w.t.query(ctx, a, kindTableQueryFilter, pk, fmt.Sprintf("%s and %s eq '%s'", partitionFilter(pk), propCategory, cat), sel, p.Rows)
	default:
		w.t.query(ctx, a, kindTableScan, "", fmt.Sprintf("%s eq '%s'", propCategory, cat), sel, p.Rows*a.Env.Keys)
	}
}

// Final does nothing: queries change nothing.
func (w *tableQuery) Final(context.Context, *workload.Env) error { return nil }
