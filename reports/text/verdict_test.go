package text

import (
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
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

// A run with more failures than the first screen holds lists the first
// VerdictItemsShown and says how many more there are, of which kind, and
// where they are in full; the checks' section still has every one.
func TestVerdictListIsCapped(t *testing.T) {
	s := reportstest.WriteFixtureRun(t, t.TempDir(), reportstest.PlainNames)
	base := s.Checks[0]
	s.Checks = nil
	for i := 0; i < 20; i++ {
		c := base
		c.Check, c.Workload, c.Verdict = "no-lost-updates", "w"+string(rune('a'+i)), checks.Fail
		c.Summary, c.Total = "1 lost update", 1
		s.Checks = append(s.Checks, c)
	}
	c := base
	c.Check, c.Workload, c.Verdict, c.Summary = "version-chain", "late", checks.Undecided, "the final read is missing"
	s.Checks = append(s.Checks, c)
	items, more := CapVerdictItems(VerdictItems(s))
	if len(items) != VerdictItemsShown {
		t.Fatalf("%d items shown", len(items))
	}
	// 21 checks and the fixture's failed threshold: 8 shown, 14 left
	want := "and 14 more (12 failed checks, 1 failed threshold, 1 undecided check), in full under checks and thresholds"
	if more != want {
		t.Errorf("more = %q\nwant %q", more, want)
	}
	var b strings.Builder
	if err := WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	first := strings.Index(out, "\nworkload ")
	head := reportstest.Fields(out[:first])
	if strings.Count(head, "FAIL no-lost-updates") != 8 || !strings.Contains(head, want) {
		t.Errorf("the report's head:\n%s", out[:first])
	}
	if n := strings.Count(reportstest.Fields(out), "no-lost-updates"); n < 20 {
		t.Errorf("the checks' section names %d of the 20 failed checks", n)
	}
	if items, more := CapVerdictItems(items[:3]); len(items) != 3 || more != "" {
		t.Errorf("3 items capped to %d, %q", len(items), more)
	}
}
