package text

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/reportstest"
)

// TestTextFitsIn80Columns renders the realistic fixture run (two
// workloads, units, throttling, responses, checks with a violation,
// thresholds), the sample summary and a workload with long op names, and
// wants every line within 80 columns.
func TestTextFitsIn80Columns(t *testing.T) {
	long := &reports.Summary{Scenario: "long", Workloads: []reports.WorkloadSummary{{Name: "lease", Kind: "container.lease", Executor: "closed", Actors: 4,
		Goal: "leases acquired", Achieved: 12345, Ops: []reports.OpSummary{
			{Op: "container.lease.acquire-with-a-very-long-name", Count: 123456789, Outcomes: map[string]int64{"ok": 12345, "conflict": 123444444, "throttled": 1234567, "error": 12345, "unknown": 1234},
				Rate: 12345.6, Corrected: reports.Percentiles{P50: 1234, P90: 2345, P95: 3456, P99: 4567, P999: 5678, Max: 6789, Mean: 1111, Count: 9},
				Responses: []reports.ResponseCount{{Response: reports.Response{Status: 409, Code: "LeaseAlreadyPresent"}, Count: 123444444}, {Response: reports.Response{Status: 0, Code: ""}, Count: 1234}}},
			{Op: "container.setacl", Count: 5, Outcomes: map[string]int64{"ok": 5}},
		}}}}
	for name, s := range map[string]*reports.Summary{
		"fixture": reportstest.WriteFixtureRun(t, t.TempDir(), reportstest.PlainNames),
		"sample":  reportstest.SampleSummary(),
		"long":    long,
	} {
		var b bytes.Buffer
		if err := WriteText(&b, s); err != nil {
			t.Fatal(err)
		}
		reportstest.CheckWidth(t, name, b.String())
		if name == "long" {
			// The long op name has a line of its own, its figures beneath.
			if !strings.Contains(b.String(), "\n  container.lease.acquire-with-a-very-long-name\n") {
				t.Errorf("long op name not on its own line:\n%s", b.String())
			}
			if !strings.Contains(reportstest.Fields(b.String()), "container.lease.acquire-with-a-very-long-name 409 LeaseAlreadyPresent 123444444 100.0%") {
				t.Errorf("no 409 LeaseAlreadyPresent row:\n%s", b.String())
			}
		}
		if testing.Verbose() {
			t.Logf("%s:\n%s", name, b.String())
		}
	}
}

// A table wider than the report is split into column groups, each
// starting with the first column.
func TestTextTableSplitsWideTables(t *testing.T) {
	tb := textTable{indent: "  ", head: []string{"name"}}
	row := []string{"k0"}
	for i := 0; i < 12; i++ {
		tb.head = append(tb.head, "column-"+string(rune('a'+i)))
		row = append(row, "1234567")
	}
	tb.add(row...)
	var b bytes.Buffer
	w := &reports.ErrWriter{W: &b}
	tb.write(w)
	out := b.String()
	reportstest.CheckWidth(t, "wide", out)
	if strings.Count(out, "  name") != 2 || strings.Count(out, "  k0") != 2 || !strings.Contains(out, "column-l") {
		t.Errorf("want two column groups, each with the first column:\n%s", out)
	}
}
