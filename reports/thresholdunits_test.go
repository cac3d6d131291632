package reports

import (
	"strings"
	"testing"
)

// Every figure a criterion shows carries its unit, and a failed one reads
// as its measure against its limit.
func TestThresholdFiguresHaveUnits(t *testing.T) {
	for _, c := range []struct {
		r                ThresholdResult
		measured, judged string
	}{
		{ThresholdResult{Threshold: "p95(blob.get) < 500ms", Actual: 812.4}, "812 ms", "812 ms > 500 ms"},
		{ThresholdResult{Threshold: "p99.9(counter/blob.put) <= 1s", Actual: 5926.9}, "5927 ms", "5927 ms > 1000 ms"},
		{ThresholdResult{Threshold: "throughput(table.insert) > 400/s over 5s", Actual: 298, Window: "15s-20s"}, "298/s", "298/s < 400/s (worst at 15s-20s)"},
		{ThresholdResult{Threshold: "rate(conflict) < 0.9", Actual: 0.931}, "93.1%", "93.1% > 90%"},
		{ThresholdResult{Threshold: "utilisation(partition) < 80%", Actual: 1.12, Window: "15s (partition p0)"}, "112%", "112% > 80% (worst at 15s (partition p0))"},
		{ThresholdResult{Threshold: "errors == 0", Actual: 3}, "3 attempts", "3 attempts > 0 attempts"},
		{ThresholdResult{Threshold: "throttled(hashed) <= 1", Actual: 1, Aborted: true}, "1 attempt", "1 attempt = 1 attempt; stopped the load"},
	} {
		if got := c.r.MeasuredValue(); got != c.measured {
			t.Errorf("%s: measured %q, want %q", c.r.Threshold, got, c.measured)
		}
		if _, got := c.r.Judged(); got != c.judged {
			t.Errorf("%s: judged %q, want %q", c.r.Threshold, got, c.judged)
		}
	}
	what, detail := ThresholdResult{Threshold: "p99(blob.gte) < 5ms", Note: "no operation blob.gte in the run"}.Judged()
	if what != "p99(blob.gte)" || detail != "no operation blob.gte in the run" {
		t.Errorf("no data: %q %q", what, detail)
	}
	a := &ThresholdAbort{Threshold: "p99(blob.put) < 1s", AtSeconds: 7, Actual: 5926.9}
	if got := a.String(); !strings.Contains(got, "(measured 5927 ms)") {
		t.Errorf("abort: %q", got)
	}
}
