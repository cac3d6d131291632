package text

import (
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
)

// knownResult is a passing check with one known divergence of the target.
func knownResult() checks.Result {
	ops := []checks.Op{{Seq: 7, Kind: "files.close", Key: "f"}, {Seq: 8, Kind: "files.open", Key: "f"}}
	return checks.Result{Check: "delete-pending", Workload: "w", Verdict: checks.Pass, Summary: "delete-pending: ok",
		Known: []checks.KnownDivergence{{Kind: "open granted racing the last close", Of: "known divergence of Samba (not Azure Files behaviour)", Count: 317,
			Examples: []checks.Violation{{Key: "f", Message: "open granted racing the last close: the open was granted", Ops: ops}}}}}
}

// TestWriteTextShowsKnownDivergences: a known divergence is shown under its
// passing check, with its count, whose it is, and an example.
func TestWriteTextShowsKnownDivergences(t *testing.T) {
	s := &reports.Summary{Scenario: "s", Workloads: []reports.WorkloadSummary{{Name: "w", Ops: []reports.OpSummary{{Op: "files.open", Count: 1}}}},
		Checks: []checks.Result{knownResult()}}
	var b strings.Builder
	if err := WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"~ known divergence of Samba (not Azure Files behaviour): 317 × open granted racing the last close (does not fail the check)",
		"e.g. f: open granted racing the last close: the open was granted",
		"files.open",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in:\n%s", want, b.String())
		}
	}
}
