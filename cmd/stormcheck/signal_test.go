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
)

// TestCtrlCStillWritesResults builds the binary, runs the quickstart, sends
// it SIGINT mid-load as Ctrl-C would, and checks it stops cleanly: exit
// code 130, the final reads and checks done, everything written.
func TestCtrlCStillWritesResults(t *testing.T) {
	tmp := t.TempDir()
	bin := buildBinary(t)
	dir := filepath.Join(tmp, "out")
	cmd := exec.Command(bin, "run", "--out", dir, "--duration", "2m", "../../scenarios/examples/quickstart.yaml")
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Minute)         // a deadline (a first use installs Azurite), not a speed
	for !strings.Contains(stderr.String(), "counter:") { // the load is on: a progress line was printed
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("no progress line:\n%s", stderr.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
	_ = cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	code := cmd.ProcessState.ExitCode()
	if code != exitInterrupted {
		t.Fatalf("exit %d (%v), want %d\nstdout:\n%s\nstderr:\n%s", code, err, exitInterrupted, stdout.String(), stderr.String())
	}
	s, err := reports.ReadSummary(filepath.Join(dir, "summary.json"))
	if err != nil || !s.Interrupted || s.ExitCode != exitInterrupted {
		t.Fatalf("summary: %v interrupted=%v exit=%d", err, s != nil && s.Interrupted, s.ExitCode)
	}
	// Ctrl-C stopped the load before its 2 minutes: no load op started
	// after that (what the executor decided; how long stopping took
	// depends on the machine).
	err = checks.ReadHistoryFile(filepath.Join(dir, runner.HistoryFile), func(op *checks.Op) error {
		if !op.IsHarness() && op.Call >= int64(s.LoadStart+2*time.Minute) {
			return fmt.Errorf("load op #%d started at +%v, after the interrupted load's end", op.Seq, time.Duration(op.Call))
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}
	for _, r := range s.Checks {
		if r.Verdict != "pass" {
			t.Errorf("%s after Ctrl-C: %s %s", r.Check, r.Verdict, r.Summary)
		}
	}
	if fi, err := os.Stat(filepath.Join(dir, runner.HistoryFile)); err != nil || fi.Size() == 0 {
		t.Errorf("history: %v", err)
	}
	if !strings.Contains(strings.ToLower(stdout.String()), "interrupted") {
		t.Errorf("report does not say it was interrupted:\n%s", stdout.String())
	}
}
