package reports

import (
	"strings"
	"testing"
)

func TestLimitedBy(t *testing.T) {
	throttledOpen := WorkloadSummary{Name: "hot", Executor: "open", Actors: 16, Dropped: 3,
		Ops: []OpSummary{{Op: "table.insert", Count: 200, Outcomes: map[string]int64{"ok": 150, "throttled": 50}}}}
	units := []UnitSummary{
		{Workload: "hot", Kind: UnitPartition, Name: "p1", Throttled: 20, FirstThrottled: 2.5},
		{Workload: "hot", Kind: UnitPartition, Name: "p0", Throttled: 30, FirstThrottled: 1.25},
		{Workload: "other", Kind: UnitPartition, Name: "q", Throttled: 1, FirstThrottled: 0.1},
	}
	got := strings.Join(LimitedBy(throttledOpen, units, 0.2), "; ")
	for _, want := range []string{"throttling: 25.0% of the attempts were answered 503/500 (50), first at 1.2s on partition p0", "3 arrivals dropped because all 16 actors were busy"} {
		if !strings.Contains(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	closed := WorkloadSummary{Name: "c", Executor: "closed", Actors: 8, Ops: []OpSummary{{Op: "blob.put", Count: 10, Outcomes: map[string]int64{"ok": 10}}}}
	if got := LimitedBy(closed, nil, 0); len(got) != 1 || !strings.Contains(got[0], "8 closed-loop actors") {
		t.Errorf("closed loop: %q", got)
	}
	open := WorkloadSummary{Name: "o", Executor: "open", Actors: 8, Ops: []OpSummary{{Op: "blob.put", Count: 10, Outcomes: map[string]int64{"ok": 10}}}}
	if got := LimitedBy(open, nil, 0.3); len(got) != 0 {
		t.Errorf("an open loop that kept up: %q", got)
	}
	open.Late = 3
	if got := LimitedBy(open, nil, 0.3); len(got) != 1 || !strings.Contains(got[0], "the target's capacity: 3 of 10 operations started late") {
		t.Errorf("an open loop that fell behind: %q", got)
	}
	if got := LimitedBy(open, nil, 0.95); len(got) != 1 || !strings.Contains(got[0], "the harness used 95.0% of the machine's CPU") {
		t.Errorf("a busy client: %q", got)
	}
}
