package reports_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/html"
	"github.com/stormcheck/stormcheck/reports/text"
)

// TestReportsShowDecidedAndUnknownWrites: the text report, the HTML report
// and summary.json carry each check's decided count and what became of its
// unknown writes.
func TestReportsShowDecidedAndUnknownWrites(t *testing.T) {
	s := &reports.Summary{Scenario: "s", Checks: []checks.Result{
		{Check: "version-chain", Workload: "w", Verdict: checks.Pass, Summary: "w: linearizable", Decided: 5,
			Unknown: &checks.UnknownWrites{Applied: 1, NotApplied: 2, Open: 3}},
		{Check: "date-conditions", Workload: "w", Verdict: checks.Undecided, Summary: "w: undecided, nothing to check"},
	}}
	const want = "[5 operations decided; unknown writes: 1 applied, 2 not applied, 3 open]"
	var textX strings.Builder
	if err := text.WriteText(&textX, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(textX.String()), " "), want) {
		t.Errorf("text report lacks %q:\n%s", want, textX.String())
	}
	var htmlX strings.Builder
	if err := html.WriteHTML(&htmlX, s, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(htmlX.String(), want) {
		t.Errorf("HTML report lacks %q", want)
	}
	path := filepath.Join(t.TempDir(), "summary.json")
	if err := reports.WriteSummaryJSON(path, s); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var back struct {
		Checks []struct {
			Decided int                   `json:"decided"`
			Unknown *checks.UnknownWrites `json:"unknown_writes"`
		} `json:"checks"`
	}
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Checks) != 2 || back.Checks[0].Decided != 5 || back.Checks[0].Unknown == nil || back.Checks[0].Unknown.Open != 3 ||
		back.Checks[1].Decided != 0 || back.Checks[1].Unknown != nil {
		t.Errorf("summary.json checks: %s", raw)
	}
}
