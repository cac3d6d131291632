package html

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/reportstest"
)

// TestHTMLShowsScheduleLag: an open loop's schedule lag is a paragraph of
// its workload, with the verdict when lateness dominates.
func TestHTMLShowsScheduleLag(t *testing.T) {
	s := reportstest.SampleSummary()
	w := &s.Workloads[1] // the open loop
	op := w.Ops[0]
	w.ScheduleLag = &reports.ScheduleLag{Op: op.Op, Percentiles: reports.Percentiles{P50: 40 * op.Latency.P50, P99: 50 * op.Latency.P99, Max: 900, Count: 10}}
	var out bytes.Buffer
	if err := WriteHTML(&out, s, ""); err != nil {
		t.Fatal(err)
	}
	page := out.String()
	if !strings.Contains(page, "<p>schedule lag p50/p99/max") || !strings.Contains(page, "lateness, not the target, dominates "+op.Op+"&#39;s corrected p50") {
		t.Errorf("no schedule lag paragraph, or no verdict")
	}
}
