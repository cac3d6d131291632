package reports

import (
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
)

func TestMetricsSummary(t *testing.T) {
	m := NewMetrics(MetricsOptions{Workloads: []string{"create", "counter"}})
	// counter: from 0 to 10s, 8 ok + 2 conflict puts, 10 ok gets.
	for i := 0; i < 10; i++ {
		out := checks.OK
		if i < 2 {
			out = checks.Conflict
		}
		m.Record(mkOp("counter", "blob.put", 0, out, float64(i)*1000, 4, 0))
		m.Record(mkOp("counter", "blob.get", 0, checks.OK, float64(i)*1000+5, 1, 0))
	}
	m.Record(mkOp("counter", "blob.put", 0, checks.Throttled, 9995, 5, 0)) // ends at 10s
	m.Record(mkOp("counter", "blob.get", checks.ActorFinal, checks.OK, 11000, 1, 0))
	m.Record(mkOp("counter", "blob.put", checks.ActorSetup, checks.OK, 0, 2, 0))
	m.Record(mkOp("create", "blob.create", 0, checks.OK, 0, 3, 0))

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
		if got := activePeriod(tc.first, tc.last, tc.elapsed); got != tc.want {
			t.Errorf("activePeriod(%d, %d, %v) = %v, want %v", tc.first, tc.last, tc.elapsed, got, tc.want)
		}
	}
}

func sampleSummary() *Summary {
	op1 := *mkOp("create", "blob.create", 0, checks.OK, 10, 2, 0)
	op1.Seq, op1.Key = 12, "k1"
	op2 := *mkOp("create", "blob.create", 1, checks.OK, 11, 2, 0)
	op2.Seq, op2.Key = 13, "k1"
	return &Summary{
		Scenario:    "mixed",
		File:        "scenarios/examples/mixed.yaml",
		Seed:        42,
		Target:      "managed Azurite 3.37.0 (127.0.0.1)",
		Started:     time.Date(2025, 1, 2, 15, 4, 5, 0, time.UTC),
		Elapsed:     60*time.Second + 230*time.Millisecond,
		Interrupted: true,
		Workloads: []WorkloadSummary{
			{
				Name: "counter", Kind: "blob.etag-counter", Executor: "closed", Actors: 8,
				Ops: []OpSummary{
					{
						Op: "blob.get", Count: 12000, Rate: 200,
						Outcomes:  map[string]int64{"ok": 12000, "conflict": 0, "throttled": 0, "error": 0, "unknown": 0},
						Latency:   Percentiles{P50: 1.21, P90: 2.3, P99: 4.5, P999: 9.1, Max: 12, Mean: 1.4, Count: 12000},
						Corrected: Percentiles{P50: 1.21, P90: 2.3, P99: 4.5, P999: 9.1, Max: 12, Mean: 1.4, Count: 12000},
					},
					{
						Op: "blob.put", Count: 3000, Rate: 50,
						Outcomes:  map[string]int64{"ok": 2766, "conflict": 234, "throttled": 0, "error": 0, "unknown": 0},
						Latency:   Percentiles{P50: 1.5, P90: 3, P99: 6, P999: 11, Max: 15, Mean: 2, Count: 3000},
						Corrected: Percentiles{P50: 1.5, P90: 3, P99: 7.25, P999: 210, Max: 1450, Mean: 3, Count: 3000},
					},
				},
			},
			{
				Name: "create", Kind: "blob.create-once", Executor: "open", Actors: 64, Late: 12, Dropped: 3,
				Ops: []OpSummary{{
					Op: "blob.create", Count: 80, Rate: 16,
					Outcomes:  map[string]int64{"ok": 16, "conflict": 63, "throttled": 0, "error": 0, "unknown": 1},
					Latency:   Percentiles{P50: 0.512, P90: 0.9, P99: 1, P999: 1, Max: 1, Mean: 0.6, Count: 80},
					Corrected: Percentiles{P50: 0.6, P90: 1.1, P99: 1.5, P999: 1.5, Max: 1.5, Mean: 0.7, Count: 80},
				}},
			},
		},
		Checks: []checks.Result{
			{Check: "no-lost-updates", Workload: "counter", Verdict: checks.Pass, Summary: "counter: 2766 acknowledged writes, final value 2766"},
			{Check: "single-winner", Workload: "create", Verdict: checks.Fail, Summary: "create: 2 rounds with more than one winner", Total: 5,
				Violations: []checks.Violation{
					{Key: "k1", Message: "two creates with If-None-Match: * succeeded", Ops: []checks.Op{op1, op2}},
					{Key: "k2", Message: "second"}, {Key: "k3", Message: "third"}, {Key: "k4", Message: "fourth"},
				}},
			{Check: "linearizable", Workload: "create", Verdict: checks.Undecided, Summary: "create: search budget exhausted"},
		},
		Harness: []OpSummary{
			{Op: "blob.get", Count: 16, Outcomes: map[string]int64{"ok": 15, "error": 1}},
			{Op: "blob.put", Count: 16, Outcomes: map[string]int64{"ok": 16}},
		},
		Files:    map[string]string{"history": "history.jsonl", "hlog counter blob.put": "hlog/counter.blob.put.hlog"},
		ExitCode: 1,
	}
}

func TestSummaryJSONRoundTrip(t *testing.T) {
	s := sampleSummary()
	path := filepath.Join(t.TempDir(), "summary.json")
	if err := WriteSummaryJSON(path, s); err != nil {
		t.Fatal(err)
	}
	got, err := ReadSummary(path)
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
	if _, err := ReadSummary(filepath.Join(t.TempDir(), "missing.json")); err == nil {
		t.Error("ReadSummary of a missing file succeeded")
	}
}
