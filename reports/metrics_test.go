package reports_test

import (
	"fmt"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/reportstest"
)

func TestOutcomeIndexing(t *testing.T) {
	if len(checks.Outcomes) != reports.NumOutcomes {
		t.Fatalf("checks has %d outcomes, reports counts %d", len(checks.Outcomes), reports.NumOutcomes)
	}
	for i, o := range checks.Outcomes {
		if int(o) != i {
			t.Fatalf("outcome %v has index %d, want %d", o, o, i)
		}
	}
}

func TestRecordCountsOutcomesAndSeparatesHarness(t *testing.T) {
	tests := []struct {
		name      string
		ops       []*checks.Op
		want      map[string]reports.WorkloadProgress // by workload
		harnessOK int64
		harnessN  int64
	}{
		{
			name: "outcomes per workload",
			ops: []*checks.Op{
				reportstest.MkOp("counter", "blob.get", 0, checks.OK, 10, 1, 0),
				reportstest.MkOp("counter", "blob.put", 0, checks.OK, 12, 1, 0),
				reportstest.MkOp("counter", "blob.put", 1, checks.Conflict, 12, 1, 0),
				reportstest.MkOp("counter", "blob.put", 2, checks.Throttled, 12, 1, 0),
				reportstest.MkOp("counter", "blob.put", 3, checks.Error, 12, 1, 0),
				reportstest.MkOp("counter", "blob.put", 3, checks.Unknown, 14, 1, 0),
				reportstest.MkOp("create", "blob.create", 0, checks.OK, 10, 1, 0),
			},
			want: map[string]reports.WorkloadProgress{
				"counter": {Workload: "counter", Ops: 6, OK: 2, Conflicts: 1, Throttled: 1, Errors: 1, Unknown: 1},
				"create":  {Workload: "create", Ops: 1, OK: 1},
			},
		},
		{
			name: "harness ops kept apart",
			ops: []*checks.Op{
				reportstest.MkOp("counter", "blob.put", checks.ActorSetup, checks.OK, 1, 1, 0),
				reportstest.MkOp("counter", "blob.put", checks.ActorSetup, checks.Error, 1, 1, 0),
				reportstest.MkOp("counter", "blob.get", checks.ActorFinal, checks.OK, 900, 1, 0),
				reportstest.MkOp("counter", "blob.put", 0, checks.OK, 10, 1, 0),
			},
			want: map[string]reports.WorkloadProgress{
				"counter": {Workload: "counter", Ops: 1, OK: 1},
			},
			harnessOK: 2,
			harnessN:  3,
		},
		{
			name: "out-of-range outcome counts as unknown",
			ops: []*checks.Op{
				reportstest.MkOp("w", "blob.get", 0, checks.Outcome(42), 10, 1, 0),
			},
			want: map[string]reports.WorkloadProgress{
				"w": {Workload: "w", Ops: 1, Unknown: 1},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := reports.NewMetrics(reports.MetricsOptions{})
			for _, op := range tc.ops {
				m.Record(op)
			}
			got := m.ProgressAt(0)
			if len(got) != len(tc.want) {
				t.Fatalf("progress has %d workloads, want %d: %+v", len(got), len(tc.want), got)
			}
			for _, p := range got {
				if p != tc.want[p.Workload] {
					t.Errorf("progress %+v, want %+v", p, tc.want[p.Workload])
				}
			}
			h := m.HarnessProgressAt(0)
			if h.Ops != tc.harnessN || h.OK != tc.harnessOK {
				t.Errorf("harness %+v, want %d ops %d ok", h, tc.harnessN, tc.harnessOK)
			}
			ws, hs := m.Summary(time.Second)
			var load, harness int64
			for _, w := range ws {
				for _, o := range w.Ops {
					load += o.Count
				}
			}
			for _, o := range hs {
				harness += o.Count
			}
			if harness != tc.harnessN || load+harness != int64(len(tc.ops)) {
				t.Errorf("summary: %d load + %d harness ops, want %d harness of %d", load, harness, tc.harnessN, len(tc.ops))
			}
		})
	}
}

