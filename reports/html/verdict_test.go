package html

import (
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/reports/reportstest"
)

// A run with no checks shows no checks card (no "0 pass"): the verdict says
// no checks were configured.
func TestHTMLNoChecksNoCard(t *testing.T) {
	s := reportstest.WriteFixtureRun(t, t.TempDir(), reportstest.PlainNames)
	s.Checks, s.Thresholds, s.ExitCode = nil, nil, 0
	var b strings.Builder
	if err := WriteHTML(&b, s, ""); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if strings.Contains(page, `<div class="k">checks</div>`) || strings.Contains(page, "0 pass") {
		t.Error("a run without checks shows a checks card")
	}
	if !strings.Contains(page, `<span class="badge pass">pass</span><span>exit code 0; no checks configured</span>`) {
		t.Error("the verdict does not say that no checks were configured")
	}
	if strings.Contains(page, `class="failures"`) {
		t.Error("a passing run lists failures")
	}
}
