package reports

import (
	"testing"
	"time"
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
			name:    "two workloads",
			elapsed: 5*time.Second + 400*time.Millisecond,
			p: []WorkloadProgress{
				{Workload: "counter", Ops: 1234, OK: 1000, Conflicts: 234, Rate: 246.4},
				{Workload: "create", Ops: 80, OK: 16, Conflicts: 64, Rate: 16},
			},
			want: "[  5s] counter: 1234 ops 246/s ok 1000 conflict 234 err 0 | create: 80 ops 16/s ok 16 conflict 64 err 0",
		},
		{
			name:    "throttled and unknown shown when non-zero",
			elapsed: 12345 * time.Second,
			p:       []WorkloadProgress{{Workload: "w", Ops: 10, OK: 5, Errors: 1, Throttled: 3, Unknown: 1, Rate: 0}},
			want:    "[12345s] w: 10 ops 0/s ok 5 conflict 0 err 1 throttled 3 unknown 1",
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
