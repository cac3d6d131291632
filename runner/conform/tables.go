package conform

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios/conformance"
)

// The table entity steps of the conformance rules. Each rule has its own
// table: the rule's resource prefix without hyphens (table names allow
// only letters and digits), so the run's cleanup, which deletes the tables
// named with the run prefix, removes it; an alias adds "x" and the alias.

// defaultPartition is the PartitionKey of a step that names none.
const defaultPartition = "p"

// padChunk is the size of one padding property: a string property holds at
// most 64 KiB as UTF-16, so 30000 ASCII characters stay under it.
const conformPadChunk = 30000

// table is the name of the rule's table with alias a ("" is the rule's).
func (rr *RuleRun) table(a string) string {
	name := strings.ReplaceAll(rr.Prefix, "-", "")
	if a != "" {
		name += "x" + a
	}
	return name
}

// createTable creates the rule's own table.
func (rr *RuleRun) createTable(ctx context.Context) error {
	svc, err := rr.T.Tables()
	if err != nil {
		return err
	}
	rr.T.UsedTables.Store(true)
	_, err = svc.CreateTable(ctx, rr.table(""), nil)
	return err
}

// partitionKey is a step's partition, or the default.
func partitionKey(p *string) string {
	if p == nil {
		return defaultPartition
	}
	return *p
}

// conformEntity is an entity's JSON: the keys, the string properties and
// pad bytes of padding spread over properties scpad0, scpad1, ...
func conformEntity(pk, rk string, props map[string]string, pad int) []byte {
	m := make(map[string]any, len(props)+2+pad/conformPadChunk+1)
	m["PartitionKey"], m["RowKey"] = pk, rk
	for k, v := range props {
		m[k] = v
	}
	for i := 0; pad > 0; i++ {
		n := min(pad, conformPadChunk)
		m[conformance.PadPrefix+strconv.Itoa(i)] = strings.Repeat(".", n)
		pad -= n
	}
	b, _ := json.Marshal(m) // strings only: cannot fail
	return b
}

// conformProps are an entity's properties besides the system ones and the
// runner's padding: what a rule's expect.properties compares.
func conformProps(m map[string]any) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		switch {
		case k == "PartitionKey" || k == "RowKey" || k == "Timestamp",
			strings.HasPrefix(k, "odata.") || strings.Contains(k, "@odata."),
			strings.HasPrefix(strings.ToLower(k), conformance.PadPrefix):
			continue
		}
		if s, ok := v.(string); ok {
			out[k] = s
		} else {
			out[k] = fmt.Sprint(v)
		}
	}
	return out
}

// tableCall performs a table step. Update and Merge without if_match go
// out without If-Match (as Insert Or Replace / Insert Or Merge, which is
// what the REST reference says such a request is); the SDK's UpdateEntity
// would send If-Match: * instead.
func (rr *RuleRun) tableCall(ctx context.Context, st *conformance.Step) (callOut, error) {
	var out callOut
	svc, err := rr.T.Tables()
	if err != nil {
		return out, err
	}
	c := svc.NewClient(rr.table(st.Table))
	pk := partitionKey(st.Partition)
	var ifMatch *azcore.ETag
	if st.IfMatch != nil {
		e := azcore.ETag(rr.value(st.IfMatch))
		ifMatch = &e
	}
	mode := aztables.UpdateModeReplace
	if st.Op == "table.merge" || st.Op == "table.upsert-merge" {
		mode = aztables.UpdateModeMerge
	}
	switch st.Op {
	case "table.create":
		_, err = c.CreateTable(ctx, nil)
	case "table.insert":
		_, err = c.AddEntity(ctx, conformEntity(pk, st.Row, st.Properties, 0), nil)
	case "table.update", "table.merge":
		body := conformEntity(pk, st.Row, st.Properties, 0)
		if ifMatch == nil {
			_, err = c.UpsertEntity(ctx, body, &aztables.UpsertEntityOptions{UpdateMode: mode})
		} else {
			_, err = c.UpdateEntity(ctx, body, &aztables.UpdateEntityOptions{IfMatch: ifMatch, UpdateMode: mode})
		}
	case "table.upsert", "table.upsert-merge":
		_, err = c.UpsertEntity(ctx, conformEntity(pk, st.Row, st.Properties, 0), &aztables.UpsertEntityOptions{UpdateMode: mode})
	case "table.delete":
		_, err = c.DeleteEntity(ctx, pk, st.Row, &aztables.DeleteEntityOptions{IfMatch: ifMatch})
	case "table.get":
		r, gerr := c.GetEntity(ctx, pk, st.Row, nil)
		if gerr != nil {
			return out, gerr
		}
		var m map[string]any
		if err := json.Unmarshal(r.Value, &m); err != nil {
			return out, fmt.Errorf("unparsable entity: %w", err)
		}
		out.svc.Properties = conformProps(m)
		out.etag, _ = m["odata.etag"].(string)
	case "table.query":
		return conformQuery(ctx, c, st.Partition)
	case "table.batch":
		return rr.conformBatch(ctx, c, st)
	default:
		err = fmt.Errorf("stormcheck cannot run op %s yet", st.Op)
	}
	return out, err
}

