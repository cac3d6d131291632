package runner

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/cleanup"
	"github.com/stormcheck/stormcheck/runner/runtest"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/targettest"
	"github.com/stormcheck/stormcheck/runner/throttle"
)

// syncLog is a Log the test reads while the run writes.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

const deadTargetScenario = `
name: dies
duration: 2m
timeout: 2s
unreachable_after: 2s
target: {kind: connection-string}
workloads:
  - {name: counter, kind: blob.etag-counter, actors: 4}
`

// runUntilOps runs sc against inst and calls hit once the load has
// recorded some operations (then the target is hit).
func runUntilOps(t *testing.T, inst *azurite.Instance, dir string, log *syncLog, hit func()) (*reports.Summary, error) {
	t.Helper()
	var once sync.Once
	return Run(context.Background(), runtest.Parse(t, deadTargetScenario), Options{
		ResultsDir: dir, Log: log, Target: target.Options{ConnectionString: inst.ConnectionString()},
		ProgressEvery: 100 * time.Millisecond,
		Progress: func(p Progress) {
			if len(p.Workloads) > 0 && p.Workloads[0].Iterations > 20 {
				once.Do(hit)
			}
		},
	})
}

// readWholeHistory reads every record of a history and fails on a torn one.
func readWholeHistory(t *testing.T, path string) []checks.Op {
	t.Helper()
	var ops []checks.Op
	readHistoryFile(t, path, func(op *checks.Op) { ops = append(ops, *op) })
	return ops
}

// TestKilledTargetStopsTheRun kills the target mid-load (SIGKILL to the
// Azurite process). The actors back off instead of hammering the closed
// port, the run stops once nothing answered for unreachable_after, says
// which endpoint since when on an ERROR line, and still writes everything.
func TestKilledTargetStopsTheRun(t *testing.T) {
	t.Parallel() // each has its own Azurite; their waits overlap
	_, inst := runtest.StartAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	dir := filepath.Join(t.TempDir(), "results")
	log := &syncLog{}
	sum, err := runUntilOps(t, inst, dir, log, func() {
		if err := syscall.Kill(-inst.PID, syscall.SIGKILL); err != nil {
			t.Errorf("kill: %v", err)
		}
	})
	var ue *target.UnreachableError
	if !errors.As(err, &ue) {
		t.Fatalf("run error %v, want the target unreachable\nlog:\n%s", err, log.String())
	}
	host := target.HostOf(inst.BlobURL)
	if !strings.Contains(log.String(), "ERROR: target "+host+" unreachable: no answer at all since ") {
		t.Errorf("no ERROR line naming %s and since when:\n%s", host, log.String())
	}
	if sum.Elapsed >= 2*time.Minute {
		t.Errorf("the run went on for its whole duration (%v) against a dead target", sum.Elapsed)
	}
	// Every actor backed off: after its first refused attempt, its
	// attempts in a row without an answer waited at least retry.base/2,
	// doubling, so a few seconds of silence allow a handful per actor (not
	// thousands). A slower machine only makes fewer.
	ops := readWholeHistory(t, filepath.Join(dir, HistoryFile))
	refused := map[int]int{}
	for _, op := range ops {
		if op.Actor >= 0 && op.Out.Status == 0 && strings.Contains(op.Out.Err, "refused") {
			refused[op.Actor]++
		}
	}
	if len(refused) == 0 {
		t.Fatalf("no refused attempt recorded: the kill did not happen during the load\n%s", log.String())
	}
	for a, n := range refused {
		if n > 40 {
			t.Errorf("actor %d tried the dead target %d times", a, n)
		}
	}
	back, rerr := reports.ReadSummary(filepath.Join(dir, SummaryFile))
	if rerr != nil || !strings.Contains(back.Error, "unreachable") {
		t.Fatalf("summary: %v, error %q", rerr, back.Error)
	}
	for _, r := range sum.Checks {
		if r.Verdict == checks.Fail {
			t.Errorf("%s on a dead target: %s", r.Check, r.Summary)
		}
	}
}

