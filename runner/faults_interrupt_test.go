package runner

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/runtest"
)

// cancelOn is a run log that cancels the run (the first Ctrl-C) once a
// line contains trigger, and keeps every line.
type cancelOn struct {
	mu      sync.Mutex
	b       strings.Builder
	trigger string
	cancel  context.CancelFunc
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.b.Write(p)
	if strings.Contains(c.b.String(), c.trigger) {
		c.cancel()
	}
	return len(p), nil
}

func (c *cancelOn) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}

// A first Ctrl-C while a target fault holds Azurite down does not wait for
// its restart (up to 2 minutes): Azurite is not restarted, the final reads
// and the cleanup are skipped (the managed Azurite's data goes with it),
// and every result is still written. Judged on what the run did (its log,
// Azurite's log, the files), not on how long it took.
func TestInterruptDuringTargetFaultSkipsTheRestart(t *testing.T) {
	for _, kind := range []string{"target.stop", "target.crash"} {
		t.Run(kind, func(t *testing.T) {
			sc := runtest.Parse(t, `
name: interrupted-down
seed: 15
duration: 2m
timeout: 1s
unreachable_after: 2m
retry: {max_attempts: 3, base: 50ms, max: 500ms}
workloads:
  - {name: counter, kind: blob.etag-counter, actors: 2, keys: 1}
faults:
  - {kind: `+kind+`, name: down, at: 1s, for: 50s}
`)
			dir := filepath.Join(t.TempDir(), "results")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			log := &cancelOn{trigger: "fault down: on at +", cancel: cancel}
			sum, err := Run(ctx, sc, Options{ResultsDir: dir, Log: log})
			if err != nil && !strings.Contains(err.Error(), "context canceled") {
				t.Fatalf("run: %v\n%s", err, log.String())
			}
			if sum == nil || !sum.Interrupted {
				t.Fatalf("the run was not marked interrupted:\n%s", log.String())
			}
			for _, want := range []string{
				"fault down: not restarted: the run was interrupted while Azurite was down",
				"final reads skipped: Azurite is down (fault down stopped it and it was not restarted)",
				"cleanup: skipped, Azurite is down (fault down)",
			} {
				if !strings.Contains(log.String(), want) {
					t.Errorf("the run log lacks %q:\n%s", want, log.String())
				}
			}
			az, _ := os.ReadFile(filepath.Join(dir, AzuriteLog))
			if strings.Contains(string(az), "restarting on the same workspace") {
				t.Errorf("Azurite was restarted after the interrupt:\n%s", az)
			}
			if len(sum.Faults) != 1 || !strings.Contains(sum.Faults[0].Err, "not restarted") || sum.Faults[0].To <= sum.Faults[0].From {
				t.Errorf("fault window %+v", sum.Faults)
			}
			// Everything written; the history parses; nothing of Azurite left
			// (its data workspace is removed once its process is gone).
			for _, f := range []string{"summary.json", "report.html", HistoryFile} {
				if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
					t.Errorf("%s: %v", f, err)
				}
			}
			n := 0
			readHistoryFile(t, filepath.Join(dir, HistoryFile), func(*checks.Op) { n++ })
			if n == 0 {
				t.Error("the history holds no operation")
			}
			left, _ := filepath.Glob(filepath.Join(dir, "data-*"))
			if len(left) > 0 {
				t.Errorf("Azurite's workspace left behind: %v", left)
			}
		})
	}
}
