package table

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
)

// The documented answers that mean a table race was lost.
var (
	conflictEntityCondition = []workload.Expect{{Status: 412}}
	conflictEntityExists    = []workload.Expect{{Status: 409, Code: "EntityAlreadyExists"}}
)

// Property names stormcheck writes. System properties (PartitionKey,
// RowKey, Timestamp, odata.*) are never recorded as values.
const (
	propValue = "v"     // a register's value (table.etag-counter, table.force-update)
	propStamp = "stamp" // a batch's stamp (table.batch)
	propPad   = "pad"   // payload padding (pad, pad1, ...), never recorded
	padChunk  = 16 << 10
)

// tables holds one workload's table.
type tables struct {
	c    *aztables.Client
	name string
}

// tableName makes a table name from a workload's resource prefix: table
// names allow only letters and digits, so the hyphens go, and a short hash
// of the full prefix keeps two workloads whose names differ only by hyphens
// apart.
func TableName(prefix string) string {
	h := fnv.New32a()
	h.Write([]byte(prefix))
	name := strings.ReplaceAll(prefix, "-", "")
	suffix := fmt.Sprintf("t%04x", h.Sum32()&0xffff)
	if len(name)+len(suffix) > 63 {
		name = name[:63-len(suffix)]
	}
	return name + suffix
}

func newTables(e *workload.Env) (*tables, error) {
	svc, err := e.Target.Tables()
	if err != nil {
		return nil, err
	}
	e.Target.UsedTables.Store(true)
	name := TableName(e.Prefix)
	return &tables{c: svc.NewClient(name), name: name}, nil
}

// tableSetup opens the workload's table and creates it, recorded as setup;
// it returns the setup actor for the rest of the setup.
func tableSetup(ctx context.Context, e *workload.Env) (*tables, *workload.Actor, error) {
	t, err := newTables(e)
	if err != nil {
		return nil, nil, err
	}
	a := e.Actor(checks.ActorSetup)
	if e.AttachOnly {
		return t, a, nil
	}
	if err := t.create(ctx, a); err != nil {
		return nil, nil, err
	}
	return t, a, nil
}

// fillPartitions writes rows r0000.. of every partition k0.. with one
// transaction per 100 rows (the limit of one), each stamped by the setup
// actor and built by actions.
func fillPartitions(ctx context.Context, e *workload.Env, t *tables, a *workload.Actor, actions func(checks.Input) []batchAction) error {
	p := e.Params
	if e.AttachOnly {
		return nil
	}
	for k := 0; k < e.Keys; k++ {
		for first := 0; first < p.Rows; first += maxBatch {
			rows := make([]string, 0, maxBatch)
			for r := first; r < min(first+maxBatch, p.Rows); r++ {
				rows = append(rows, rowName(r))
			}
			stamp := a.Tag()
			op := t.batch(ctx, a, workload.KeyName(k), p.PayloadBytes, func() checks.Input {
				return checks.Input{Value: stamp, Rows: rows}
			}, actions, nil)
			if op.Outcome != checks.OK {
				return target.OpError("setup batch of "+workload.KeyName(k), &op)
			}
		}
	}
	return nil
}

// maxBatch is the most operations one entity group transaction holds.
const maxBatch = 100

// create creates the workload's table, recorded as setup.
func (t *tables) create(ctx context.Context, a *workload.Actor) error {
	op := a.Do(ctx, workload.Call{Kind: "table.create", Key: t.name}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		_, err := t.c.CreateTable(ctx, nil)
		return checks.Input{}, "", err
	})
	if op.Outcome != checks.OK {
		return target.OpError("create table "+t.name, &op)
	}
	return nil
}

// entityKey is how a table operation on one entity names its key.
func entityKey(pk, rk string) string { return pk + "/" + rk }

// entity is one entity's JSON body: the keys, the properties, padding.
func entity(pk, rk string, props map[string]string, pad int) []byte {
	m := make(map[string]any, len(props)+3)
	m["PartitionKey"], m["RowKey"] = pk, rk
	for k, v := range props {
		m[k] = v
	}
	// A string property holds at most 32K characters: the padding is
	// spread over pad, pad1, pad2, ... of at most padChunk each.
	for i := 0; pad > 0; i++ {
		n := min(pad, padChunk)
		name := propPad
		if i > 0 {
			name = fmt.Sprintf("%s%d", propPad, i)
		}
		m[name] = strings.Repeat(".", n)
		pad -= n
	}
	b, _ := json.Marshal(m) // strings only: cannot fail
	return b
}

// userProps returns the string properties stormcheck wrote, without the
// system properties and the padding.
func userProps(m map[string]any) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		s, ok := v.(string)
		if !ok || strings.HasPrefix(k, propPad) || k == "PartitionKey" || k == "RowKey" || k == "Timestamp" || strings.Contains(k, "odata.") || strings.Contains(k, "@odata") {
			continue
		}
		out[k] = s
	}
	return out
}

// get reads one entity (a point query, which scans one entity). With
// register set, the value
// property is recorded as the op's value; otherwise every property is
// recorded in Out.Props.
func (t *tables) get(ctx context.Context, a *workload.Actor, pk, rk string, register bool) checks.Op {
	return a.DoOut(ctx, workload.Call{Kind: checks.KindTableGet, Key: entityKey(pk, rk)}, func(ctx context.Context, _ int) (checks.Input, checks.Output, error) {
		r, err := t.c.GetEntity(ctx, pk, rk, nil)
		if err != nil {
			return checks.Input{}, checks.Output{}, err
		}
		var m map[string]any
		if err := json.Unmarshal(r.Value, &m); err != nil {
			return checks.Input{}, checks.Output{}, fmt.Errorf("unparsable entity: %w", err)
		}
		props := userProps(m)
		out := checks.Output{ETag: string(r.ETag), Scanned: 1}
		if register {
			out.Value = props[propValue]
		} else {
			out.Props = props
		}
		return checks.Input{}, out, nil
	})
}

