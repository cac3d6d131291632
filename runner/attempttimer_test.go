package runner

import (
	"context"
	"errors"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"testing"
	"testing/synctest"
	"time"
)

// TestAttemptTimer: an attempt that outlives the timeout ends with a
// timeout (context.DeadlineExceeded, the call's own error kept); the next
// attempt gets a live context again; one that returns in time leaves the
// context for the next; the run's interrupt is a cancellation, not a
// timeout.
func TestAttemptTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var at workload.AttemptTimer
		var wire target.ByteCount
		run, interrupt := context.WithCancel(context.Background())
		call := func(ctx context.Context, d time.Duration) error {
			select {
			case <-time.After(d):
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		ctx := at.Start(run, time.Second, &wire)
		if ctx.Value(target.BytesKey{}) != &wire {
			t.Fatal("the attempt's context does not carry the byte count")
		}
		err := at.Stop(call(ctx, 2*time.Second))
		if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, context.Canceled) || target.ShortErr(err) != "timeout" {
			t.Fatalf("an attempt past its timeout: %v (recorded as %q)", err, target.ShortErr(err))
		}
		start := time.Now()
		ctx2 := at.Start(run, time.Second, &wire)
		if ctx2.Err() != nil {
			t.Fatal("the attempt after a timeout starts with a dead context")
		}
		if err := at.Stop(call(ctx2, 500*time.Millisecond)); err != nil {
			t.Fatalf("an attempt within its timeout: %v", err)
		}
		ctx3 := at.Start(run, time.Second, &wire)
		if ctx3 != ctx2 {
			t.Error("an attempt that ended in time did not leave its context to the next")
		}
		// The timer was re-armed: 1 s from now, not from ctx2's start.
		if err := at.Stop(call(ctx3, 900*time.Millisecond)); err != nil || time.Since(start) < 1400*time.Millisecond {
			t.Fatalf("re-armed attempt: %v after %v", err, time.Since(start))
		}
		ctx4 := at.Start(run, time.Second, &wire)
		time.AfterFunc(100*time.Millisecond, interrupt)
		err = at.Stop(call(ctx4, time.Hour))
		if !errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("an interrupted attempt: %v; want canceled, not a timeout", err)
		}
		if ctx5 := at.Start(run, time.Second, &wire); ctx5.Err() == nil {
			t.Error("after the interrupt the attempt's context must be done")
		}
		at.Stop(nil)
	})
}
