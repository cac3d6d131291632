package matrix

import (
	"context"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/scenarios"
)

// TestSMBFaultsAreNotApplicable: the core scenarios run on Azurite, so a
// broken.smb-* kind is n/a in every row (not run, not a failure), and the
// matrix's verdict holds.
func TestSMBFaultsAreNotApplicable(t *testing.T) {
	var cells []Cell
	for _, kind := range scenarios.FaultKindNames() {
		if !scenarios.IsSMBFault(kind) {
			continue
		}
		c := runCell(context.Background(), CoreScenarios[0], kind, Options{}, nil)
		if c.Applies || !c.OK || !strings.Contains(c.Line(), "n/a") {
			t.Errorf("%s: %s", kind, c.Line())
		}
		cells = append(cells, c)
	}
	if len(cells) != 4 {
		t.Fatalf("%d SMB fault kinds, want 4", len(cells))
	}
	if line, ok := Verdict(cells); !ok {
		t.Errorf("verdict: %s", line)
	}
}
