package runner

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/blob"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// BenchmarkHarnessVsPlainLoop measures what the harness costs: the same
// read / If-Match write loop against one Azurite, at the same concurrency,
// once as a bare loop of azblob calls and once through the harness (actors,
// classification, retries, history file, HDR metrics). The two alternate in
// slices of 3 s so both see the same machine; the ratio is reported.
//
//	go test -run x -bench HarnessVsPlain -benchtime 3x ./runner/
func BenchmarkHarnessVsPlainLoop(b *testing.B) {
	const actors, nkeys = 16, 16
	const slice = 3 * time.Second
	ctx := context.Background()
	dir := b.TempDir()
	sc, err := scenarios.Parse("bench.yaml", []byte(`
name: bench
duration: 1h
workloads:
  - {name: counter, kind: blob.etag-counter, actors: 16, keys: 16}
`))
	if err != nil {
		b.Fatal(err)
	}
	t, err := target.Open(ctx, sc.Target, target.Options{WorkDir: dir, MaxConns: actors * 2})
	if err != nil {
		b.Fatal(err)
	}
	defer t.Close()
	rec, err := workload.NewRecorder(filepath.Join(dir, HistoryFile), time.Now(), reports.NewMetrics(reports.MetricsOptions{}))
	if err != nil {
		b.Fatal(err)
	}
	defer rec.Close()
	env := workload.NewEnv(sc.Workloads[0], sc, rec, t, "bench")
	wl := &blob.EtagCounter{}
	if err := wl.Setup(ctx, env); err != nil {
		b.Fatal(err)
	}
	var plainOps, harnessOps int64
	var plainTime, harnessTime, plainCPU, harnessCPU time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		plain := func() {
			c := cpuTime()
			n, d := plainLoop(ctx, wl.B, actors, nkeys, slice)
			plainOps, plainTime, plainCPU = plainOps+n, plainTime+d, plainCPU+cpuTime()-c
		}
		harness := func() {
			c := cpuTime()
			n, d := harnessLoop(ctx, env, wl, actors, slice)
			harnessOps, harnessTime, harnessCPU = harnessOps+n, harnessTime+d, harnessCPU+cpuTime()-c
		}
		if i%2 == 0 { // alternate the order so warm-up and drift favour neither
			plain()
			harness()
		} else {
			harness()
			plain()
		}
	}
	b.StopTimer()
	p := float64(plainOps) / plainTime.Seconds()
	h := float64(harnessOps) / harnessTime.Seconds()
	b.ReportMetric(p, "plain-calls/s")
	b.ReportMetric(h, "harness-calls/s")
	b.ReportMetric(h/p, "harness/plain")
	// Azurite (one Node thread) bounds both rates, so the client's own cost
	// shows in its CPU time per call, not in the rate.
	pc := float64(plainCPU.Microseconds()) / float64(plainOps)
	hc := float64(harnessCPU.Microseconds()) / float64(harnessOps)
	b.ReportMetric(pc, "plain-cpu-µs/call")
	b.ReportMetric(hc, "harness-cpu-µs/call")
	b.ReportMetric(hc/pc, "cpu-harness/plain")
}

// cpuTime is the user+system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// plainLoop is the bare azblob loop (bareLoop) and how long it took.
func plainLoop(ctx context.Context, bl *blob.Blobs, actors, nkeys int, d time.Duration) (int64, time.Duration) {
	var lost atomic.Int64
	start := time.Now()
	n := bareLoop(ctx, bl, actors, nkeys, d, &lost, false)
	return n, time.Since(start)
}

// harnessLoop runs the same workload through the closed-loop executor.
func harnessLoop(ctx context.Context, env *workload.Env, wl workload.Workload, actors int, d time.Duration) (int64, time.Duration) {
	before := env.Rec.Count()
	env.Stop.Store(false)
	var st ExecStats
	pl := loadPlan{w: scenarios.Workload{Actors: actors}, profile: NewProfile(float64(actors), nil, d), limit: d}
	start := time.Now()
	timer := time.AfterFunc(d, func() { env.Stop.Store(true) })
	defer timer.Stop()
	runClosed(ctx, env, wl, pl, &st)
	return int64(env.Rec.Count() - before), time.Since(start)
}
