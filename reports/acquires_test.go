package reports_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/reportstest"
	"github.com/stormcheck/stormcheck/reports/text"
)

// TestAcquiresPerWin: a workload whose goal names its lease acquire
// (lease-mutex) reports acquire attempts per acquire that succeeded, in
// the summary and on its achieved line; other workloads report none.
func TestAcquiresPerWin(t *testing.T) {
	mutex, _ := reports.GoalOf("blob.lease-mutex")
	lifecycle, _ := reports.GoalOf("blob.lease-lifecycle")
	m := reports.NewMetrics(reports.MetricsOptions{Workloads: []string{"mutex", "leases"}, Goals: map[string]reports.Goal{"mutex": mutex, "leases": lifecycle}})
	for i, o := range []checks.Outcome{checks.Conflict, checks.OK, checks.Conflict, checks.Unknown, checks.Conflict, checks.OK, checks.Conflict} {
		m.Record(reportstest.MkOp("mutex", "blob.lease.acquire", i%3, o, float64(10*i), 1, 0))
		m.Record(reportstest.MkOp("leases", "blob.lease.acquire", i%3, o, float64(10*i), 1, 0))
	}
	m.Record(reportstest.MkOp("mutex", "blob.put", 0, checks.OK, 80, 1, 0))
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
			ew := &reports.ErrWriter{W: &b}
			text.WriteAchieved(ew, &w)
		}
	}
	if !strings.Contains(b.String(), "achieved: 1 increments") || !strings.Contains(b.String(), "; 3.5 acquires per lease won") {
		t.Errorf("achieved line: %q", b.String())
	}
}
