package runner

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/reportstest"
	"github.com/stormcheck/stormcheck/runner/runtest"
	"github.com/stormcheck/stormcheck/scenarios"
)

// TestWatchThresholdsInVirtualTime: an abort_on_fail threshold is judged
// every second on the live figures, not before its delay; one with nothing
// measured yet waits; the first failure stops the watch, at the tick the
// code decided.
func TestWatchThresholdsInVirtualTime(t *testing.T) {
	sc := runtest.Parse(t, `name: t
duration: 1m
workloads:
  - {name: w, kind: blob.etag-counter}
thresholds:
  - {threshold: "p95(blob.get) < 1ms", abort_on_fail: true}
  - {threshold: "errors == 0", abort_on_fail: true, delay_abort_eval: 5s}
  - "throttled == 0"
`)
	synctest.Test(t, func(t *testing.T) {
		m := reports.NewMetrics(reports.MetricsOptions{})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		aborts := make(chan *reports.ThresholdAbort, 4)
		done := make(chan struct{})
		go func() {
			defer close(done)
			watchThresholds(ctx, sc.Thresholds, time.Second, liveFigures(m), func(a *reports.ThresholdAbort) { aborts <- a })
		}()
		// A throttled put (the threshold without abort_on_fail fails) and,
		// at 2.5 s, an error: errors == 0 fails from then, but is judged
		// only from 5 s on. No blob.get is ever recorded.
		m.Record(reportstest.MkOp("w", "blob.put", 0, checks.Throttled, 100, 1, 0))
		time.Sleep(2500 * time.Millisecond)
		m.Record(reportstest.MkOp("w", "blob.put", 0, checks.Error, 2500, 1, 0))
		synctest.Wait()
		select {
		case a := <-aborts:
			t.Fatalf("aborted before the delay: %+v", a)
		default:
		}
		<-done
		close(aborts)
		var got []*reports.ThresholdAbort
		for a := range aborts {
			got = append(got, a)
		}
		if len(got) != 1 || got[0].Threshold != "errors == 0" || got[0].AtSeconds != 5 || got[0].Actual != 1 {
			t.Fatalf("aborts: %+v, want errors == 0 at 5s measuring 1", got)
		}
	})
}

// TestWatchThresholdsWithoutAbortReturns: no abort_on_fail, no watch.
func TestWatchThresholdsWithoutAbortReturns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ts := []scenarios.Threshold{{Text: "errors == 0", Metric: "errors", Cmp: "==", Value: 0}}
		watchThresholds(context.Background(), ts, time.Second, func(time.Duration) *reports.Summary {
			t.Fatal("read the figures with nothing to watch")
			return nil
		}, func(*reports.ThresholdAbort) { t.Fatal("aborted") })
	})
}

// TestMarkAborted: the threshold that stopped the load fails in the
// summary even if the whole run passes it, and says so.
func TestMarkAborted(t *testing.T) {
	s := &reports.Summary{
		Thresholds: []reports.ThresholdResult{{Threshold: "errors == 0", Pass: true}, {Threshold: "throttled == 0", Pass: true}},
		AbortedBy:  &reports.ThresholdAbort{Threshold: "errors == 0", AtSeconds: 5, Actual: 1},
	}
	reports.MarkAborted(s)
	if s.Thresholds[0].Pass || !s.Thresholds[0].Aborted || !s.Thresholds[1].Pass {
		t.Errorf("thresholds: %+v", s.Thresholds)
	}
}
