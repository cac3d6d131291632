package runner

import (
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/reports"
)

// requireIterationsDone fails the test when a workload bounded by its
// iterations ran until the scenario's duration cap instead: the events the
// test asserts on are then missing because the machine was too slow for
// the cap, not because the code decided otherwise, and the test says so.
func requireIterationsDone(t *testing.T, sum *reports.Summary, limit time.Duration) {
	t.Helper()
	for _, w := range sum.Workloads {
		if w.Active >= limit-time.Second {
			t.Fatalf("workload %s ran %s, the duration cap: it did not finish its iterations (the machine is too slow for the cap)", w.Name, w.Active)
		}
	}
}
