package text

import (
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/reportstest"
)

// The text report opens with the verdict: every failed check with its
// violations and every failed threshold with its measure against its limit,
// in units, before the first workload's figures.
func TestTextReportLeadsWithTheVerdict(t *testing.T) {
	s := reportstest.WriteFixtureRun(t, t.TempDir(), reportstest.PlainNames)
	var b strings.Builder
	if err := WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	reportstest.CheckWidth(t, "fixture", out)
	first := strings.Index(out, "\nworkload ")
	if first < 0 {
		t.Fatalf("no workload:\n%s", out)
	}
	head := reportstest.Fields(out[:first])
	for _, want := range []string{
		"verdict FAIL: exit code 1, a check found a violation; 1 of 3 checks pass, 1 of 2 thresholds pass",
		"FAIL linearizable (hot): 3 violations: 1 key not linearizable",
		"FAIL throughput(table.insert) 298/s < 400/s (worst at 15s-20s)",
		"UNDECIDED version-chain (hot): the final read is missing",
	} {
		if !strings.Contains(head, want) {
			t.Errorf("the report's head lacks %q:\n%s", want, out[:first])
		}
	}
	if strings.Index(head, "linearizable") > strings.Index(head, "version-chain") {
		t.Error("an undecided check comes before a failure")
	}

	// a run with no checks and no thresholds says so, and shows no tally of nothing
	s.Checks, s.Thresholds, s.ExitCode = nil, nil, 0
	b.Reset()
	if err := WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	out = b.String()
	if !strings.Contains(out, "verdict   PASS: exit code 0; no checks configured\n") || strings.Contains(out, "0 pass") {
		t.Errorf("no checks:\n%s", out)
	}

	// a passing threshold's measure has its unit too
	s.Thresholds = []reports.ThresholdResult{{Threshold: "p99(blob.get) < 50ms", Pass: true, Actual: 41.5}}
	b.Reset()
	if err := WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	if out := reportstest.Fields(b.String()); !strings.Contains(out, "PASS p99(blob.get) < 50ms measured 41.5 ms") ||
		!strings.Contains(out, "no checks configured, 1 of 1 threshold passes") {
		t.Errorf("threshold:\n%s", b.String())
	}
}
