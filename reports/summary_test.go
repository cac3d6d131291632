package reports_test

import (
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/reportstest"
)

func TestMetricsSummary(t *testing.T) {
	m := reports.NewMetrics(reports.MetricsOptions{Workloads: []string{"create", "counter"}})
	// counter: from 0 to 10s, 8 ok + 2 conflict puts, 10 ok gets.
	for i := 0; i < 10; i++ {
		out := checks.OK
		if i < 2 {
			out = checks.Conflict
		}
		m.Record(reportstest.MkOp("counter", "blob.put", 0, out, float64(i)*1000, 4, 0))
		m.Record(reportstest.MkOp("counter", "blob.get", 0, checks.OK, float64(i)*1000+5, 1, 0))
	}
	m.Record(reportstest.MkOp("counter", "blob.put", 0, checks.Throttled, 9995, 5, 0)) // ends at 10s
	m.Record(reportstest.MkOp("counter", "blob.get", checks.ActorFinal, checks.OK, 11000, 1, 0))
	m.Record(reportstest.MkOp("counter", "blob.put", checks.ActorSetup, checks.OK, 0, 2, 0))
	m.Record(reportstest.MkOp("create", "blob.create", 0, checks.OK, 0, 3, 0))

	ws, hs := m.Summary(12 * time.Second)
	if len(ws) != 2 || ws[0].Name != "create" || ws[1].Name != "counter" {
		t.Fatalf("workloads %+v", ws)
	}
	c := ws[1]
	if len(c.Ops) != 2 || c.Ops[0].Op != "blob.get" || c.Ops[1].Op != "blob.put" {
		t.Fatalf("ops not sorted by name: %+v", c.Ops)
	}
	put := c.Ops[1]
	wantOutcomes := map[string]int64{"ok": 8, "conflict": 2, "throttled": 1, "error": 0, "unknown": 0}
	if put.Count != 11 || !reflect.DeepEqual(put.Outcomes, wantOutcomes) {
		t.Errorf("put %d %v, want 11 %v", put.Count, put.Outcomes, wantOutcomes)
	}
	// active period 0..10s: 10 ok+conflict puts / 10s
	if math.Abs(put.Rate-1) > 1e-9 || math.Abs(c.Ops[0].Rate-1) > 1e-9 {
		t.Errorf("rates %v %v, want 1/s", put.Rate, c.Ops[0].Rate)
	}
	// create's active period is one op of 3 ms
	if cr := ws[0].Ops[0]; math.Abs(cr.Rate-1000.0/3) > 1e-6 {
		t.Errorf("create rate %v", cr.Rate)
	}
	if len(hs) != 2 || hs[0].Op != "blob.get" || hs[1].Op != "blob.put" || hs[0].Count != 1 || hs[1].Count != 1 {
		t.Errorf("harness %+v", hs)
	}
	if hs[1].Latency.Max != 2 {
		t.Errorf("harness latency %+v", hs[1].Latency)
	}
}

func TestActivePeriod(t *testing.T) {
	tests := []struct {
		first, last int64
		elapsed     time.Duration
		want        time.Duration
	}{
		{0, 5e9, 10 * time.Second, 5 * time.Second},
		{-1, 0, 10 * time.Second, 10 * time.Second}, // nothing recorded
		{3e9, 3e9, 10 * time.Second, 10 * time.Second},
		{0, 20e9, 10 * time.Second, 10 * time.Second},
		{0, 20e9, 0, 20 * time.Second},
	}
	for _, tc := range tests {
		if got := reports.ActivePeriod(tc.first, tc.last, tc.elapsed); got != tc.want {
			t.Errorf("activePeriod(%d, %d, %v) = %v, want %v", tc.first, tc.last, tc.elapsed, got, tc.want)
		}
	}
}

func TestSummaryJSONRoundTrip(t *testing.T) {
	s := reportstest.SampleSummary()
	path := filepath.Join(t.TempDir(), "summary.json")
	if err := reports.WriteSummaryJSON(path, s); err != nil {
		t.Fatal(err)
	}
	got, err := reports.ReadSummary(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		a, _ := json.Marshal(got)
		b, _ := json.Marshal(s)
		t.Errorf("round trip differs:\n got %s\nwant %s", a, b)
	}
	b, _ := json.Marshal(s)
	for _, key := range []string{`"scenario"`, `"elapsed_ns":60230000000`, `"exit_code":1`, `"rate_per_s"`,
		`"p999_ms"`, `"late":12`, `"dropped":3`, `"violations_total":5`, `"harness"`, `"files"`} {
		if !strings.Contains(string(b), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
	if _, err := reports.ReadSummary(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("ReadSummary of a missing file succeeded")
	}
}
