package runner

import (
	"context"
	"errors"
	"time"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/scenarios"
)

// AbortCheckEvery is how often the abort_on_fail thresholds are checked on
// the live figures.
const AbortCheckEvery = time.Second

// watchThresholds checks the abort_on_fail thresholds of ts every `every`
// until ctx is done, each once its delay of load has passed, on the
// figures live(elapsed) gives; the first one to fail with data to judge
// (a criterion with nothing measured yet waits) is passed to stop, and the
// watch ends. It returns at once when no threshold asks for it.
func watchThresholds(ctx context.Context, ts []scenarios.Threshold, every time.Duration,
	live func(elapsed time.Duration) *reports.Summary, stop func(*reports.ThresholdAbort)) {
	var watched []scenarios.Threshold
	for _, t := range ts {
		if t.AbortOnFail {
			watched = append(watched, t)
		}
	}
	if len(watched) == 0 {
		return
	}
	start := time.Now()
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		elapsed := time.Since(start)
		var due []scenarios.Threshold
		for _, t := range watched {
			if elapsed >= t.AbortDelay {
				due = append(due, t)
			}
		}
		if len(due) == 0 {
			continue
		}
		for _, r := range reports.EvaluateThresholds(live(elapsed), due) {
			if !r.Pass && r.Note == "" {
				stop(&reports.ThresholdAbort{Threshold: r.Threshold, AtSeconds: elapsed.Seconds(), Actual: r.Actual, Window: r.Window})
				return
			}
		}
	}
}

// liveFigures are the figures a threshold reads, from the live metrics.
func liveFigures(m *reports.Metrics) func(time.Duration) *reports.Summary {
	return func(elapsed time.Duration) *reports.Summary {
		ws, _ := m.Summary(elapsed)
		return &reports.Summary{Workloads: ws}
	}
}

// errThresholdAbort is the load's stop cause when an abort_on_fail
// threshold failed.
var errThresholdAbort = errors.New("an abort_on_fail threshold failed")
