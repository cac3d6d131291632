package runner

import (
	"context"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/blob"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

func TestDoRetriesPerPolicyAndRecordsEveryAttempt(t *testing.T) {
	cases := []struct {
		name     string
		errs     []error // one per attempt; nil = success
		on       []string
		attempts int
		last     checks.Outcome
	}{
		{"503 then ok", []error{respErr(503, "ServerBusy"), respErr(503, "ServerBusy"), nil}, []string{"throttled", "unknown"}, 3, checks.OK},
		{"timeout then ok", []error{context.DeadlineExceeded, nil}, []string{"throttled", "unknown"}, 2, checks.OK},
		{"400 is never retried by default", []error{respErr(400, "InvalidHeaderValue"), nil}, []string{"throttled", "unknown"}, 1, checks.Error},
		{"412 lost race is not retried", []error{respErr(412, "ConditionNotMet"), nil}, []string{"throttled", "unknown", "error"}, 1, checks.Conflict},
		{"gives up after max attempts", []error{respErr(503, ""), respErr(503, ""), respErr(503, ""), respErr(503, ""), nil}, []string{"throttled"}, 4, checks.Throttled},
		{"unknown not retried when not asked", []error{context.DeadlineExceeded, nil}, []string{"throttled"}, 1, checks.Unknown},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e, path := testEnv(t)
			e.Retry = scenarios.Retry{MaxAttempts: 4, Base: time.Millisecond, Max: 2 * time.Millisecond, On: c.on}
			for _, s := range c.on {
				o, _ := checks.ParseOutcome(s)
				e.RetryOn[o] = true
			}
			a := e.Actor(0)
			n := 0
			op := a.Do(context.Background(), workload.Call{Kind: "blob.put", Key: "k", Conflicts: blob.ConflictPrecondition}, func(context.Context, int) (checks.Input, string, error) {
				err := c.errs[n]
				n++
				return checks.Input{Value: checks.CounterValue{N: 1, Tag: a.Tag()}.Format(0)}, "", err
			})
			if op.Outcome != c.last || op.Attempt != c.attempts {
				t.Errorf("last attempt %d %v, want %d %v", op.Attempt, op.Outcome, c.attempts, c.last)
			}
			ops := readOps(t, e, path)
			if len(ops) != c.attempts {
				t.Fatalf("%d attempts recorded, want %d", len(ops), c.attempts)
			}
			seen := map[string]bool{}
			for i, o := range ops {
				if o.Attempt != i+1 {
					t.Errorf("record %d has attempt %d", i, o.Attempt)
				}
				if seen[o.In.Value] {
					t.Errorf("attempt %d wrote %q again: every write attempt must be unique", o.Attempt, o.In.Value)
				}
				seen[o.In.Value] = true
			}
		})
	}
}
