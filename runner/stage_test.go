package runner

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/stage"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// frozen is an attempt against a target that never answers: it waits
// until its context ends.
func frozen(ctx context.Context, _ int) (checks.Input, string, error) {
	<-ctx.Done()
	return checks.Input{}, "", ctx.Err()
}

// retryingEnv is testEnv with the default policy's shape: 4 attempts of
// timeout each, unknown outcomes retried after a back-off up to max.
func retryingEnv(t *testing.T, timeout, base, max time.Duration) (*workload.Env, string) {
	e, path := testEnv(t)
	e.Timeout = timeout
	e.Retry = scenarios.Retry{MaxAttempts: 4, Base: base, Max: max}
	e.RetryOn[checks.Unknown] = true
	return e, path
}

// TestStageBoundsTheRetryPolicy: a call on a frozen target under the
// default policy (4 attempts of 10 s) made in a 5 s stage returns at the
// stage's deadline after one attempt, not after 40 s. Virtual time: what
// is asserted is what DoOut decided.
func TestStageBoundsTheRetryPolicy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, path := retryingEnv(t, 10*time.Second, time.Second, 10*time.Second)
		start := time.Now()
		st := stage.Begin("stopping the load", 5*time.Second, stage.Cut{Ctx: context.Background(), Why: nil})
		defer st.Cancel()
		op := e.Actor(0).Do(st.Ctx, workload.Call{Kind: "blob.lease.release", Key: "k"}, frozen)
		if took := time.Since(start); took != 5*time.Second {
			t.Errorf("the call took %v, want the stage's 5s", took)
		}
		if op.Outcome != checks.Unknown || op.Attempt != 1 {
			t.Errorf("outcome %v after %d attempts, want one unknown attempt", op.Outcome, op.Attempt)
		}
		if why := st.Why(); why != "stopping the load: gave up after 5s" {
			t.Errorf("the stage ended: %q", why)
		}
		if ops := readOps(t, e, path); len(ops) != 1 {
			t.Errorf("%d attempts recorded, want 1", len(ops))
		}
	})
}

// TestStageClampsAttemptsAndBackOff: with 1 s attempts and back-offs up to
// 1 s in a 2.5 s stage, no attempt starts at or after the deadline, and no
// back-off sleeps past it: the call returns by the deadline, at once when
// the next attempt could not start before it (it does not sleep until the
// deadline for nothing).
func TestStageClampsAttemptsAndBackOff(t *testing.T) {
	early := 0 // seeds whose back-off would have crossed the deadline
	for seed := int64(1); seed <= 20; seed++ {
		synctest.Test(t, func(t *testing.T) {
			e, path := retryingEnv(t, time.Second, time.Second, time.Second)
			e.Seed = seed
			bound := 2500 * time.Millisecond
			start := time.Now()
			st := stage.Begin("final reads", bound, stage.Cut{Ctx: context.Background(), Why: nil})
			defer st.Cancel()
			e.Actor(0).Do(st.Ctx, workload.Call{Kind: "blob.get", Key: "k"}, frozen)
			took := time.Since(start)
			if took > bound {
				t.Errorf("seed %d: returned after %v, past the stage's %v", seed, took, bound)
			}
			ops := readOps(t, e, path)
			for _, op := range ops {
				if time.Duration(op.Call) >= bound {
					t.Errorf("seed %d: attempt %d started at %v, at or past the deadline", seed, op.Attempt, time.Duration(op.Call))
				}
			}
			// Ended by the deadline within an attempt, or right after an
			// attempt whose back-off would have crossed it.
			switch end := time.Duration(ops[len(ops)-1].Return); {
			case end < bound:
				early++
				if took != end {
					t.Errorf("seed %d: the last attempt ended at %v, the call at %v: it slept towards the deadline with no attempt to follow", seed, end, took)
				}
			case took != bound:
				t.Errorf("seed %d: returned at %v, want the deadline %v", seed, took, bound)
			}
		})
	}
	if early == 0 {
		t.Error("no seed had a back-off cross the deadline: the case is not exercised")
	}
}

