package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/runner/matrix"
	scstage "github.com/stormcheck/stormcheck/runner/stage"
	"github.com/stormcheck/stormcheck/runner/targettest"
	"github.com/stormcheck/stormcheck/runner/workload"
)

// everyKind is a scenario with a workload of every kind, each under its
// own names (targettest.EveryKind).
func everyKind() (scenario string, n int, blockCommit string) {
	kinds := targettest.HTTPKinds(workload.Kinds())
	w, names := targettest.EveryKind(kinds)
	return "name: every-kind\nduration: 2m\ntimeout: 2s\ntarget: {kind: connection-string}\n" + w, len(kinds), names["blob.block-commit"]
}

// TestFrozenTargetBoundsTheBinary runs the built binary on every workload
// kind against a target it freezes (SIGSTOP), on one Azurite:
//
//   - with --unreachable-after 1s and no Ctrl-C, it exits 3 with the
//     cleanup bounded at 10 s (as its log says), without lease releases;
//   - with three SIGINTs, the second ends the stopping stage (the lease
//     releases waiting on the frozen target) and the cleanup starts, the
//     third stops the cleanup, exit 130.
//
// The code acts on each press at once and each stage has its deadline;
// the wall clock, which a loaded machine stretches, is held only to a hang
// detector (hangAfter, from runner's test of the same).
//
// The decisions themselves (which calls started after which press) are
// asserted from the history in runner's TestFrozenTargetEveryKind.
func TestFrozenTargetBoundsTheBinary(t *testing.T) {
	inst, c := startWrongTarget(t)
	sc, n, blockCommit := everyKind()
	loadIsOn := func(r *wrongRun) {
		for i := 0; i < n; i++ {
			r.await(fmt.Sprintf("w%d:", i))
		}
	}
	await := func(r *wrongRun, s string, since time.Time, within time.Duration) {
		t.Helper()
		r.await(s)
		if d := time.Since(since); d > within {
			t.Errorf("%q came %v after the press: it hung (the code acts at once)", s, d)
		} else {
			t.Logf("%q came %v after the press", s, d.Round(time.Millisecond))
		}
	}

	t.Run("unreachable", func(t *testing.T) {
		r := startWrongRunOn(t, inst, c, sc, filepath.Join(t.TempDir(), "out"), "", "--unreachable-after", "1s")
		defer r.azurite(syscall.SIGCONT)
		loadIsOn(r)
		r.azurite(syscall.SIGSTOP)
		frozen := time.Now()
		bound := time.Second + scstage.CleanupAfterAbort
		waitKnown(r, bound+hangAfter, exitHarness, blockCommit) // a hang detector: the bound is the code's, in the log
		if !strings.Contains(r.stderr.String(), "at most "+scstage.CleanupAfterAbort.String()) {
			t.Errorf("the cleanup after an unreachable target did not take the %v bound:\n%s", scstage.CleanupAfterAbort, r.stderr.String())
		}
		t.Logf("exited %v after the freeze (bound %v)", time.Since(frozen).Round(time.Millisecond), bound)
		if strings.Contains(r.stderr.String(), "load stopping:") {
			t.Errorf("lease releases were sent to a target declared unreachable:\n%s", r.stderr.String())
		}
		r.historyReadable(false)
	})

	t.Run("three presses", func(t *testing.T) {
		r := startWrongRunOn(t, inst, c, sc, filepath.Join(t.TempDir(), "out"), "", "--unreachable-after", "10m")
		defer r.azurite(syscall.SIGCONT)
		loadIsOn(r)
		r.azurite(syscall.SIGSTOP)
		r.signal(syscall.SIGINT)
		r.await("load stopping: the lease releases still to send get at most 5s")
		r.signal(syscall.SIGINT)
		second := time.Now()
		await(r, "interrupted again: cutting the lease releases still pending", second, hangAfter)
		await(r, "load stopped: lease releases cut short (interrupted again)", second, hangAfter)
		await(r, "cleanup: deleting the run's resources", second, hangAfter)
		r.signal(syscall.SIGINT)
		third := time.Now()
		waitKnown(r, 2*time.Minute, exitInterrupted, blockCommit)
		if d := time.Since(third); d > hangAfter {
			t.Errorf("exited %v after the third press: it hung\n%s", d, r.stderr.String())
		}
		if s := r.summary(); !s.Interrupted || !strings.Contains(s.CleanupError, "third interrupt") {
			t.Errorf("summary: interrupted %v, cleanup error %q", s.Interrupted, s.CleanupError)
		}
		r.historyReadable(false)
	})

	// conform: the first press stops the rules, the second the cleanup
	// after them (which waits on the frozen target for at most 10 s).
	t.Run("conform, two presses", func(t *testing.T) {
		defer func() { _ = syscall.Kill(-inst.PID, syscall.SIGCONT) }()
		cmd := exec.Command(buildBinary(t), "conform", "--target", "connection-string", "--tags", "blob,lease,expired", "--out", filepath.Join(t.TempDir(), "out"))
		cmd.Env = append(os.Environ(), "AZURE_STORAGE_CONNECTION_STRING="+inst.ConnectionString())
		stdout, stderr := &syncBuffer{}, &syncBuffer{}
		cmd.Stdout, cmd.Stderr = stdout, stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill() })
		waitForStderr(t, cmd, stderr, "results in")
		time.Sleep(2 * time.Second) // into the rules (they wait 15 s for leases to expire)
		if err := syscall.Kill(-inst.PID, syscall.SIGSTOP); err != nil {
			t.Fatal(err)
		}
		_ = cmd.Process.Signal(syscall.SIGINT)
		waitForStderr(t, cmd, stderr, "stopping the rules; their cleanup follows, for at most 10s (Ctrl-C again to stop it)")
		time.Sleep(time.Second) // the rules return; the cleanup waits on the frozen target
		_ = cmd.Process.Signal(syscall.SIGINT)
		second := time.Now()
		_ = cmd.Wait()
		if d := time.Since(second); d > hangAfter {
			t.Errorf("exited %v after the second press: it hung\n%s", d, stderr.String())
		}
		if code := cmd.ProcessState.ExitCode(); code != exitInterrupted || !strings.Contains(stderr.String(), "interrupted again: stopping the cleanup") {
			t.Errorf("exit %d, want %d saying the cleanup stops\nstderr:\n%s", code, exitInterrupted, stderr.String())
		}
	})
}

