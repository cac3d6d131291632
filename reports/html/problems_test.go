package html

import (
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/reports"
)

// TestHTMLSaysWhatWentWrongAfterTheLoad: what could not be written, what
// was left on the target, why the checks did not run and which workloads
// the target could not run are on the page,
// not hidden behind an empty checks section.
func TestHTMLSaysWhatWentWrongAfterTheLoad(t *testing.T) {
	s := &reports.Summary{Scenario: "s", Files: map[string]string{},
		NotWritten:   []string{"history.jsonl.zst: no space left on device"},
		CleanupError: "gave up after 10s: listing containers sc1a2b3c4d-*: timeout",
		ChecksError:  "checks: history: unexpected EOF",
		NotRun:       []string{"workload ranges: files.rest-ranges: Azurite has no File service"}}
	var b strings.Builder
	if err := WriteHTML(&b, s, ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Not written:</strong> history.jsonl.zst: no space left on device",
		"Left on the target:</strong> gave up after 10s", "Checks failed to run:</strong> checks: history: unexpected EOF",
		"Not run:</strong> workload ranges: files.rest-ranges: Azurite has no File service"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
}