// TestPressCutsTheStage: the stage's interrupt cancels it in the same
// call: the attempt waiting on a frozen target ends at the press, nothing
// is retried, and the stage says why.
func TestPressCutsTheStage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, path := retryingEnv(t, 10*time.Second, time.Second, 10*time.Second)
		press, pressNow := context.WithCancel(context.Background())
		st := stage.Begin("stopping the load", time.Minute, stage.Cut{Ctx: press, Why: stage.ErrInterruptedAgain})
		defer st.Cancel()
		start := time.Now()
		time.AfterFunc(time.Second, pressNow)
		op := e.Actor(0).Do(st.Ctx, workload.Call{Kind: "blob.lease.release", Key: "k"}, frozen)
		if took := time.Since(start); took != time.Second {
			t.Errorf("the call ended %v after the start, want at the press (1s)", took)
		}
		if op.Attempt != 1 || st.Why() != "interrupted again" {
			t.Errorf("%d attempts, stage ended %q; want 1, interrupted again", op.Attempt, st.Why())
		}
		// A call asked for after the press is not sent, nor recorded.
		if op := e.Actor(1).Do(st.Ctx, workload.Call{Kind: "blob.lease.release", Key: "k"}, frozen); op.Outcome != checks.Error || op.Attempt != 0 {
			t.Errorf("after the press: %+v, want a call not sent", op)
		}
		if ops := readOps(t, e, path); len(ops) != 1 {
			t.Errorf("%d attempts recorded, want 1", len(ops))
		}
	})
}

// TestStoppingStage: a lease release asked for once the load stopped
// draws on the stopping stage (StoppingBound from its first use, however
// long the load ran), not on the load's context; after the target was
// declared unreachable, or once the stage ended, nothing is sent.
func TestStoppingStage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e, path := retryingEnv(t, 10*time.Second, time.Second, 10*time.Second)
		load, stopLoad := context.WithCancel(context.Background())
		trouble, troubleNow := context.WithCancelCause(context.Background())
		var lines []string
		s := &stage.Stopping{Cut: stage.Cut{Ctx: context.Background(), Why: stage.ErrInterruptedAgain}, More: []stage.Cut{{Ctx: trouble, Why: nil}},
			Logf: func(f string, a ...any) { lines = append(lines, f) }}
		e.StopStage = s.Context
		if got := e.AfterStop(load); got != load {
			t.Fatal("while the load runs, afterStop must be the load's context")
		}
		time.Sleep(time.Minute) // the load ran a while: the bound counts from the stop
		stopLoad()
		start := time.Now()
		op := e.Actor(0).Do(e.AfterStop(load), workload.Call{Kind: "blob.lease.release", Key: "k"}, frozen)
		if took := time.Since(start); took != stage.StoppingBound || op.Attempt != 1 {
			t.Errorf("release took %v in %d attempts, want %v in 1", took, op.Attempt, stage.StoppingBound)
		}
		s.End()
		if len(lines) != 2 {
			t.Errorf("the stage said %q, want its start and that it cut the releases", lines)
		}
		if op := e.Actor(1).Do(e.AfterStop(load), workload.Call{Kind: "blob.lease.release", Key: "k"}, frozen); op.Attempt != 0 {
			t.Errorf("a release after the stage ended was sent: %+v", op)
		}

		// Stopped by an unreachable target: no release at all.
		s2 := &stage.Stopping{Cut: stage.Cut{Ctx: context.Background(), Why: stage.ErrInterruptedAgain}, More: []stage.Cut{{Ctx: trouble, Why: nil}},
			Logf: func(f string, a ...any) { t.Errorf("the stage said %q for a target declared unreachable", f) }}
		e.StopStage = s2.Context
		troubleNow(errors.New("target unreachable"))
		if op := e.Actor(2).Do(e.AfterStop(load), workload.Call{Kind: "blob.lease.release", Key: "k"}, frozen); op.Attempt != 0 {
			t.Errorf("a release to an unreachable target was sent: %+v", op)
		}
		s2.End()
		if ops := readOps(t, e, path); len(ops) != 1 {
			t.Errorf("%d attempts recorded, want only the first release's", len(ops))
		}
	})
}

// TestNothingEscapesTheStages: no code of the runner or the command calls
// context.WithoutCancel, the way a call used to outlive every Ctrl-C; a
// call after the load draws on a stage (stage.go) instead.
func TestNothingEscapesTheStages(t *testing.T) {
	for _, root := range []string{".", "../cmd"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				return err
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "WithoutCancel" {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "context" {
						t.Errorf("%s: context.WithoutCancel: a call that outlives every interrupt; draw on a stage (stage.go)", path)
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
