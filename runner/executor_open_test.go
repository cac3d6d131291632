package runner

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// stallable is a workload whose every iteration is one call taking d, except
// that calls made while the target is stalled (between from and to since
// start) return only when the stall ends: a paused target in virtual time.
type stallable struct {
	d        time.Duration
	start    time.Time
	from, to time.Duration
}

func (s *stallable) Setup(context.Context, *workload.Env) error { return nil }
func (s *stallable) Final(context.Context, *workload.Env) error { return nil }
func (s *stallable) Iterate(ctx context.Context, a *workload.Actor) {
	a.Do(ctx, workload.Call{Kind: "blob.get", Key: "k"}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		wait := s.d
		if at := time.Since(s.start); at >= s.from && at < s.to {
			wait = s.to - at + s.d
		}
		select {
		case <-time.After(wait):
			return checks.Input{}, "", nil
		case <-ctx.Done():
			return checks.Input{}, "", ctx.Err()
		}
	})
}

// openRun runs one open loop in the synctest bubble the way load does (the
// load stops at the limit) and returns its stats, the recorded ops and the
// workload's figures as the report reads them.
func openRun(t *testing.T, ctx context.Context, w workload.Workload, pl loadPlan) (*ExecStats, []checks.Op, reports.WorkloadSummary) {
	t.Helper()
	e, path := testEnv(t)
	var st ExecStats
	if pl.limit > 0 {
		stop := time.AfterFunc(pl.limit, func() { e.Stop.Store(true) })
		defer stop.Stop()
	}
	runOpen(ctx, e, w, pl, &st)
	ops := readOps(t, e, path)
	ws, _ := e.Rec.Metrics.Summary(pl.limit)
	if len(ws) != 1 {
		t.Fatalf("%d workloads in the figures, want 1", len(ws))
	}
	return &st, ops, ws[0]
}

func openPlan(rate float64, actors int, d time.Duration) loadPlan {
	return loadPlan{w: scenarios.Workload{Actors: actors, Rate: rate, Executor: scenarios.ExecutorOpen}, profile: NewProfile(rate, nil, d), limit: d}
}

// TestOpenLoopServesBacklogLate offers 200 arrivals/s for 1 s to one actor
// that serves 50/s: no arrival is lost. Those served wait in the backlog
// and their corrected latency counts the wait; those still waiting at the
// end are in the corrected histogram with the wait they had reached.
func TestOpenLoopServesBacklogLate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &stallable{d: 20 * time.Millisecond, start: time.Now()}
		st, ops, ws := openRun(t, context.Background(), w, openPlan(200, 1, time.Second))
		if st.Arrivals.Load() != 200 {
			t.Fatalf("%d arrivals, want the 200 scheduled", st.Arrivals.Load())
		}
		served := int64(len(ops))
		if st.Dropped.Load() != 0 || served+st.Unserved.Load() != 200 {
			t.Fatalf("%d served + %d unserved + %d dropped; the backlog of %d holds them all", served, st.Unserved.Load(), st.Dropped.Load(), st.Backlog)
		}
		if served < 45 || served > 51 || st.Late.Load() < served-2 {
			t.Errorf("%d served, %d late: one actor at 20 ms serves 50 in 1 s, nearly all late", served, st.Late.Load())
		}
		last := ops[len(ops)-1]
		if waited := time.Duration(last.Call - last.Intended); waited < 700*time.Millisecond {
			t.Errorf("the last arrival served waited %v; arrivals queue at 4 times the service rate", waited)
		}
		o := ws.Ops[0]
		if o.Missed != st.Unserved.Load() || o.Corrected.Count != served+o.Missed || o.Latency.Count != served {
			t.Errorf("missed %d corrected count %d latency count %d; want %d unserved in the corrected figures only", o.Missed, o.Corrected.Count, o.Latency.Count, st.Unserved.Load())
		}
		// The arrival due at 0.25 s was still waiting at 1 s: the median
		// corrected latency is several hundred ms, service time is 20 ms.
		if o.Corrected.P50 < 300 || o.Latency.P99 > 25 {
			t.Errorf("corrected p50 %.1f ms, uncorrected p99 %.1f ms", o.Corrected.P50, o.Latency.P99)
		}
	})
}

