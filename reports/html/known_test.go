package html

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports/reportstest"
)

// TestHTMLShowsKnownDivergences: a check's known divergence of the target
// is on the page under the check, with its count, whose it is and an
// example, and the check stays a pass.
func TestHTMLShowsKnownDivergences(t *testing.T) {
	s := reportstest.SampleSummary()
	ops := []checks.Op{{Seq: 7, Kind: "files.close", Key: "f"}, {Seq: 8, Kind: "files.open", Key: "f"}}
	s.Checks = []checks.Result{{Check: "delete-pending", Workload: "w", Verdict: checks.Pass, Summary: "delete-pending: ok",
		Known: []checks.KnownDivergence{{Kind: "open granted racing the last close", Of: "known divergence of Samba (not Azure Files behaviour)", Count: 317,
			Examples: []checks.Violation{{Key: "f", Message: "open granted racing the last close: the open was granted", Ops: ops}}}}}}
	var b bytes.Buffer
	if err := WriteHTML(&b, s, filepath.Join(t.TempDir(), "no-hlog")); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<p class="known">known divergence of Samba (not Azure Files behaviour): 317 × open granted racing the last close (does not fail the check)</p>`,
		"e.g. <strong>f</strong>: open granted racing the last close: the open was granted",
		"files.open",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
