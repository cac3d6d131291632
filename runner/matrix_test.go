package runner

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// The fast slice of the fault matrix: a register and a queue scenario under
// a fault that must not produce a violation, and under the broken promise
// that must. The full matrix is `stormcheck matrix` (README).
func TestMatrixSlice(t *testing.T) {
	var ss []MatrixScenario
	for _, s := range CoreScenarios {
		if s.Name == "etag-counter" || s.Name == "queue-work" {
			ss = append(ss, s)
		}
	}
	var log strings.Builder
	cells, err := RunMatrix(context.Background(), MatrixOptions{Scenarios: ss,
		Kinds: []string{"http.drop-response", "broken.early-visible"}, Duration: 3e9, Dir: t.TempDir(), Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 4 {
		t.Fatalf("%d cells, want 4", len(cells))
	}
	for _, c := range cells {
		t.Log(c.Line())
		if !c.OK {
			t.Errorf("cell does not show what it must: %s", c.Line())
		}
		// Under dropped responses every check still decides operations,
		// and the cell says how many.
		if c.Applies && c.Fault == "http.drop-response" {
			for _, r := range c.Checks {
				if r.Decided == 0 || !strings.Contains(c.Line(), fmt.Sprintf("%s %s (%d decided", r.Check, strings.ToUpper(string(r.Verdict)), r.Decided)) {
					t.Errorf("%s x %s: %s decided %d: %s", c.Scenario, c.Fault, r.Check, r.Decided, c.Line())
				}
			}
		}
	}
	// early-visible's check does not run on the counter: n/a, not run.
	if c := cells[1]; c.Scenario != "etag-counter" || c.Applies || c.Attempts != 0 {
		t.Errorf("counter x early-visible: %s", c.Line())
	}
	if c := cells[3]; !c.Applies || c.Attempts == 0 {
		t.Errorf("queue-work x early-visible did not run: %s", c.Line())
	}
	var md strings.Builder
	if err := WriteMatrixMarkdown(&md, cells, []string{"http.drop-response", "broken.early-visible"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| etag-counter |") || !strings.Contains(md.String(), " n/a |") {
		t.Errorf("markdown:\n%s", md.String())
	}
}
