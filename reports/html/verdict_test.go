package html

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports/reportstest"
	"github.com/stormcheck/stormcheck/reports/text"
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

// The page's verdict lists at most text.VerdictItemsShown failures and says
// how many more there are; the checks' section keeps every one.
func TestHTMLVerdictListIsCapped(t *testing.T) {
	s := reportstest.WriteFixtureRun(t, t.TempDir(), reportstest.PlainNames)
	base := s.Checks[0]
	s.Checks = nil
	for i := 0; i < 30; i++ {
		c := base
		c.Check, c.Workload, c.Verdict = "no-lost-updates", fmt.Sprintf("w%02d", i), checks.Fail
		s.Checks = append(s.Checks, c)
	}
	var b strings.Builder
	if err := WriteHTML(&b, s, ""); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if n := strings.Count(page, `<li class="failure"`); n != text.VerdictItemsShown {
		t.Errorf("%d failures listed in the verdict", n)
	}
	if !strings.Contains(page, `<li class="more">and 23 more (22 failed checks, 1 failed threshold), in full under checks and thresholds</li>`) {
		t.Error("the verdict does not say how many more failed")
	}
	if !strings.Contains(page, "w29") {
		t.Error("the last failed check is not on the page")
	}
}
