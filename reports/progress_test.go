package reports

import (
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
)

func TestFormatProgressLine(t *testing.T) {
	tests := []struct {
		name    string
		elapsed time.Duration
		p       []WorkloadProgress
		want    string
	}{
		{
			name:    "nothing yet",
			elapsed: 900 * time.Millisecond,
			want:    "[  0s] no operations yet",
		},
		{
			name:    "two workloads: what each achieved first",
			elapsed: 5*time.Second + 400*time.Millisecond,
			p: []WorkloadProgress{
				{Workload: "counter", Ops: 1234, OK: 1000, Conflicts: 234, Rate: 246.4, Goal: "increments", Achieved: 190, AchievedRate: 38},
				{Workload: "create", Ops: 80, OK: 16, Conflicts: 64, Rate: 16, Goal: "creations", Achieved: 16, AchievedRate: 3},
			},
			want: "[  5s] counter: 190 increments 38/s, 1234 calls 246/s, conflict 234 err 0 | create: 16 creations 3/s, 80 calls 16/s, conflict 64 err 0",
		},
		{
			name:    "no goal: ok calls; throttled and unknown shown when non-zero",
			elapsed: 12345 * time.Second,
			p:       []WorkloadProgress{{Workload: "w", Ops: 10, OK: 5, Errors: 1, Throttled: 3, Unknown: 1, Rate: 0}},
			want:    "[12345s] w: 10 calls 0/s, ok 5 conflict 0 throttled 3 err 1 unknown 1",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := FormatProgressLine(tc.elapsed, tc.p); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// The counter's progress counts acknowledged increments (ok puts), not its
// reads and writes together: 5 reads, 2 ok puts and 3 lost races show as
// 2 increments, and the rate is that of the last full second.
func TestProgressCountsWhatTheWorkloadAchieved(t *testing.T) {
	m := NewMetrics(MetricsOptions{Workloads: []string{"counter"},
		Goals: map[string]Goal{"counter": {Noun: "increments", Ops: []string{"blob.put"}}}})
	rec := func(kind string, o checks.Outcome, sec int64) {
		at := sec * int64(time.Second)
		m.Record(&checks.Op{Workload: "counter", Kind: kind, Intended: at, Call: at, Return: at + 1000, Outcome: o})
	}
	for range 5 {
		rec("blob.get", checks.OK, 0)
	}
	rec("blob.put", checks.OK, 0)
	rec("blob.put", checks.OK, 1)
	for range 3 {
		rec("blob.put", checks.Conflict, 1)
	}
	p := m.ProgressAt(2500 * time.Millisecond)
	if len(p) != 1 {
		t.Fatalf("progress %+v", p)
	}
	w := p[0]
	if w.Goal != "increments" || w.Achieved != 2 || w.AchievedRate != 1 || w.OK != 7 || w.Ops != 10 || w.Rate != 4 {
		t.Errorf("progress %+v: want 2 increments (1 in the last full second), 7 ok of 10 calls, 4 calls/s", w)
	}
	ws, _ := m.Summary(2 * time.Second)
	if ws[0].Goal != "increments" || ws[0].Achieved != 2 {
		t.Errorf("summary: %d %s, want 2 increments", ws[0].Achieved, ws[0].Goal)
	}
}
