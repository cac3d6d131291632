package runner

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// BenchmarkScheduleLag measures the open loop's own lateness: Get Blob at
// 2,000 arrivals/s (blob.lww, reads only, 16 actors) against the fast
// loopback Blob endpoint of blobfixture_test.go (a child process), through
// the executor, the actors, the history and the metrics as a run does. It
// runs two pacers side by side in rotating 2 s slices: "timer" waits for
// each arrival on Go's timers alone, "precise" (what a run uses on Linux)
// waits the last stretch on a timerfd through the network poller. It
// reports each one's schedule lag (intended start to call) p50 and p99 in
// µs and the ratios precise/timer.
//
//	go test -run '^$' -bench ScheduleLag -benchtime 3x ./runner/
//
// With STORMCHECK_FIXTURE_CPU=1 and the benchmark pinned to another CPU
// (taskset -c 0 ... -cpu 1) the client has a core of its own.
func BenchmarkScheduleLag(b *testing.B) {
	if !precisePacer {
		b.Skip("no precise pacer on this platform")
	}
	const rate, actors = 2000, 16
	const slice = 2 * time.Second
	ctx := context.Background()
	dir := b.TempDir()
	endpoint := startFixture(b)
	cs := "DefaultEndpointsProtocol=http;AccountName=" + fixtureAccount + ";AccountKey=" + fixtureKey + ";BlobEndpoint=" + endpoint + ";"
	sc, err := scenarios.Parse("lag.yaml", []byte(`
name: lag
duration: 1h
workloads:
  - {name: timer, kind: blob.lww, executor: open, rate: 2000, actors: 16, keys: 8, params: {read_fraction: 1}}
  - {name: precise, kind: blob.lww, executor: open, rate: 2000, actors: 16, keys: 8, params: {read_fraction: 1}}
`))
	if err != nil {
		b.Fatal(err)
	}
	t, err := target.Open(ctx, sc.Target, target.Options{ConnectionString: cs, MaxConns: 2*actors + 16})
	if err != nil {
		b.Fatal(err)
	}
	defer t.Close()
	start := time.Now()
	m := reports.NewMetrics(reports.MetricsOptions{HlogDir: filepath.Join(dir, HlogDir), Start: start})
	rec, err := workload.NewRecorder(filepath.Join(dir, HistoryFile), start, m)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	defer rec.Close()
	type pacer struct {
		env     *workload.Env
		wl      workload.Workload
		precise bool
	}
	var pacers []pacer
	for _, w := range sc.Workloads {
		f, _ := workload.Lookup(w.Kind)
		wl, err := f(w, t)
		if err != nil {
			b.Fatal(err)
		}
		env := workload.NewEnv(w, sc, rec, t, "lag")
		if err := wl.Setup(ctx, env); err != nil {
			b.Fatal(err)
		}
		pacers = append(pacers, pacer{env: env, wl: wl, precise: w.Name == "precise"})
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j := range pacers {
			p := pacers[(i+j)%len(pacers)]
			pl := loadPlan{w: scenarios.Workload{Actors: actors, Rate: rate, Executor: scenarios.ExecutorOpen}, profile: NewProfile(rate, nil, slice), limit: slice, precise: p.precise}
			var st ExecStats
			runOpen(ctx, p.env, p.wl, pl, &st)
			if n := st.Dropped.Load() + st.Unserved.Load(); n > st.Arrivals.Load()/100 {
				b.Fatalf("%s: %d of %d arrivals not served: the client could not keep 2,000/s", p.env.Name, n, st.Arrivals.Load())
			}
		}
	}
	b.StopTimer()
	ws, _ := m.Summary(time.Since(start))
	lag := map[string]*reports.ScheduleLag{}
	for _, w := range ws {
		for _, o := range w.Ops {
			if bad := o.Count - o.Outcomes["ok"]; bad > 0 {
				b.Fatalf("%s: %d of %d %s calls failed: %v", w.Name, bad, o.Count, o.Op, o.Outcomes)
			}
		}
		if w.ScheduleLag == nil {
			b.Fatalf("%s: no schedule lag recorded", w.Name)
		}
		lag[w.Name] = w.ScheduleLag
		b.ReportMetric(w.ScheduleLag.P50*1e3, w.Name+"-lag-p50-µs")
		b.ReportMetric(w.ScheduleLag.P99*1e3, w.Name+"-lag-p99-µs")
	}
	if lag["timer"].P50 > 0 && lag["timer"].P99 > 0 {
		b.ReportMetric(lag["precise"].P50/lag["timer"].P50, "lag-p50-precise/timer")
		b.ReportMetric(lag["precise"].P99/lag["timer"].P99, "lag-p99-precise/timer")
	}
}
