package runner

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// sleeper is a workload whose every iteration is one call taking d, and
// which tracks how many actors are inside a call at once.
type sleeper struct {
	d            time.Duration
	inside, peak atomic.Int64
	mu           sync.Mutex
	first        int64 // peak concurrency seen in the first 100 ms
	start        time.Time
}

func (s *sleeper) Setup(context.Context, *workload.Env) error { return nil }
func (s *sleeper) Final(context.Context, *workload.Env) error { return nil }
func (s *sleeper) Iterate(ctx context.Context, a *workload.Actor) {
	a.Do(ctx, workload.Call{Kind: "sleep", Key: "k"}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		n := s.inside.Add(1)
		defer s.inside.Add(-1)
		for p := s.peak.Load(); n > p && !s.peak.CompareAndSwap(p, n); p = s.peak.Load() {
		}
		s.mu.Lock()
		if time.Since(s.start) < 100*time.Millisecond && n > s.first {
			s.first = n
		}
		s.mu.Unlock()
		select {
		case <-time.After(s.d):
		case <-ctx.Done():
			return checks.Input{}, "", ctx.Err()
		}
		return checks.Input{}, "", nil
	})
}

func testEnv(t *testing.T) (*workload.Env, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "h.jsonl")
	rec, err := workload.NewRecorder(path, time.Now(), reports.NewMetrics(reports.MetricsOptions{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rec.Close() })
	e := &workload.Env{Name: "w", Keys: 1, Timeout: time.Second, Retry: scenarios.Retry{MaxAttempts: 1}, Rec: rec, Seed: 1}
	return e, path
}

func readOps(t *testing.T, e *workload.Env, path string) []checks.Op {
	t.Helper()
	if err := e.Rec.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ops []checks.Op
	if err := checks.ReadHistory(f, func(op *checks.Op) error { ops = append(ops, *op); return nil }); err != nil {
		t.Fatal(err)
	}
	return ops
}

// TestClosedLoopHonoursIterationBound runs in a synctest bubble: virtual
// time, so every actor is inside its 1 ms call at once however slowly a
// busy machine starts their goroutines.
func TestClosedLoopHonoursIterationBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, path := testEnv(t)
		var st ExecStats
		w := &sleeper{d: time.Millisecond, start: time.Now()}
		pl := loadPlan{w: scenarios.Workload{Actors: 8, Iterations: 100}, profile: NewProfile(8, nil, 0)}
		runClosed(context.Background(), e, w, pl, &st)
		ops := readOps(t, e, path)
		if len(ops) != 100 || st.Iterations.Load() != 100 {
			t.Fatalf("%d ops, %d iterations; want exactly 100", len(ops), st.Iterations.Load())
		}
		for _, op := range ops {
			if op.Intended != op.Call {
				t.Fatalf("closed loop: intended %d != call %d: corrected and uncorrected latency must be equal", op.Intended, op.Call)
			}
		}
		if w.peak.Load() != 8 {
			t.Errorf("peak concurrency %d, want 8 actors", w.peak.Load())
		}
	})
}

// TestClosedLoopRampsActors runs in a synctest bubble: the ramp follows
// virtual time, so what it decides does not depend on the machine's speed.
func TestClosedLoopRampsActors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, _ := testEnv(t)
		var st ExecStats
		w := &sleeper{d: 5 * time.Millisecond, start: time.Now()}
		stages := []scenarios.Stage{{Duration: 300 * time.Millisecond, Target: 6}, {Duration: 300 * time.Millisecond, Target: 6}}
		pl := loadPlan{w: scenarios.Workload{Actors: 1, Stages: stages}, profile: NewProfile(1, stages, 0)}
		stop := time.AfterFunc(600*time.Millisecond, func() { e.Stop.Store(true) })
		defer stop.Stop()
		runClosed(context.Background(), e, w, pl, &st)
		// The ramp reaches 2.67 actors at 100 ms; all 6 at once would mean no ramp.
		if w.first > 3 {
			t.Errorf("%d actors busy in the first 100 ms of a ramp from 1 to 6 over 300 ms", w.first)
		}
		if w.peak.Load() != 6 {
			t.Errorf("peak %d actors, want the ramp's 6", w.peak.Load())
		}
	})
}

func readHistoryFile(t *testing.T, path string, fn func(*checks.Op)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := checks.ReadHistory(f, func(op *checks.Op) error { fn(op); return nil }); err != nil {
		t.Fatal(err)
	}
}
