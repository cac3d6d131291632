package reports

import (
	"strings"
	"testing"
	"time"
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
	if want := "throttling: 25.0% of the attempts were answered 503/500 (50), first at 1.2s on partition p0"; !strings.Contains(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	closed := WorkloadSummary{Name: "c", Executor: "closed", Actors: 8, Ops: []OpSummary{{Op: "blob.put", Count: 10, Outcomes: map[string]int64{"ok": 10}}}}
	if got := LimitedBy(closed, nil, 0); len(got) != 1 || !strings.Contains(got[0], "8 closed-loop actors") {
		t.Errorf("closed loop: %q", got)
	}
	open := WorkloadSummary{Name: "o", Executor: "open", Actors: 8, Arrivals: 10, Ops: []OpSummary{{Op: "blob.put", Count: 10, Outcomes: map[string]int64{"ok": 10}}}}
	if got := LimitedBy(open, nil, 0.3); len(got) != 0 {
		t.Errorf("an open loop that kept up: %q", got)
	}
}

// stalledOpen is an open loop of 1000 arrivals over 5 s (200/s), each an
// iteration of a get and a put (1900 operations in all: the shares must be
// of arrivals), 300 served late and 50 dropped.
func stalledOpen(actors int, p50 float64) WorkloadSummary {
	lat := Percentiles{P50: p50, P99: 1900}
	return WorkloadSummary{Name: "o", Executor: "open", Actors: actors, Arrivals: 1000, Late: 300, Dropped: 50, Backlog: 2000,
		Active: 5 * time.Second, Ops: []OpSummary{
			{Op: "blob.get", Count: 950, Outcomes: map[string]int64{"ok": 950}, Latency: lat},
			{Op: "blob.put", Count: 950, Outcomes: map[string]int64{"ok": 900, "conflict": 50}, Latency: lat},
		}}
}

func TestLimitedByTellsStalledTargetFromShortClient(t *testing.T) {
	cases := []struct {
		name      string
		w         WorkloadSummary
		cpu       float64
		want, not []string
	}{
		{"the target stalled: 64 actors need 0.4 at a 1 ms median", stalledOpen(64, 1), 0.2,
			[]string{"the target: its latency grew while arrivals kept their schedule", "p99 1900.0 ms against p50 1.0 ms",
				"300 of 1000 arrivals served late, 50 dropped (backlog bound 2000), 0 never served"},
			[]string{"the client", "operations"}},
		{"too few actors: 200/s at 2 x 20 ms needs 8", stalledOpen(2, 20), 0.2,
			[]string{"the client: 2 actors are too few for 200 arrivals/s", "40.0 ms per iteration needs about 8 actors", "300 of 1000 arrivals"},
			[]string{"the target:"}},
		{"a busy machine", stalledOpen(64, 1), 0.95,
			[]string{"the harness used 95.0% of the machine's CPU"}, []string{"the target:", "actors are too few"}},
	}
	for _, c := range cases {
		got := strings.Join(LimitedBy(c.w, nil, c.cpu), "; ")
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: got %q, want %q", c.name, got, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(got, w) {
				t.Errorf("%s: got %q, must not say %q", c.name, got, w)
			}
		}
	}
	pacer := stalledOpen(64, 1)
	pacer.PacerLate = 200
	got := strings.Join(LimitedBy(pacer, nil, 0.5), "; ")
	if !strings.Contains(got, "the client: its pacer placed 200 of 1000 arrivals more than 5 ms late") || !strings.Contains(got, "the target: its latency grew") {
		t.Errorf("a pacer short of CPU beside a stalled target: %q", got)
	}
}
