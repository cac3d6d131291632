package runner

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stormcheck/stormcheck/scenarios"
)

// lateAfter is how far behind its intended start an operation may begin
// before it counts as late (timer precision plus a scheduling hiccup).
const lateAfter = 5 * time.Millisecond

// ExecStats counts what an executor could not do as scheduled.
type ExecStats struct {
	// Late: operations that started more than 5 ms after their intended start.
	Late atomic.Int64
	// Dropped: arrivals that found every actor busy and the queue full.
	Dropped atomic.Int64
	// Iterations started.
	Iterations atomic.Int64
}

// loadPlan is one workload's load phase, derived from its scenario entry.
type loadPlan struct {
	w       scenarios.Workload
	profile Profile
	// limit is the load phase's length (0: bounded by iterations only).
	limit time.Duration
}

func planFor(w scenarios.Workload, sc *scenarios.Scenario) loadPlan {
	d := w.Duration
	if d == 0 {
		d = sc.Duration
	}
	start := float64(w.Actors)
	if w.Executor == scenarios.ExecutorOpen {
		start = w.Rate
	}
	p := NewProfile(start, w.Stages, d)
	if len(w.Stages) > 0 {
		d = p.End()
	}
	return loadPlan{w: w, profile: p, limit: d}
}

// claim takes one iteration from the bound; false when the bound is reached.
func claim(st *ExecStats, bound int64) bool {
	n := st.Iterations.Add(1)
	if bound > 0 && n > bound {
		st.Iterations.Add(-1)
		return false
	}
	return true
}

// runClosed runs the closed loop: each of N actors starts its next operation
// when the last returns. Stages ramp N; actors above the current level wait.
func runClosed(ctx context.Context, e *Env, wl Workload, pl loadPlan, st *ExecStats) {
	maxActors := pl.w.Actors
	for _, s := range pl.w.Stages {
		maxActors = max(maxActors, int(math.Ceil(s.Target)))
	}
	var active atomic.Int64
	active.Store(int64(math.Round(pl.profile.At(0))))
	start := time.Now()
	stopCtl := make(chan struct{})
	if len(pl.w.Stages) > 0 {
		go func() {
			t := time.NewTicker(50 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stopCtl:
					return
				case <-t.C:
					active.Store(int64(math.Round(pl.profile.At(time.Since(start)))))
				}
			}
		}()
	}
	var wg sync.WaitGroup
	for i := 0; i < maxActors; i++ {
		wg.Add(1)
		go func(a *Actor) {
			defer wg.Done()
			for !e.stopping() && ctx.Err() == nil {
				if int64(a.ID) >= active.Load() {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				if !claim(st, pl.w.Iterations) {
					e.stop.Store(true)
					return
				}
				a.intended = 0 // closed loop: the operation starts when it is called
				wl.Iterate(ctx, a)
			}
		}(e.Actor(i))
	}
	wg.Wait()
	close(stopCtl)
}

// runOpen runs the open loop: arrivals on an absolute schedule computed from
// the start, served by a pool of actors. Latency counts from the intended
// start (wrk2), so a slow service cannot hide behind a slowed client.
func runOpen(ctx context.Context, e *Env, wl Workload, pl loadPlan, st *ExecStats) {
	type arrival struct{ intended int64 }
	queue := make(chan arrival, pl.w.Actors)
	var wg sync.WaitGroup
	for i := 0; i < pl.w.Actors; i++ {
		wg.Add(1)
		go func(a *Actor) {
			defer wg.Done()
			for arr := range queue {
				if ctx.Err() != nil {
					continue
				}
				if time.Duration(e.Rec.Now()-arr.intended) > lateAfter {
					st.Late.Add(1)
				}
				a.intended = arr.intended
				wl.Iterate(ctx, a)
			}
		}(e.Actor(i))
	}
	base := e.Rec.Now()
	timer := time.NewTimer(0)
	defer timer.Stop()
dispatch:
	for n := int64(0); !e.stopping(); n++ {
		at, ok := pl.profile.ArrivalTime(n)
		if !ok || (pl.limit > 0 && at >= pl.limit) {
			break
		}
		due := base + int64(at)
		if wait := time.Duration(due - e.Rec.Now()); wait > 0 {
			timer.Reset(wait)
			select {
			case <-ctx.Done():
				break dispatch
			case <-timer.C:
			}
		}
		if !claim(st, pl.w.Iterations) {
			break
		}
		select {
		case queue <- arrival{intended: due}:
		default:
			st.Dropped.Add(1)
			st.Iterations.Add(-1) // a dropped arrival is not an iteration
		}
	}
	close(queue)
	wg.Wait()
}
