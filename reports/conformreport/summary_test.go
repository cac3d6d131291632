package conformreport

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stormcheck/stormcheck/conformance/verdict"
)

// TestConformSummary: by default the table, the baseline's verdict and only
// the rules to look at (the unexpected divergence and the error, in two
// lines each), the accepted one counted; -v lists every rule; no line is
// over SummaryWidth even with a long title and source.
func TestConformSummary(t *testing.T) {
	results, rep := conformSample()
	long := strings.Repeat("a very long title ", 20)
	for i := range results {
		results[i].Title = long
		results[i].Source = "REST: Put Blob (" + long + ")"
	}
	var b strings.Builder
	if err := WriteConformSummary(&b, results, rep, false); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"blob     lease               3      1     2        1      0",
		"queue    1 other (all pass)  1      1     0        0      0", // a service's features that all pass share a row
		"total                        5      2     2        1      1",
		"baseline (azurite 3.37.0): 1 unexpected, 1 known, 0 changed, 0 fixed, 1 errors: FAIL",
		"DIVERGES  blob.lease.unexpected  step 3 blob.put  REST: Put Blob\n  expected 412 LeaseIdMissing, got 201\n",
		"ERROR     blob.etag.error  REST: Put Blob\n  error: ",
		"1 divergence(s) the baseline accepts not shown",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	for _, id := range []string{"blob.lease.known", "blob.lease.pass", "queue.msg.pass"} {
		if strings.Contains(out, id) {
			t.Errorf("the default summary lists %s:\n%s", id, out)
		}
	}
	checkWidths(t, out)
	b.Reset()
	if err := WriteConformSummary(&b, results, rep, true); err != nil {
		t.Fatal(err)
	}
	for i := range results {
		if !strings.Contains(b.String(), results[i].ID) {
			t.Errorf("-v lacks %s:\n%s", results[i].ID, b.String())
		}
	}
	if !strings.Contains(b.String(), "queue    messages ") {
		t.Errorf("-v folds the features that pass:\n%s", b.String())
	}
	if !strings.Contains(b.String(), "DIVERGES  known  blob.lease.known  step 1 blob.put") {
		t.Errorf("-v does not mark the accepted divergence:\n%s", b.String())
	}
	checkWidths(t, b.String())
	b.Reset()
	if err := WriteConformMarkdown(&b, results, rep, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| DIVERGES | `blob.lease.unexpected` | 3 blob.put | 412 LeaseIdMissing | 201 | REST: Put Blob |") ||
		strings.Contains(b.String(), "blob.lease.known") || !strings.Contains(b.String(), "| **total** | | 5 | 2 | 2 | 1 | 1 |") {
		t.Errorf("markdown:\n%s", b.String())
	}
	// Without a baseline every divergence is to look at.
	b.Reset()
	if err := WriteConformSummary(&b, results, nil, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "blob.lease.known  step 1 blob.put") || strings.Contains(b.String(), "baseline") {
		t.Errorf("without a baseline:\n%s", b.String())
	}
}

// TestConformSummaryFixed: a baseline entry that now passes is to look at.
func TestConformSummaryFixed(t *testing.T) {
	results := []verdict.RuleResult{conformRule("blob.lease.ok", []string{"blob", "lease"}, [2]int{201, 201})}
	rep := verdict.CompareBaseline(results, &verdict.Baseline{Divergences: []verdict.AcceptedDivergence{{Rule: "blob.lease.ok", Actual: "412", Reason: "r"}}})
	var b strings.Builder
	if err := WriteConformSummary(&b, results, &rep, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "PASS      fixed  blob.lease.ok") || !strings.Contains(b.String(), "now passes: remove it from the baseline") {
		t.Errorf("fixed:\n%s", b.String())
	}
}

func checkWidths(t *testing.T, out string) {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(l); n > SummaryWidth {
			t.Errorf("line of %d characters: %q", n, l)
		}
		if strings.HasSuffix(l, " ") {
			t.Errorf("trailing blank: %q", l)
		}
	}
}