// write is one single-entity write; kind picks the operation (insert,
// update, merge, upsert, upsert-merge, delete). in makes a fresh input per
// attempt; props makes the entity's properties from it.
func (t *tables) write(ctx context.Context, a *workload.Actor, kind, pk, rk string, pad int, in func() checks.Input, props func(checks.Input) map[string]string) checks.Op {
	c := workload.Call{Kind: kind, Key: entityKey(pk, rk)}
	switch kind {
	case checks.KindTableInsert:
		c.Conflicts, c.CreateOnly = conflictEntityExists, true
	case checks.KindTableUpdate, checks.KindTableMerge, checks.KindTableDelete:
		c.Conflicts = conflictEntityCondition
	}
	return a.Do(ctx, c, func(ctx context.Context, _ int) (checks.Input, string, error) {
		i := in()
		body := entity(pk, rk, props(i), pad)
		var etag *azcore.ETag
		if i.IfMatch != "" {
			e := azcore.ETag(i.IfMatch)
			etag = &e
		}
		var err error
		switch kind {
		case checks.KindTableInsert:
			_, err = t.c.AddEntity(ctx, body, nil)
		case checks.KindTableUpdate:
			_, err = t.c.UpdateEntity(ctx, body, &aztables.UpdateEntityOptions{IfMatch: etag, UpdateMode: aztables.UpdateModeReplace})
		case checks.KindTableMerge:
			_, err = t.c.UpdateEntity(ctx, body, &aztables.UpdateEntityOptions{IfMatch: etag, UpdateMode: aztables.UpdateModeMerge})
		case checks.KindTableUpsert:
			_, err = t.c.UpsertEntity(ctx, body, &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeReplace})
		case checks.KindTableUpsertMerge:
			_, err = t.c.UpsertEntity(ctx, body, &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeMerge})
		case checks.KindTableDelete:
			_, err = t.c.DeleteEntity(ctx, pk, rk, &aztables.DeleteEntityOptions{IfMatch: etag})
		default:
			return i, "", fmt.Errorf("unknown table write %q", kind)
		}
		return i, "", err
	})
}

// batchAction is one operation of an entity group transaction.
type batchAction struct {
	kind  aztables.TransactionType
	row   string
	props map[string]string
}

// batch submits one entity group transaction in partition pk. A refused
// transaction is recorded with the status and error code of the operation
// that failed, not the 202 that carries it.
func (t *tables) batch(ctx context.Context, a *workload.Actor, pk string, pad int, in func() checks.Input, actions func(checks.Input) []batchAction, conflicts []workload.Expect) checks.Op {
	return a.Do(ctx, workload.Call{Kind: checks.KindTableBatch, Key: pk, Conflicts: conflicts}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		i := in()
		var tx []aztables.TransactionAction
		for _, act := range actions(i) {
			tx = append(tx, aztables.TransactionAction{ActionType: act.kind, Entity: entity(pk, act.row, act.props, pad)})
		}
		var body []byte
		_, err := t.c.SubmitTransaction(target.WithBodyCapture(ctx, &body), tx, nil)
		return i, "", target.BatchError(err, body)
	})
}

// query is one table query, page by page, each page its own recorded op
// (a page is one snapshot; a query over pages is not). scanned is how many
// entities the service reads to answer (the workload knows its layout); it
// is recorded on the last page. It returns the pages' ops.
func (t *tables) query(ctx context.Context, a *workload.Actor, kind, key, filter string, sel []string, scanned int) []checks.Op {
	var ops []checks.Op
	var nextPK, nextRK *string
	for {
		last := false
		op := a.DoOut(ctx, workload.Call{Kind: kind, Key: key}, func(ctx context.Context, _ int) (checks.Input, checks.Output, error) {
			in := checks.Input{Filter: filter, Select: sel}
			o := &aztables.ListEntitiesOptions{NextPartitionKey: nextPK, NextRowKey: nextRK}
			if filter != "" {
				o.Filter = &filter
			}
			if len(sel) > 0 {
				s := strings.Join(sel, ",")
				o.Select = &s
			}
			page, err := t.c.NewListEntitiesPager(o).NextPage(ctx)
			if err != nil {
				return in, checks.Output{}, err
			}
			var out checks.Output
			for _, raw := range page.Entities {
				var m map[string]any
				if err := json.Unmarshal(raw, &m); err != nil {
					return in, checks.Output{}, fmt.Errorf("unparsable entity: %w", err)
				}
				e := checks.Entity{Value: userProps(m)[propStamp]}
				e.Partition, _ = m["PartitionKey"].(string)
				e.Row, _ = m["RowKey"].(string)
				e.ETag, _ = m["odata.etag"].(string)
				out.Entities = append(out.Entities, e)
			}
			nextPK, nextRK = page.NextPartitionKey, page.NextRowKey
			last = nextPK == nil || *nextPK == ""
			if last {
				out.Scanned = scanned
			}
			return in, out, nil
		})
		ops = append(ops, op)
		if op.Outcome != checks.OK || last || ctx.Err() != nil {
			return ops
		}
	}
}
