package runner

import (
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// TestKindsMatchTheImplementation: every kind a scenario may name has a
// workload here, and every check a kind names is a registered checker, so a
// valid scenario can always run and be checked.
func TestKindsMatchTheImplementation(t *testing.T) {
	for _, kind := range scenarios.KindNames() {
		if _, ok := workload.Lookup(kind); !ok {
			t.Errorf("kind %s validates but the runner has no workload for it", kind)
		}
		for _, c := range scenarios.Kinds[kind].AllChecks() {
			if _, err := checks.New(c); err != nil {
				t.Errorf("kind %s names check %s: %v", kind, c, err)
			}
		}
	}
	for _, kind := range workload.Kinds() {
		if _, ok := scenarios.Kinds[kind]; !ok {
			t.Errorf("workload %s is implemented but no scenario can name it", kind)
		}
	}
}
