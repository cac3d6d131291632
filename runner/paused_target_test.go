package runner

import (
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/blob"
	"github.com/stormcheck/stormcheck/runner/runtest"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// TestPausedTargetShowsInCorrectedLatency runs an open loop (40 arrivals/s
// of blob.etag-counter, 32 actors) against a managed Azurite and freezes
// the Azurite process on purpose (SIGSTOP, about 2 s, then SIGCONT) in the
// middle of the load. The arrivals keep their schedule, so those due while
// the target is frozen wait: the corrected p99 must be at least half the
// pause as the test recorded it (stop and cont times on the run's clock,
// not an assumption about speed), the uncorrected median must not be, and
// the report must name the target as the limit.
func TestPausedTargetShowsInCorrectedLatency(t *testing.T) {
	ctx, inst := runtest.StartAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	thaw := func() { _ = syscall.Kill(-inst.PID, syscall.SIGCONT) }
	t.Cleanup(thaw) // never leave a stopped process behind
	tg := runtest.OpenTarget(ctx, t, inst)
	sc, err := scenarios.Parse("paused.yaml", []byte(`
name: paused
duration: 6s
timeout: 20s
workloads:
  - {name: counter, kind: blob.etag-counter, executor: open, rate: 40, actors: 32, keys: 8}
`))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	start := time.Now()
	m := reports.NewMetrics(reports.MetricsOptions{Start: start, Workloads: []string{"counter"}})
	rec, err := workload.NewRecorder(filepath.Join(dir, HistoryFile), start, m)
	if err != nil {
		t.Fatal(err)
	}
	env := workload.NewEnv(sc.Workloads[0], sc, rec, tg, "paused")
	wl := &blob.EtagCounter{}
	if err := wl.Setup(ctx, env); err != nil {
		t.Fatal(err)
	}

	pl := planFor(sc.Workloads[0], sc)
	var stopAt, contAt int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // the pause, 2 s into the 6 s load
		defer wg.Done()
		time.Sleep(2 * time.Second)
		stopAt = rec.Now()
		if err := syscall.Kill(-inst.PID, syscall.SIGSTOP); err != nil {
			t.Errorf("SIGSTOP: %v", err)
			return
		}
		time.Sleep(2 * time.Second)
		thaw()
		contAt = rec.Now()
	}()
	r := &running{env: env, plan: pl}
	st := &r.stats
	stop := time.AfterFunc(pl.limit, func() { env.Stop.Store(true) })
	defer stop.Stop()
	runOpen(ctx, env, wl, pl, st)
	wg.Wait()
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	pause := time.Duration(contAt - stopAt)
	if pause <= 0 {
		t.Fatal("the pause did not happen")
	}

	// The schedule was kept: every arrival due in the 6 s was counted, and
	// the history holds calls scheduled while the target was frozen.
	if want := pl.profile.Arrivals(pl.limit - 1); st.Arrivals.Load() != want {
		t.Errorf("%d arrivals, the schedule holds %d", st.Arrivals.Load(), want)
	}
	var duringPause int
	readHistoryFile(t, filepath.Join(dir, HistoryFile), func(op *checks.Op) {
		if op.Kind == "blob.get" && op.Intended >= stopAt && op.Intended < contAt {
			duringPause++
		}
	})
	if duringPause == 0 && st.Dropped.Load()+st.Unserved.Load() == 0 {
		t.Fatal("no arrival was due while the target was frozen")
	}

	ws, _ := m.Summary(time.Since(start))
	w := ws[0]
	fillWorkload(&w, r)
	var get reports.OpSummary
	for _, o := range w.Ops {
		if o.Op == "blob.get" {
			get = o
		}
	}
	pauseMs := float64(pause) / 1e6
	if get.Corrected.P99 < pauseMs/2 {
		t.Errorf("corrected p99 %.1f ms for a %.0f ms pause: the stall is hidden", get.Corrected.P99, pauseMs)
	}
	if get.Latency.P50 >= pauseMs/2 {
		t.Errorf("uncorrected median %.1f ms: most calls did not meet the pause (it covered a third of the load)", get.Latency.P50)
	}
	limits := strings.Join(reports.LimitedBy(w, nil, 0), "; ")
	if !strings.Contains(limits, "the target: its latency grew while arrivals kept their schedule") {
		t.Errorf("limited by %q; want the target named", limits)
	}
	t.Logf("pause %.0f ms; blob.get corrected p99 %.1f ms, uncorrected p50 %.1f ms; %s; limited by %s", pauseMs, get.Corrected.P99, get.Latency.P50, reports.ArrivalsLine(w), limits)
}
