package main

import (
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/reports"
)

// TestHangUpStillWritesResults: a closed terminal or ssh session (SIGHUP)
// is an interrupt like Ctrl-C: exit 130, summary.json written and marked
// interrupted, Azurite's data deleted with it. It used to end the process
// at once: no summary, no report, Azurite's data-* left in the folder.
func TestHangUpStillWritesResults(t *testing.T) {
	bin := buildBinary(t)
	// A test process started under nohup ignores SIGHUP, and an ignored
	// signal stays ignored in the child, which then (rightly) keeps
	// ignoring it. A signal this process catches is reset to its default
	// in the child at exec: catch it for the test's length.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	dir := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(bin, "run", "--out", dir, "--duration", "2m", "--progress", "lines", "../../scenarios/examples/quickstart.yaml")
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitForStderr(t, cmd, stderr, "stormcheck: load:")
	_ = cmd.Process.Signal(syscall.SIGHUP)
	_ = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted {
		t.Fatalf("exit %d (%v), want %d\nstderr:\n%s", code, cmd.ProcessState, exitInterrupted, stderr.String())
	}
	s, err := reports.ReadSummary(filepath.Join(dir, "summary.json"))
	if err != nil || !s.Interrupted || s.ExitCode != exitInterrupted {
		t.Fatalf("summary: %v (%+v)", err, s)
	}
	assertOnlyResults(t, dir)
}

// TestClosedStdoutStillWritesResults: `stormcheck run ... | head` closes
// the pipe the report goes to. The run goes on to its end and writes its
// results (the Go runtime used to end it with SIGPIPE at the first write:
// exit 141, no summary, Azurite's data left behind).
func TestClosedStdoutStillWritesResults(t *testing.T) {
	bin := buildBinary(t)
	dir := filepath.Join(t.TempDir(), "out")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // every write to stdout and stderr now fails with EPIPE
	cmd := exec.Command(bin, "run", "--out", dir, "--duration", "2s", "--progress", "lines", "../../scenarios/examples/quickstart.yaml")
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	_ = cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		t.Fatalf("killed by %v", ws.Signal())
	}
	if code := cmd.ProcessState.ExitCode(); code != exitOK {
		t.Fatalf("exit %d, want %d", code, exitOK)
	}
	s, err := reports.ReadSummary(filepath.Join(dir, "summary.json"))
	if err != nil || s.ExitCode != exitOK || len(s.Checks) == 0 {
		t.Fatalf("summary: %v (%+v)", err, s)
	}
	assertOnlyResults(t, dir)
}

// assertOnlyResults: the folder holds the run's results and report, and
// nothing of the managed Azurite's workspace (data-*).
func assertOnlyResults(t *testing.T, dir string) {
	t.Helper()
	names := entries(t, dir)
	for _, n := range names {
		if strings.HasPrefix(n, "data-") {
			t.Errorf("Azurite's workspace %s left in the results folder", n)
		}
	}
	for _, want := range []string{"summary.json", "report.html", "history.jsonl.zst"} {
		if !contains(names, want) {
			t.Errorf("%s not written; the folder holds %v", want, names)
		}
	}
}

// waitForStderr waits until the started cmd has written want on stderr,
// within a deadline (a first use installs Azurite), not a speed.
func waitForStderr(t *testing.T, cmd *exec.Cmd, stderr *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Minute)
	for !strings.Contains(stderr.String(), want) {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("no %q on stderr:\n%s", want, stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}
