package runner

import (
	"slices"
	"testing"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/workload"
)

// Every workload kind says what it achieves (progress bars and live
// metrics show it), and no goal names a kind the runner lacks.
func TestEveryWorkloadKindHasAGoal(t *testing.T) {
	kinds := workload.Kinds()
	for _, k := range kinds {
		if g, ok := reports.GoalOf(k); !ok || g.Noun == "" || len(g.Ops) == 0 {
			t.Errorf("workload kind %s has no goal in reports/goals.go", k)
		}
	}
	for _, k := range reports.GoalKinds() {
		if !slices.Contains(kinds, k) {
			t.Errorf("reports/goals.go has a goal for %s, which the runner does not implement", k)
		}
	}
}
