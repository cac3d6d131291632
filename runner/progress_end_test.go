package runner

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stormcheck/stormcheck/scenarios"
)

// TestProgressEndsWithOneFinalLine: a 20 s load reported every 5 s gives
// the ticks at 5, 10 and 15 s and one final report; the tick that falls on
// the load's end is left out, so the last line is not printed twice.
func TestProgressEndsWithOneFinalLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, _ := testEnv(t)
		stages := []scenarios.Stage{{Duration: 20 * time.Second, Target: 2}}
		r := &running{env: e, wl: &stallable{d: 10 * time.Millisecond, start: time.Now()},
			plan: loadPlan{w: scenarios.Workload{Actors: 2, Stages: stages}, profile: NewProfile(2, stages, 0), limit: 20 * time.Second}}
		var at []time.Duration
		load(context.Background(), []*running{r}, e.Rec, e.Rec.Metrics, Options{ProgressEvery: 5 * time.Second, Progress: func(p Progress) {
			at = append(at, p.Elapsed.Round(time.Second))
		}})
		want := []time.Duration{5 * time.Second, 10 * time.Second, 15 * time.Second, 20 * time.Second}
		if len(at) != len(want) {
			t.Fatalf("progress at %v, want %v", at, want)
		}
		for i := range want {
			if at[i] != want[i] {
				t.Fatalf("progress at %v, want %v", at, want)
			}
		}
	})
}
