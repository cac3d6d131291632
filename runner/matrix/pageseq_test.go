package matrix

import (
	"context"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/scenarios"
)

// The page-seqnum row of the fault matrix, under every fault kind: on
// unmodified Azurite and under every fault that keeps the service's
// promises seqnum-chain does not fail and decides at least its floor;
// broken.strip-seqnum makes it fail; the broken promises of other checks
// are n/a.
func TestMatrixPageSeqnumRow(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the page-seqnum row under every fault kind")
	}
	var row []Scenario
	for _, s := range CoreScenarios {
		if s.Name == "page-seqnum" {
			row = append(row, s)
		}
	}
	if len(row) != 1 {
		t.Fatal("no page-seqnum row in CoreScenarios")
	}
	kinds := scenarios.FaultKindNames()
	var log strings.Builder
	cells, err := Run(context.Background(), Options{Scenarios: row, Kinds: kinds, Duration: 3e9, Dir: t.TempDir(), Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if len(cells) != len(kinds) {
		t.Fatalf("%d cells, want %d", len(cells), len(kinds))
	}
	for _, c := range cells {
		t.Log(c.Line())
		if !c.OK {
			t.Errorf("cell does not show what it must: %s", c.Line())
		}
		spec := scenarios.FaultKinds[c.Fault]
		switch {
		case c.Fault == "broken.strip-seqnum":
			if !c.Applies {
				t.Errorf("broken.strip-seqnum did not run on page-seqnum: %s", c.Line())
			}
		case spec.Check != "":
			if c.Applies {
				t.Errorf("%s ran on page-seqnum, whose check it does not break: %s", c.Fault, c.Line())
			}
		case c.Attempts == 0:
			t.Errorf("%s: no attempt recorded: %s", c.Fault, c.Line())
		}
	}
	if line, ok := Verdict(cells); !ok {
		t.Errorf("verdict %q", line)
	}
}