// conformQuery counts the entities of the table, or of one partition,
// reading every page.
func conformQuery(ctx context.Context, c *aztables.Client, partition *string) (callOut, error) {
	var out callOut
	o := &aztables.ListEntitiesOptions{}
	if partition != nil {
		f := fmt.Sprintf("PartitionKey eq '%s'", strings.ReplaceAll(*partition, "'", "''"))
		o.Filter = &f
	}
	n := 0
	for pager := c.NewListEntitiesPager(o); pager.More(); {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return out, err
		}
		n += len(page.Entities)
	}
	out.svc.Entities = &n
	return out, nil
}

// actionTypes maps a batch action's kind to the SDK's transaction type.
var actionTypes = map[string]aztables.TransactionType{
	"insert":       aztables.TransactionTypeAdd,
	"update":       aztables.TransactionTypeUpdateReplace,
	"merge":        aztables.TransactionTypeUpdateMerge,
	"upsert":       aztables.TransactionTypeInsertReplace,
	"upsert-merge": aztables.TransactionTypeInsertMerge,
	"delete":       aztables.TransactionTypeDelete,
}

// batchFailure is the failed operation of an entity group transaction the
// service answered 202 Accepted.
type batchFailure struct {
	status int
	code   string
}

// failedOp finds the index the failed operation's error message begins
// with (JSON "value":"1:..." or Atom <message ...>1:...).
var failedOp = regexp.MustCompile(`(?:"value"\s*:\s*"|<message[^>]*>)(\d+):`)

// conformBatch submits a table.batch. A transaction answered 202 whose
// multipart body reports a failed operation is not an error here: the
// step is judged on that operation's status and code (batchError reads
// them), and the failed operation's index is kept. The body is read even
// when the SDK reports success: aztables accepts a 202 whose change set
// it cannot split into parts as a success, whatever the parts say.
func (rr *RuleRun) conformBatch(ctx context.Context, c *aztables.Client, st *conformance.Step) (callOut, error) {
	var out callOut
	pk := partitionKey(st.Partition)
	tx := make([]aztables.TransactionAction, 0, len(st.Actions))
	for _, a := range st.Actions {
		apk := pk
		if a.Partition != nil {
			apk = *a.Partition
		}
		ta := aztables.TransactionAction{ActionType: actionTypes[a.Kind], Entity: conformEntity(apk, a.Row, a.Properties, a.Pad)}
		if a.IfMatch != nil {
			e := azcore.ETag(rr.value(a.IfMatch))
			ta.IfMatch = &e
		}
		tx = append(tx, ta)
	}
	var body []byte
	_, err := c.SubmitTransaction(target.WithBodyCapture(ctx, &body), tx, nil)
	var re *azcore.ResponseError
	refused := errors.As(err, &re) && re.StatusCode == http.StatusAccepted
	if err != nil && !refused {
		return out, err
	}
	inner, _ := target.BatchError(&azcore.ResponseError{StatusCode: http.StatusAccepted}, body).(*azcore.ResponseError)
	if inner == nil || inner.StatusCode == http.StatusAccepted {
		if refused {
			// The SDK refused the 202 but no failed operation can be read
			// from it: a finding with the raw status line, not a verdict.
			return out, fmt.Errorf("the transaction was answered 202 with a body that reports no failed operation the runner can read (%d bytes)", len(body))
		}
		return out, nil
	}
	out.batch = &batchFailure{status: inner.StatusCode, code: inner.ErrorCode}
	if m := failedOp.FindSubmatch(body); m != nil {
		if i, err := strconv.Atoi(string(m[1])); err == nil {
			out.svc.FailedIndex = &i
		}
	}
	return out, nil
}
