package runner

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// lateAfter is how far behind its intended start an operation may begin
// before it counts as late (timer precision plus a scheduling hiccup).
const lateAfter = 5 * time.Millisecond

// ExecStats counts what an executor did and could not do as scheduled.
type ExecStats struct {
	// Arrivals: an open loop's arrivals due during its load phase; each is
	// served, dropped or unserved.
	Arrivals atomic.Int64
	// Late: arrivals served more than 5 ms after their intended start.
	Late atomic.Int64
	// Dropped: arrivals that found every actor busy and the backlog full.
	Dropped atomic.Int64
	// Unserved: arrivals still waiting in the backlog when the load ended.
	Unserved atomic.Int64
	// PacerLate: arrivals the pacer itself placed more than 5 ms after
	// their intended start with room in the backlog: the client, not the
	// target, fell behind (short of CPU).
	PacerLate atomic.Int64
	// Backlog is the backlog's bound; PeakBacklog the deepest it was.
	Backlog     int
	PeakBacklog atomic.Int64
	// Iterations started.
	Iterations atomic.Int64
}

// loadPlan is one workload's load phase, derived from its scenario entry.
type loadPlan struct {
	w       scenarios.Workload
	profile Profile
	// limit is the load phase's length (0: bounded by iterations only).
	limit time.Duration
	// backlog bounds an open loop's backlog (0: backlogFor's default).
	backlog int
	// precise makes an open loop's pacer wait the last stretch before each
	// arrival on a timer of nanosecond precision (see pacerclock_linux.go)
	// instead of Go's timers, whose wake-up on an idle process is whole
	// milliseconds: that lateness would be the client's own lag, counted in
	// the corrected latency. Off in virtual time (tests' plans).
	precise bool
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
	return loadPlan{w: w, profile: p, limit: d, precise: precisePacer}
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
func runClosed(ctx context.Context, e *workload.Env, wl workload.Workload, pl loadPlan, st *ExecStats) {
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
		go func(i int, a *workload.Actor) {
			defer wg.Done()
			for !e.Stopping() && ctx.Err() == nil {
				if int64(i) >= active.Load() {
					time.Sleep(20 * time.Millisecond)
					continue
				}
				if !claim(st, pl.w.Iterations) {
					e.Stop.Store(true)
					return
				}
				a.Intended = 0 // closed loop: the operation starts when it is called
				wl.Iterate(ctx, a)
			}
		}(i, e.Actor(e.ActorBase+i))
	}
	wg.Wait()
	close(stopCtl)
}

// backlogFor is an open loop's backlog bound: arrivals that find every
// actor busy wait here, in order, and are served late. It holds
// backlogSeconds of the workload's highest rate, at least 16 per actor and
// at most maxBacklog.
func backlogFor(pl loadPlan) int {
	if pl.backlog > 0 {
		return pl.backlog
	}
	peak := pl.w.Rate
	for _, s := range pl.w.Stages {
		peak = max(peak, s.Target)
	}
	n := math.Min(peak*backlogSeconds, maxBacklog)
	return int(max(n, float64(16*pl.w.Actors), 1))
}

const (
	backlogSeconds = 10
	maxBacklog     = 100_000
)

// preciseSpan is how long before an arrival a precise pacer stops
// waiting on Go's timers (up to a millisecond late on an idle process, more
// on a busy one) and waits on its precise clock: the stretch that Ctrl-C
// cannot cut short.
const preciseSpan = 3 * time.Millisecond

// roomWait is how long a pacer whose backlog is full waits before it
// looks again: the arrivals due meanwhile are dropped together.
const roomWait = time.Millisecond

