package metricsexport

import (
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
)

// recordFixture records a known set of attempts, so that the exporters'
// output can be checked figure by figure:
//
//	counter (blob.etag-counter): 10 blob.get ok 200 in 2 ms; 6 blob.put ok 201
//	  and 4 blob.put 412 ConditionNotMet (conflict), each in 30 ms
//	mutex (blob.lease-mutex): 3 blob.lease.acquire 409 LeaseAlreadyPresent
//	  (conflict) in 4 ms, 1 timed out with no response (unknown) in 3 s
func recordFixture(t *testing.T) *reports.Metrics {
	t.Helper()
	goals := map[string]reports.Goal{}
	for w, kind := range map[string]string{"counter": "blob.etag-counter", "mutex": "blob.lease-mutex"} {
		g, ok := reports.GoalOf(kind)
		if !ok {
			t.Fatalf("no goal for %s", kind)
		}
		goals[w] = g
	}
	m := reports.NewMetrics(reports.MetricsOptions{Start: time.Now().Add(-10 * time.Second),
		Workloads: []string{"counter", "mutex"}, Goals: goals, Export: true})
	at := int64(0)
	rec := func(w, kind string, o checks.Outcome, status int, code string, lat time.Duration, n int) {
		for range n {
			op := checks.Op{Actor: 1, Workload: w, Kind: kind, Key: "k0", Attempt: 1,
				Intended: at, Call: at, Return: at + int64(lat), Outcome: o,
				Out: checks.Output{Status: status, ErrorCode: code}}
			m.Record(&op)
			at += int64(time.Millisecond)
		}
	}
	rec("counter", "blob.get", checks.OK, 200, "", 2*time.Millisecond, 10)
	rec("counter", "blob.put", checks.OK, 201, "", 30*time.Millisecond, 6)
	rec("counter", "blob.put", checks.Conflict, 412, "ConditionNotMet", 30*time.Millisecond, 4)
	rec("mutex", "blob.lease.acquire", checks.Conflict, 409, "LeaseAlreadyPresent", 4*time.Millisecond, 3)
	rec("mutex", "blob.lease.acquire", checks.Unknown, 0, "", 3*time.Second, 1)
	return m
}