// TestOpenLoopDropsPastBacklogAndRecordsThem stalls the target for 2 s
// under 100 arrivals/s with a backlog of 20: arrivals past the bound are
// dropped, counted, and in the corrected histogram with at least the time
// they waited by the end, so the corrected p99 shows the stall.
func TestOpenLoopDropsPastBacklogAndRecordsThem(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &stallable{d: 5 * time.Millisecond, start: time.Now(), from: time.Second, to: 3 * time.Second}
		pl := openPlan(100, 4, 4*time.Second)
		pl.backlog = 20
		st, ops, ws := openRun(t, context.Background(), w, pl)
		if st.Arrivals.Load() != 400 {
			t.Fatalf("%d arrivals, want 400", st.Arrivals.Load())
		}
		// 2 s of stall at 100/s: 4 in the actors, 20 in the backlog, the
		// rest (about 176) dropped.
		if d := st.Dropped.Load(); d < 150 || d > 200 {
			t.Errorf("%d dropped during a 2 s stall at 100/s with 4 actors and a backlog of 20", d)
		}
		served := int64(len(ops))
		if served+st.Dropped.Load()+st.Unserved.Load() != 400 {
			t.Errorf("%d served + %d dropped + %d unserved != 400 arrivals", served, st.Dropped.Load(), st.Unserved.Load())
		}
		o := ws.Ops[0]
		if o.Missed != st.Dropped.Load()+st.Unserved.Load() {
			t.Errorf("%d missed in the histogram, %d dropped + %d unserved", o.Missed, st.Dropped.Load(), st.Unserved.Load())
		}
		// The dropped arrivals were due from 1.24 s to 3 s and the load
		// ended at 4 s: each had waited at least 1 s; the corrected p99
		// is at least that, the service time 5 ms.
		if o.Corrected.P99 < 1000 || o.Latency.P50 > 10 {
			t.Errorf("corrected p99 %.1f ms, uncorrected p50 %.1f ms: the stall must show in the corrected figures", o.Corrected.P99, o.Latency.P50)
		}
		ws.Executor, ws.Actors = "open", 4
		ws.Arrivals, ws.Late, ws.Dropped, ws.Unserved, ws.Backlog = st.Arrivals.Load(), st.Late.Load(), st.Dropped.Load(), st.Unserved.Load(), st.Backlog
		lim := reports.LimitedBy(ws, nil, 0.1)
		if len(lim) != 1 || !strings.Contains(lim[0], "the target: its latency grew") {
			t.Errorf("limited by %q; want the target named", lim)
		}
	})
}

// TestOpenLoopStopsOnInterruptAtAnyRate: a rate no target can take (1e12
// arrivals/s) and a Ctrl-C at 5 s of a 60 s load. The pacer counts what it
// cannot place in one step instead of looping per arrival, and every
// executor returns within a second of the interrupt.
func TestOpenLoopStopsOnInterruptAtAnyRate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		start := time.Now()
		time.AfterFunc(5*time.Second, cancel)
		w := &stallable{d: 50 * time.Millisecond, start: start}
		st, ops, _ := openRun(t, ctx, w, openPlan(1e12, 8, 60*time.Second))
		if took := time.Since(start); took > 6*time.Second {
			t.Fatalf("the open loop returned %v after its start, %v after the interrupt", took, took-5*time.Second)
		}
		if st.Dropped.Load() < 1e12 || len(ops) == 0 {
			t.Errorf("%d dropped, %d served: at 1e12/s nearly every arrival of 5 s is dropped", st.Dropped.Load(), len(ops))
		}
		if st.Arrivals.Load() != st.Dropped.Load()+st.Unserved.Load()+int64(len(ops)) {
			t.Errorf("%d arrivals != %d dropped + %d unserved + %d served", st.Arrivals.Load(), st.Dropped.Load(), st.Unserved.Load(), len(ops))
		}
	})
}