func TestPercentilesKnownDistributions(t *testing.T) {
	tests := []struct {
		name     string
		latMs    func(i int) float64 // i in 0..n-1
		lagMs    func(i int) float64
		n        int
		p50, p90 float64
		p99, max float64
		mean     float64
	}{
		{
			name:  "uniform 1..1000 ms",
			latMs: func(i int) float64 { return float64(i + 1) },
			lagMs: func(int) float64 { return 0 },
			n:     1000,
			p50:   500, p90: 900, p99: 990, max: 1000, mean: 500.5,
		},
		{
			name:  "constant 2.5 ms",
			latMs: func(int) float64 { return 2.5 },
			lagMs: func(int) float64 { return 0 },
			n:     100,
			p50:   2.5, p90: 2.5, p99: 2.5, max: 2.5, mean: 2.5,
		},
		{
			name:  "sub-millisecond 100..1000 µs",
			latMs: func(i int) float64 { return float64(i+1) / 10 },
			lagMs: func(int) float64 { return 0 },
			n:     10,
			p50:   0.5, p90: 0.9, p99: 1.0, max: 1.0, mean: 0.55,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := reports.NewMetrics(reports.MetricsOptions{})
			for i := 0; i < tc.n; i++ {
				m.Record(reportstest.MkOp("w", "blob.get", 0, checks.OK, float64(i), tc.latMs(i), tc.lagMs(i)))
			}
			ws, _ := m.Summary(10 * time.Second)
			p := ws[0].Ops[0].Latency
			near := func(what string, got, want float64) {
				t.Helper()
				// 3 significant digits: within 0.1%, plus 1µs rounding.
				if math.Abs(got-want) > want*0.001+0.001 {
					t.Errorf("%s = %v, want %v", what, got, want)
				}
			}
			near("p50", p.P50, tc.p50)
			near("p90", p.P90, tc.p90)
			near("p99", p.P99, tc.p99)
			near("max", p.Max, tc.max)
			near("mean", p.Mean, tc.mean)
			if p.Count != int64(tc.n) {
				t.Errorf("count %d, want %d", p.Count, tc.n)
			}
			if p.P999 > p.Max || p.P99 > p.P999 {
				t.Errorf("percentiles out of order: %+v", p)
			}
		})
	}
}

func TestCorrectedAtLeastUncorrected(t *testing.T) {
	m := reports.NewMetrics(reports.MetricsOptions{})
	// An open loop falling behind: op i was due at i ms but called at 2i ms.
	for i := 0; i < 1000; i++ {
		op := reportstest.MkOp("open", "blob.get", 0, checks.OK, float64(2*i), 5, float64(i))
		m.Record(op)
	}
	// A caller bug (intended after call) must not make corrected smaller.
	m.Record(reportstest.MkOp("open", "blob.get", 0, checks.OK, 10, 5, -3))
	ws, _ := m.Summary(0)
	o := ws[0].Ops[0]
	l, c := o.Latency, o.Corrected
	for _, pair := range [][2]float64{{l.P50, c.P50}, {l.P90, c.P90}, {l.P99, c.P99}, {l.P999, c.P999}, {l.Max, c.Max}, {l.Mean, c.Mean}} {
		if pair[1] < pair[0] {
			t.Errorf("corrected %v < uncorrected %v (%+v vs %+v)", pair[1], pair[0], c, l)
		}
	}
	if math.Abs(l.P99-5) > 0.01 {
		t.Errorf("uncorrected p99 %v, want 5", l.P99)
	}
	if math.Abs(c.Max-(999+5)) > 0.01 {
		t.Errorf("corrected max %v, want 1004", c.Max)
	}
}

