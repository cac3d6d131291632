package runner

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/runtest"
	"github.com/stormcheck/stormcheck/runner/stage"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/targettest"
	"github.com/stormcheck/stormcheck/runner/workload"
)

// everyKindScenario runs every workload kind side by side, each under its
// own names, so one frozen target tests them all at once.
func everyKindScenario() (string, []string) {
	kinds := targettest.HTTPKinds(workload.Kinds())
	w, _ := targettest.EveryKind(kinds)
	return "name: every-kind\nduration: 2m\ntimeout: 2s\nunreachable_after: 1s\ntarget: {kind: connection-string}\n" + w, kinds
}

// timedLog is a run's Log that notes when each line was written.
type timedLog struct {
	mu    sync.Mutex
	lines []string
	at    []time.Time
}

func (l *timedLog) Write(p []byte) (int, error) {
	now := time.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range strings.Split(strings.TrimRight(string(p), "\n"), "\n") {
		l.lines, l.at = append(l.lines, s), append(l.at, now)
	}
	return len(p), nil
}

// first is when the first line holding s was written (zero: none yet).
func (l *timedLog) first(s string) time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, line := range l.lines {
		if strings.Contains(line, s) {
			return l.at[i]
		}
	}
	return time.Time{}
}

func (l *timedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// await waits (a deadline, not a speed) for a line holding s.
func (l *timedLog) await(t *testing.T, s string) time.Time {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if at := l.first(s); !at.IsZero() {
			return at
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the log:\n%s", s, l.String())
		}
	}
}

// loadIsOn reports, from a run's progress, whether every workload has
// done a few iterations.
func loadIsOn(p Progress, n int) bool {
	for _, w := range p.Workloads {
		if w.Iterations < 3 {
			return false
		}
	}
	return len(p.Workloads) == n
}