// TestClosedLoopStopsOnInterrupt: a ramping closed loop (some actors idle,
// some in a call) returns within a second of Ctrl-C.
func TestClosedLoopStopsOnInterrupt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, _ := testEnv(t)
		ctx, cancel := context.WithCancel(context.Background())
		start := time.Now()
		time.AfterFunc(5*time.Second, cancel)
		w := &stallable{d: 400 * time.Millisecond, start: start, from: 4 * time.Second, to: time.Hour}
		stages := []scenarios.Stage{{Duration: time.Minute, Target: 50}}
		var st ExecStats
		runClosed(ctx, e, w, loadPlan{w: scenarios.Workload{Actors: 1, Stages: stages}, profile: NewProfile(1, stages, 0), limit: time.Minute}, &st)
		if took := time.Since(start); took > 6*time.Second {
			t.Fatalf("the closed loop returned %v after the interrupt", took-5*time.Second)
		}
		if err := e.Rec.Close(); err != nil {
			t.Fatal(err)
		}
	})
}

// TestOpenLoopKeepsRateWhenActorsSuffice: 100/s for 1 s to 8 actors of
// 2 ms each: every arrival served on time.
func TestOpenLoopKeepsRateWhenActorsSuffice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &stallable{d: 2 * time.Millisecond, start: time.Now()}
		st, ops, _ := openRun(t, context.Background(), w, openPlan(100, 8, time.Second))
		if len(ops) != 100 || st.Arrivals.Load() != 100 || st.Late.Load() != 0 || st.Dropped.Load()+st.Unserved.Load() != 0 {
			t.Errorf("%d ops of %d arrivals, %d late, %d dropped, %d unserved; want 100 on time", len(ops), st.Arrivals.Load(), st.Late.Load(), st.Dropped.Load(), st.Unserved.Load())
		}
	})
}

// cancelling is a workload that stops the load itself between an arrival
// and its call: the iteration's call is never sent.
type cancelling struct {
	stallable
	cancel func()
	after  int
	n      int
}

func (c *cancelling) Iterate(ctx context.Context, a *workload.Actor) {
	c.n++
	if c.n == c.after {
		c.cancel()
	}
	c.stallable.Iterate(ctx, a)
}

// TestOpenLoopCountsAnArrivalStoppedBeforeItsCall: an arrival an actor has
// taken but whose call is not sent, because the load stopped in between, is
// unserved (in the count and the corrected histogram), never lost.
func TestOpenLoopCountsAnArrivalStoppedBeforeItsCall(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		w := &cancelling{stallable: stallable{d: time.Millisecond, start: time.Now()}, cancel: cancel, after: 5}
		st, ops, ws := openRun(t, ctx, w, openPlan(100, 1, 10*time.Second))
		if len(ops) != 4 || st.Unserved.Load() < 1 {
			t.Fatalf("%d served, %d unserved: the fifth arrival's call was never sent", len(ops), st.Unserved.Load())
		}
		if st.Arrivals.Load() != st.Dropped.Load()+st.Unserved.Load()+int64(len(ops)) {
			t.Errorf("%d arrivals != %d dropped + %d unserved + %d served", st.Arrivals.Load(), st.Dropped.Load(), st.Unserved.Load(), len(ops))
		}
		if o := ws.Ops[0]; o.Missed != st.Dropped.Load()+st.Unserved.Load() {
			t.Errorf("%d missed in the histogram, %d dropped + %d unserved", o.Missed, st.Dropped.Load(), st.Unserved.Load())
		}
	})
}