// runOpen runs the open loop the way wrk2 means it: arrivals on an absolute
// schedule computed from the start, served by a pool of actors. Latency
// counts from the intended start, so a slow service cannot hide behind a
// slowed client. An arrival that finds every actor busy waits in a bounded
// backlog and is served late; past the bound it is dropped. No arrival
// leaves the record: dropped arrivals, and those still waiting when the
// load ends, go into the corrected histogram of the op kind iterations
// start with, with the latency they had at least reached by the end.
func runOpen(ctx context.Context, e *workload.Env, wl workload.Workload, pl loadPlan, st *ExecStats) {
	st.Backlog = backlogFor(pl)
	queue := make(chan int64, st.Backlog)
	var mu sync.Mutex // guards miss
	miss := newMissed()
	var wg sync.WaitGroup
	for i := 0; i < pl.w.Actors; i++ {
		wg.Add(1)
		go func(a *workload.Actor) {
			defer wg.Done()
			for due := range queue {
				if ctx.Err() != nil || e.Stopping() {
					mu.Lock()
					miss.add(due, 1)
					mu.Unlock()
					st.Unserved.Add(1)
					continue
				}
				if time.Duration(e.Rec.Now()-due) > lateAfter {
					st.Late.Add(1)
				}
				a.Intended = due
				wl.Iterate(ctx, a)
				// A schedule no sent call consumed (the load stopped
				// between the arrival and its call, or the iteration made
				// none) was not served: it is counted and recorded as
				// unserved.
				if a.Intended != 0 {
					a.Intended = 0
					mu.Lock()
					miss.add(due, 1)
					mu.Unlock()
					st.Unserved.Add(1)
				}
			}
		}(e.Actor(e.ActorBase + i))
	}
	pace(ctx, e, pl, st, queue, func(due, n int64) {
		mu.Lock()
		miss.add(due, n)
		mu.Unlock()
	})
	close(queue)
	wg.Wait()
	recordMissed(e, miss, e.Rec.Now())
}

// pace is the open loop's pacer: it places each arrival in the backlog when
// it falls due, and when the backlog is full drops every arrival due so far
// in one step (so no rate, however high, makes it spin per arrival). It
// returns at the end of the schedule, at the iteration bound, when the load
// is stopped or on ctx's end (Ctrl-C), whichever comes first.
func pace(ctx context.Context, e *workload.Env, pl loadPlan, st *ExecStats, queue chan<- int64, drop func(due, n int64)) {
	// An arrival due at 0 would read as "no schedule" (Actor.Intended 0):
	// the schedule starts 1 ns after the run's clock does at the earliest.
	base := max(e.Rec.Now(), 1)
	// last is the number of arrivals the schedule holds before the limit.
	last := int64(math.MaxInt64)
	if pl.limit > 0 {
		last = pl.profile.Arrivals(pl.limit - 1)
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	<-timer.C
	var clock *preciseClock
	if pl.precise {
		if c, err := newPreciseClock(); err == nil {
			clock = c
			defer c.Close()
		}
	}
	sleep := func(d time.Duration) bool {
		timer.Reset(d)
		select {
		case <-ctx.Done():
			return false
		case <-timer.C:
			return true
		}
	}
	for n := int64(0); n < last && ctx.Err() == nil && !e.Stopping(); {
		at, ok := pl.profile.ArrivalTime(n)
		if !ok {
			return
		}
		due := base + int64(at)
		now := e.Rec.Now()
		if wait := time.Duration(due - now); wait > 0 {
			switch {
			case clock == nil:
				if !sleep(wait) {
					return
				}
			case wait > preciseSpan: // Go's timer for the most, the precise clock for the rest
				if !sleep(wait - preciseSpan) {
					return
				}
			default:
				if clock.sleep(wait) != nil {
					clock = nil // Go's timers from now on
				}
			}
			continue
		}
		if len(queue) < cap(queue) {
			if !claim(st, pl.w.Iterations) {
				return
			}
			if time.Duration(now-due) > lateAfter {
				st.PacerLate.Add(1)
			}
			queue <- due // only the pacer sends: room cannot vanish
			st.Arrivals.Add(1)
			if d := int64(len(queue)); d > st.PeakBacklog.Load() {
				st.PeakBacklog.Store(d)
			}
			n++
			continue
		}
		// Backlog full: every arrival due by now is dropped, in one step.
		m := min(max(pl.profile.Arrivals(time.Duration(now-base)), n+1), last)
		lastDue := due
		if t, ok := pl.profile.ArrivalTime(m - 1); ok {
			lastDue = max(base+int64(t), due)
		}
		drop(lastDue, m-n)
		st.Dropped.Add(m - n)
		st.Arrivals.Add(m - n)
		n = m
		if !sleep(roomWait) {
			return
		}
	}
}

// recordMissed puts the arrivals the loop could not serve into the
// corrected histogram, each with the latency it had reached at end.
func recordMissed(e *workload.Env, miss *missed, end int64) {
	if miss.total == 0 || e.Rec.Metrics == nil {
		return
	}
	kind := e.FirstKind()
	miss.each(end, func(latency, count int64) {
		e.Rec.Metrics.RecordMissed(e.Name, kind, latency, count)
	})
}
