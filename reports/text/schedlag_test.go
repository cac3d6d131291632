package text

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/reportstest"
)

// TestTextShowsScheduleLag: an open loop's schedule lag is a line of its
// workload, with the verdict when lateness dominates, within 80 columns.
func TestTextShowsScheduleLag(t *testing.T) {
	s := reportstest.SampleSummary()
	w := &s.Workloads[1] // the open loop
	op := w.Ops[0]
	w.ScheduleLag = &reports.ScheduleLag{Op: op.Op, Percentiles: reports.Percentiles{P50: 40 * op.Latency.P50, P99: 50 * op.Latency.P99, Max: 900, Count: 10}}
	var out bytes.Buffer
	if err := WriteText(&out, s); err != nil {
		t.Fatal(err)
	}
	got := reportstest.Fields(out.String())
	if !strings.Contains(got, "schedule lag p50/p99/max") || !strings.Contains(got, "lateness, not the target, dominates "+op.Op+"'s corrected p50") {
		t.Errorf("no schedule lag line, or no verdict:\n%s", out.String())
	}
	reportstest.CheckWidth(t, "schedule lag", out.String())
}