func TestProgressRateAndPerSecond(t *testing.T) {
	m := reports.NewMetrics(reports.MetricsOptions{Workloads: []string{"zeta", "idle", "alpha"}})
	// zeta: 10 ops in second 0, 30 in second 1 (20 ok, 10 conflict), 5 in second 2.
	for i := 0; i < 10; i++ {
		m.Record(reportstest.MkOp("zeta", "blob.put", 0, checks.OK, 100+float64(i), 1, 0))
	}
	for i := 0; i < 30; i++ {
		out := checks.OK
		if i%3 == 0 {
			out = checks.Conflict
		}
		m.Record(reportstest.MkOp("zeta", "blob.put", i, out, 1100+float64(i), 1, 0))
	}
	for i := 0; i < 5; i++ {
		m.Record(reportstest.MkOp("zeta", "blob.get", 0, checks.OK, 2100, 1, 0))
	}
	m.Record(reportstest.MkOp("alpha", "blob.get", 0, checks.OK, 2100, 1, 0))

	tests := []struct {
		elapsed time.Duration
		rate    float64
	}{
		{500 * time.Millisecond, 0},
		{1500 * time.Millisecond, 10},
		{2999 * time.Millisecond, 30},
		{3 * time.Second, 5},
		{10 * time.Second, 0},
	}
	for _, tc := range tests {
		p := m.ProgressAt(tc.elapsed)
		if len(p) != 3 || p[0].Workload != "zeta" || p[1].Workload != "idle" || p[2].Workload != "alpha" {
			t.Fatalf("workload order: %+v", p)
		}
		if p[0].Rate != tc.rate || p[0].Ops != 45 {
			t.Errorf("at %v: %+v, want rate %v", tc.elapsed, p[0], tc.rate)
		}
		if p[1].Ops != 0 {
			t.Errorf("idle workload: %+v", p[1])
		}
	}
	ps := m.PerSecond("zeta", "blob.put")
	want := []reports.Counts{{10}, {20, 10}}
	if fmt.Sprint(ps) != fmt.Sprint(want) {
		t.Errorf("per second %v, want %v", ps, want)
	}
	if m.PerSecond("zeta", "nope") != nil {
		t.Errorf("unknown series has a per-second series")
	}
}

func TestConcurrentRecord(t *testing.T) {
	m := reports.NewMetrics(reports.MetricsOptions{HlogDir: t.TempDir()})
	const goroutines, each = 8, 2000
	workloads := []string{"a", "b"}
	kinds := []string{"blob.get", "blob.put", "blob.create"}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	go func() { // readers while writing
		for {
			select {
			case <-stop:
				return
			default:
				m.Progress()
				m.Summary(time.Second)
				m.HarnessProgress()
			}
		}
	}()
	for g := 0; g < goroutines; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				actor := g
				if i%100 == 0 {
					actor = checks.ActorSetup
				}
				m.Record(reportstest.MkOp(workloads[i%2], kinds[i%3], actor, checks.Outcome(i%5), float64(i), float64(i%50), 1))
			}
		}()
	}
	wg.Wait()
	close(stop)
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	var total reports.Counts
	for _, p := range m.ProgressAt(0) {
		total[checks.OK] += p.OK
		total[checks.Conflict] += p.Conflicts
		total[checks.Throttled] += p.Throttled
		total[checks.Error] += p.Errors
		total[checks.Unknown] += p.Unknown
	}
	h := m.HarnessProgressAt(0)
	if total.Total()+h.Ops != goroutines*each {
		t.Fatalf("recorded %d + %d harness, want %d", total.Total(), h.Ops, goroutines*each)
	}
	if h.Ops != goroutines*each/100 {
		t.Errorf("harness %d, want %d", h.Ops, goroutines*each/100)
	}
	for o, n := range total {
		if n == 0 {
			t.Errorf("outcome %v never counted", checks.Outcome(o))
		}
	}
}

// BenchmarkRecord measures Record from parallel goroutines over a few
// series, as a run with several workloads and ops would.
func BenchmarkRecord(b *testing.B) {
	for _, hlog := range []bool{false, true} {
		b.Run(fmt.Sprintf("hlog=%v", hlog), func(b *testing.B) {
			opts := reports.MetricsOptions{}
			if hlog {
				opts.HlogDir = b.TempDir()
			}
			m := reports.NewMetrics(opts)
			ops := make([]*checks.Op, 0, 6)
			for _, w := range []string{"counter", "create"} {
				for _, k := range []string{"blob.get", "blob.put", "blob.create"} {
					ops = append(ops, reportstest.MkOp(w, k, 0, checks.OK, 0, 3, 0))
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				var i int64
				local := make([]checks.Op, len(ops))
				for j := range ops {
					local[j] = *ops[j]
				}
				for pb.Next() {
					op := &local[i%int64(len(local))]
					// advance time so intervals complete as in a real run:
					// about 100k ops per simulated second per goroutine
					op.Call = i * 10_000
					op.Intended = op.Call
					op.Return = op.Call + int64(i%5000)*1000
					m.Record(op)
					i++
				}
			})
			b.StopTimer()
			if err := m.Close(); err != nil {
				b.Fatal(err)
			}
		})
	}
}
