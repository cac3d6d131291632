package runner

import (
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/workload"
)

// TestScheduleLagIsWhatTheLoopDecided: one actor of 20 ms under 200
// arrivals/s serves from the backlog, each arrival later than the last. The
// schedule lag recorded is, arrival by arrival, the call time the actor
// decided minus the intended start: its count, maximum and median are those
// of the recorded ops, and the report says lateness dominates.
func TestScheduleLagIsWhatTheLoopDecided(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &stallable{d: 20 * time.Millisecond, start: time.Now()}
		_, ops, ws := openRun(t, context.Background(), w, openPlan(200, 1, time.Second))
		l := ws.ScheduleLag
		if l == nil {
			t.Fatal("no schedule lag for an open loop")
		}
		lags := make([]int64, 0, len(ops))
		for _, op := range ops {
			lags = append(lags, op.Call-op.Intended)
		}
		slices.Sort(lags)
		if l.Count != int64(len(ops)) || l.Op != "blob.get" {
			t.Fatalf("lag over %d arrivals of %s, want the %d served of blob.get", l.Count, l.Op, len(ops))
		}
		if want := float64(lags[len(lags)-1]) / 1e6; l.Max != want {
			t.Errorf("lag max %v ms, the ops' largest call-intended is %v ms", l.Max, want)
		}
		// The histogram keeps 3 significant digits: its median is the ops'
		// to within 0.1 % (and a microsecond of rounding).
		med := float64(lags[(len(lags)-1)/2]) / 1e6
		if d := l.P50 - med; d < -0.002-med/1000 || d > 0.002+med/1000 {
			t.Errorf("lag p50 %v ms, the ops' median is %v ms", l.P50, med)
		}
		if l.P50 < 100 {
			t.Errorf("lag p50 %v ms: arrivals queue at 4 times the service rate", l.P50)
		}
		line := reports.ScheduleLagLine(ws)
		if !strings.Contains(line, "schedule lag p50/p99/max") || !strings.Contains(line, "lateness, not the target, dominates blob.get's corrected p50") {
			t.Errorf("report line %q; want the lag and lateness named as dominating", line)
		}
	})
}

// TestScheduleLagZeroWhenActorsSuffice: 100/s to 8 actors of 2 ms; the
// pacer hands each arrival over at its due time in virtual time, so every
// arrival's lag is 0 and the report does not blame lateness.
func TestScheduleLagZeroWhenActorsSuffice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &stallable{d: 2 * time.Millisecond, start: time.Now()}
		_, ops, ws := openRun(t, context.Background(), w, openPlan(100, 8, time.Second))
		l := ws.ScheduleLag
		if l == nil || l.Count != int64(len(ops)) || l.Count != 100 {
			t.Fatalf("lag %+v over %d ops; want 100 arrivals", l, len(ops))
		}
		for _, op := range ops {
			if op.Call != op.Intended {
				t.Fatalf("op %d called %d ns after its intended start", op.Seq, op.Call-op.Intended)
			}
		}
		if l.Max != 0 || l.P99 != 0 {
			t.Errorf("lag p99 %v max %v ms; every call was made at its due time", l.P99, l.Max)
		}
		if s := reports.LatenessDominates(ws); s != "" {
			t.Errorf("lateness named as dominating with no lag: %q", s)
		}
	})
}

// early is a workload that counts the calls its actors were handed before
// their intended start (a pacer that woke early).
type early struct {
	stallable
	n atomic.Int64
}

func (w *early) Iterate(ctx context.Context, a *workload.Actor) {
	if a.Intended > 0 && a.Env.Rec.Now() < a.Intended {
		w.n.Add(1)
	}
	w.stallable.Iterate(ctx, a)
}

// TestPrecisePacerNeverEarly runs the precise pacer (a timerfd for the last
// stretch before each arrival) in real time: every arrival of the schedule
// is placed, none is handed to an actor before its intended start, and each
// served one has its lag recorded.
func TestPrecisePacerNeverEarly(t *testing.T) {
	if !precisePacer {
		t.Skip("no precise pacer on this platform")
	}
	w := &early{stallable: stallable{d: 100 * time.Microsecond, start: time.Now()}}
	pl := openPlan(1000, 4, 300*time.Millisecond)
	pl.precise = true
	// Bounded by iterations, not by the clock: every one of the 300
	// arrivals is placed however slow the machine (a time limit stops the
	// pacer wherever it has got to, and a loaded machine is behind).
	pl.limit, pl.w.Iterations = 0, 300
	st, ops, ws := openRun(t, context.Background(), w, pl)
	if st.Arrivals.Load() != 300 || int64(len(ops))+st.Dropped.Load()+st.Unserved.Load() != 300 {
		t.Fatalf("%d arrivals, %d served, %d dropped, %d unserved; want the 300 scheduled", st.Arrivals.Load(), len(ops), st.Dropped.Load(), st.Unserved.Load())
	}
	if n := w.n.Load(); n != 0 {
		t.Errorf("%d arrivals handed to an actor before their intended start", n)
	}
	if ws.ScheduleLag == nil || ws.ScheduleLag.Count != int64(len(ops)) {
		t.Errorf("lag %+v; want one per served arrival (%d)", ws.ScheduleLag, len(ops))
	}
}
