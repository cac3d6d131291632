package reports

import (
	"strconv"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
)

// A series counts at most maxResponses distinct (status, code) pairs; the
// rest are counted together, so a service inventing error codes cannot
// grow the recorder (or an exporter's label set) without bound.
func TestResponsesAreBounded(t *testing.T) {
	m := NewMetrics(MetricsOptions{})
	for i := range maxResponses + 10 {
		for range 2 {
			m.Record(&checks.Op{Workload: "w", Kind: "blob.put", Outcome: checks.Error,
				Out: checks.Output{Status: 400, ErrorCode: "Code" + strconv.Itoa(i)}})
		}
	}
	ws, _ := m.Summary(0)
	rs := ws[0].Ops[0].Responses
	if len(rs) != maxResponses+1 {
		t.Fatalf("%d responses, want %d and one for the rest", len(rs), maxResponses+1)
	}
	if rs[0].Status != -1 || rs[0].Code != "(other)" || rs[0].Count != 20 {
		t.Errorf("the rest: %+v, want 20 attempts as (other)", rs[0])
	}
	var total int64
	for _, r := range rs {
		total += r.Count
	}
	if total != 2*(maxResponses+10) {
		t.Errorf("responses add up to %d, want %d", total, 2*(maxResponses+10))
	}
}