// TestFrozenTargetEveryKind freezes the target (SIGSTOP) under every
// workload kind at once, twice on one Azurite:
//
//   - no Ctrl-C: the run ends within unreachable_after (1 s) plus the
//     cleanup's 10 s (the stage's bound from the log; the wall clock only
//     to a hang detector), and no call of
//     any workload starts once the target is declared unreachable (no
//     lease release either);
//   - three Ctrl-Cs: after the first only lease releases start (in the
//     stopping stage), after the second nothing starts and the releases
//     waiting on the frozen target are cut; the third stops the cleanup
//     and the run returns (the wall clock held only to a hang detector).
//
// What is asserted is what the code decided: the recorded calls' start
// times against the moment of the press (or of the ERROR line).
func TestFrozenTargetEveryKind(t *testing.T) {
	ctx, inst := runtest.StartAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	_ = ctx
	thaw := func() { _ = syscall.Kill(-inst.PID, syscall.SIGCONT) }
	t.Cleanup(thaw) // never leave a stopped process behind
	freeze := func() time.Time {
		if err := syscall.Kill(-inst.PID, syscall.SIGSTOP); err != nil {
			t.Fatalf("SIGSTOP: %v", err)
		}
		return time.Now()
	}
	src, kinds := everyKindScenario()

	t.Run("unreachable", func(t *testing.T) {
		defer thaw()
		dir := filepath.Join(t.TempDir(), "results")
		log := &timedLog{}
		var once sync.Once
		var frozeAt time.Time
		sum, err := Run(context.Background(), runtest.Parse(t, src), Options{
			ResultsDir: dir, Log: log, Target: target.Options{ConnectionString: inst.ConnectionString()},
			ProgressEvery: 100 * time.Millisecond,
			Progress: func(p Progress) {
				if loadIsOn(p, len(kinds)) {
					once.Do(func() { frozeAt = freeze() })
				}
			},
		})
		ended := time.Now()
		var ue *target.UnreachableError
		if frozeAt.IsZero() || !errors.As(err, &ue) {
			t.Fatalf("froze at %v; run error %v, want the target unreachable\nlog:\n%s", frozeAt, err, log.String())
		}
		// The bound is what the code decides (the watch's 1 s and the
		// cleanup stage's deadline, named in the log); the wall clock is
		// held only to a hang detector, as a busy machine stretches it.
		bound := 1*time.Second + stage.CleanupAfterAbort
		if !strings.Contains(log.String(), "at most "+stage.CleanupAfterAbort.String()) {
			t.Errorf("the cleanup after an unreachable target did not take the %v bound:\n%s", stage.CleanupAfterAbort, log.String())
		}
		if took := ended.Sub(frozeAt); took > bound+hangAfter {
			t.Errorf("the run ended %v after the freeze; its bound is %v (unreachable_after + cleanup): it hung\n%s", took, bound, log.String())
		} else {
			t.Logf("the run ended %v after the freeze (bound %v)", took.Round(time.Millisecond), bound)
		}
		declared := log.first("ERROR: target ")
		if strings.Contains(log.String(), "load stopping:") {
			t.Errorf("a stopping stage began for a target declared unreachable:\n%s", log.String())
		}
		after := callsAfter(t, dir, sum, declared)
		for i, k := range kinds {
			if ops := after[fmt.Sprintf("w%d", i)]; len(ops) > 0 {
				t.Errorf("%s: %d call(s) started after the target was declared unreachable, e.g. %s", k, len(ops), ops[0].String())
			}
		}
	})

	t.Run("three presses", func(t *testing.T) {
		defer thaw()
		dir := filepath.Join(t.TempDir(), "results")
		log := &timedLog{}
		load, press1 := context.WithCancel(context.Background())
		abort, press2 := context.WithCancel(context.Background())
		abandon, press3 := context.WithCancel(context.Background())
		defer press1()
		defer press2()
		defer press3()
		on := make(chan struct{})
		var once sync.Once
		stages := make(chan Stage, 8)
		type result struct {
			sum *reports.Summary
			err error
			at  time.Time
		}
		done := make(chan result, 1)
		go func() {
			sum, err := Run(load, runtest.Parse(t, src), Options{
				ResultsDir: dir, Log: log, Target: target.Options{ConnectionString: inst.ConnectionString()},
				UnreachableAfter: 10 * time.Minute, Abort: abort, Abandon: abandon, ProgressEvery: 100 * time.Millisecond,
				Progress: func(p Progress) {
					if loadIsOn(p, len(kinds)) {
						once.Do(func() { close(on) })
					}
				},
				Stage: func(s Stage) { stages <- s },
			})
			done <- result{sum, err, time.Now()}
		}()
		select {
		case <-on:
		case r := <-done:
			t.Fatalf("the run ended before every workload ran: %v\n%s", r.err, log.String())
		}
		freeze()
		press1()
		at1 := time.Now()
		log.await(t, "load stopping: the lease releases still to send get at most 5s")
		time.Sleep(2 * time.Second) // the releases wait on the frozen target (well within the stage's 5 s)
		press2()
		at2 := time.Now()
		var stopped time.Time // the load returned: the stopping stage is over
		for st := range stages {
			if st == StageFinalReads {
				stopped = time.Now()
			}
			if st == StageCleanup {
				break
			}
		}
		log.await(t, "cleanup: deleting the run's resources")
		press3()
		at3 := time.Now()
		var r result
		select {
		case r = <-done:
		case <-time.After(2 * time.Minute): // a deadline, not a speed
			t.Fatalf("the run goes on 2 minutes after the third press:\n%s", log.String())
		}
		if !r.sum.Interrupted {
			t.Errorf("summary not marked interrupted (error %v)", r.err)
		}
		for _, w := range []struct {
			what     string
			from, to time.Time
		}{{"the stopping stage's end after the second press", at2, stopped}, {"the run's end after the third press", at3, r.at}} {
			if d := w.to.Sub(w.from); d > hangAfter {
				t.Errorf("%s: %v: it hung (the code acts at once; what it cut is asserted from the history and the log)", w.what, d)
			}
		}
		out := log.String()
		for _, want := range []string{"load stopped: lease releases cut short (interrupted again)", "final reads skipped (interrupted twice)",
			"cleanup: deleting the run's resources (sc" + r.sum.RunID + "-*, at most 10s, interrupted twice", "stopped by a third interrupt"} {
			if !strings.Contains(out, want) {
				t.Errorf("log lacks %q:\n%s", want, out)
			}
		}
		afterFirst := callsAfter(t, dir, r.sum, at1)
		afterSecond := callsAfter(t, dir, r.sum, at2)
		releases := 0
		for i, k := range kinds {
			w := fmt.Sprintf("w%d", i)
			for _, op := range afterFirst[w] {
				if op.Kind != "blob.lease.release" {
					t.Errorf("%s: %s started after the first press (only lease releases may)", k, op.String())
					break
				}
				releases++
			}
			if ops := afterSecond[w]; len(ops) > 0 {
				t.Errorf("%s: %d call(s) started after the second press, e.g. %s", k, len(ops), ops[0].String())
			}
		}
		if releases == 0 {
			t.Errorf("no lease release started between the first and the second press: the stopping stage was not exercised\n%s", out)
		}
		t.Logf("%d lease release(s) in the stopping stage; stage over %v after the second press; run over %v after the third",
			releases, stopped.Sub(at2).Round(time.Millisecond), r.at.Sub(at3).Round(time.Millisecond))
	})
}

// hangAfter is how long past its bound a frozen-target run may take
// before it is called hung: the bounds themselves are the code's decisions,
// asserted from the log and the history; a loaded machine with the race
// detector stretches the wall clock by many seconds.
const hangAfter = time.Minute

// callsAfter reads a run's whole history and returns, per workload, the
// calls that started at or after t.
func callsAfter(t *testing.T, dir string, sum *reports.Summary, at time.Time) map[string][]checks.Op {
	t.Helper()
	out := map[string][]checks.Op{}
	for _, op := range readWholeHistory(t, filepath.Join(dir, HistoryFile)) {
		if !sum.Started.Add(time.Duration(op.Call)).Before(at) {
			out[op.Workload] = append(out[op.Workload], op)
		}
	}
	return out
}