// hangAfter is how long past its bound a frozen-target run may take before
// it is called hung.
const hangAfter = time.Minute

// waitKnown is r.wait, but a run whose only violations are Azurite's known
// torn read of block-commit (a true violation, found with or without
// faults: the README's findings, the fault matrix's known cell) may exit 1
// instead of want: a violation wins over every other exit code.
func waitKnown(r *wrongRun, bound time.Duration, want int, blockCommit string) {
	r.t.Helper()
	known := ""
	for _, m := range matrix.CoreScenarios {
		if m.Name == "block-commit" {
			known = m.Known
		}
	}
	r.wait(bound, -1)
	code := r.cmd.ProcessState.ExitCode()
	if code == want {
		return
	}
	s, err := reports.ReadSummary(filepath.Join(r.dir, runner.SummaryFile))
	if code != exitViolation || err != nil {
		r.t.Fatalf("exit %d, want %d (summary: %v)\nstderr:\n%s", code, want, err, r.stderr.String())
	}
	for _, c := range s.Checks {
		if c.Verdict != checks.Fail {
			continue
		}
		ok := c.Workload == blockCommit && len(c.Violations) > 0 && c.Total == len(c.Violations)
		for _, v := range c.Violations {
			ok = ok && strings.Contains(v.Message, known)
		}
		if !ok {
			r.t.Fatalf("exit 1: %s of %s failed: %s\nstdout:\n%s", c.Check, c.Workload, c.Summary, r.stdout.String())
		}
	}
	r.t.Logf("exit 1 for block-commit's known %q, else %d", known, want)
}
