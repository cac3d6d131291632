package reports

import (
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
)

// TestAcquiresPerWin: a workload whose goal names its lease acquire
// (lease-mutex) reports acquire attempts per acquire that succeeded, in
// the summary and on its achieved line; other workloads report none.
func TestAcquiresPerWin(t *testing.T) {
	mutex, _ := GoalOf("blob.lease-mutex")
	lifecycle, _ := GoalOf("blob.lease-lifecycle")
	m := NewMetrics(MetricsOptions{Workloads: []string{"mutex", "leases"}, Goals: map[string]Goal{"mutex": mutex, "leases": lifecycle}})
	for i, o := range []checks.Outcome{checks.Conflict, checks.OK, checks.Conflict, checks.Unknown, checks.Conflict, checks.OK, checks.Conflict} {
		m.Record(MkOp("mutex", "blob.lease.acquire", i%3, o, float64(10*i), 1, 0))
		m.Record(MkOp("leases", "blob.lease.acquire", i%3, o, float64(10*i), 1, 0))
	}
	m.Record(MkOp("mutex", "blob.put", 0, checks.OK, 80, 1, 0))
	ws, _ := m.Summary(time.Second)
	got := map[string]float64{}
	for _, w := range ws {
		got[w.Name] = w.AcquiresPerWin
	}
	if got["mutex"] != 3.5 || got["leases"] != 0 {
		t.Fatalf("acquires per win %v, want mutex 3.5 (7 attempts, 2 won), leases none", got)
	}
	var b strings.Builder
	for _, w := range ws {
		if w.Name == "mutex" {
			ew := &ErrWriter{W: &b}
			writeAchieved(ew, &w)
		}
	}
	if !strings.Contains(b.String(), "achieved: 1 increments") || !strings.Contains(b.String(), "; 3.5 acquires per lease won") {
		t.Errorf("achieved line: %q", b.String())
	}
}