// TestFrozenTargetIsBoundedAndCleanedLater freezes the target (SIGSTOP)
// mid-load: the run stops at unreachable_after, skips the final reads,
// tries the cleanup for its short bound while saying it waits, and names
// what it left. Once the target is thawed, CleanupRuns (stormcheck
// cleanup --run) deletes exactly that, and look-alikes survive.
func TestFrozenTargetIsBoundedAndCleanedLater(t *testing.T) {
	t.Parallel() // each has its own Azurite; their waits overlap
	ctx, inst := runtest.StartAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	tg := runtest.OpenTarget(ctx, t, inst)
	everything := plantLookAlikes(ctx, t, inst)
	thaw := func() { _ = syscall.Kill(-inst.PID, syscall.SIGCONT) }
	t.Cleanup(thaw) // never leave a stopped process behind
	dir := filepath.Join(t.TempDir(), "results")
	log := &syncLog{}
	sum, err := runUntilOps(t, inst, dir, log, func() {
		if err := syscall.Kill(-inst.PID, syscall.SIGSTOP); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	thaw()
	var ue *target.UnreachableError
	if !errors.As(err, &ue) {
		t.Fatalf("run error %v, want the target unreachable\nlog:\n%s", err, log.String())
	}
	out := log.String()
	for _, want := range []string{"ERROR: target ", "final reads skipped", "cleanup: deleting the run's resources (sc" + sum.RunID + "-*, at most 10s, the target stopped answering",
		"cleanup: still waiting for the target after 5s (gives up after 10s)", "cleanup: gave up after 10s"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	if sum.CleanupError == "" || sum.RunID == "" {
		t.Fatalf("the summary does not say what was left: run %q, %q", sum.RunID, sum.CleanupError)
	}
	// Bounded: the 2 s silence, the in-flight attempts' 2 s timeout, the
	// 10 s cleanup bound; generously, well under the 2 minute duration.
	if sum.Elapsed >= time.Minute {
		t.Errorf("took %v", sum.Elapsed)
	}
	readWholeHistory(t, filepath.Join(dir, HistoryFile))

	left := everything()
	if !slices.Contains(left, "container sc"+sum.RunID) {
		t.Fatalf("the frozen target kept nothing of run %s? %v", sum.RunID, left)
	}
	if _, err := cleanup.Runs(ctx, tg, cleanup.Options{RunID: sum.RunID}); err != nil {
		t.Fatal(err)
	}
	if got, want := everything(), targettest.SortedLookAlikes(); !slices.Equal(got, want) {
		t.Errorf("after stormcheck cleanup --run %s the target holds\n%v\nwant only the look-alikes\n%v", sum.RunID, got, want)
	}
}

// TestKilledTargetBehindTheEmulationProxy: with the throttling emulation
// in front, a killed Azurite does not refuse connections: the proxy
// answers 502 for it. Those answers are marked as the proxy's own, so the
// run still sees a silent target, backs off and stops with exit 3's error.
func TestKilledTargetBehindTheEmulationProxy(t *testing.T) {
	t.Parallel()
	ctx, inst := runtest.StartAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	p, err := throttle.Start(ctx, throttle.Options{Blob: inst.BlobURL, Queue: inst.QueueURL, Table: inst.TableURL})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	cs := "DefaultEndpointsProtocol=http;AccountName=" + inst.Account + ";AccountKey=" + inst.Key +
		";BlobEndpoint=" + p.BlobURL + ";QueueEndpoint=" + p.QueueURL + ";TableEndpoint=" + p.TableURL + ";"
	dir := filepath.Join(t.TempDir(), "results")
	log := &syncLog{}
	var once sync.Once
	_, err = Run(context.Background(), runtest.Parse(t, deadTargetScenario), Options{
		ResultsDir: dir, Log: log, Target: target.Options{ConnectionString: cs}, ProgressEvery: 100 * time.Millisecond,
		Progress: func(pr Progress) {
			if len(pr.Workloads) > 0 && pr.Workloads[0].Iterations > 20 {
				once.Do(func() { _ = syscall.Kill(-inst.PID, syscall.SIGKILL) })
			}
		},
	})
	var ue *target.UnreachableError
	if !errors.As(err, &ue) {
		t.Fatalf("run error %v, want the target unreachable\nlog:\n%s", err, log.String())
	}
	proxied := map[int]int{}
	for _, op := range readWholeHistory(t, filepath.Join(dir, HistoryFile)) {
		if op.Actor >= 0 && op.Out.Status == 502 {
			proxied[op.Actor]++
		}
	}
	if len(proxied) == 0 {
		t.Fatalf("no 502 from the proxy recorded\n%s", log.String())
	}
	for a, n := range proxied {
		if n > 40 {
			t.Errorf("actor %d tried the dead target %d times through the proxy", a, n)
		}
	}
}
