package metricsexport

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/scenarios"
)

// TestExportFromARunAgainstAzurite runs a short scenario against managed
// Azurite with both exporters on: Prometheus is scraped while the load runs
// and after it; the OTLP receiver gets the final export. The exported
// figures must be the run's own (summary.json's), not something close.
func TestExportFromARunAgainstAzurite(t *testing.T) {
	sc, err := scenarios.Parse("live.yaml", []byte(`
name: live
seed: 3
duration: 3m
workloads:
  - {name: counter, kind: blob.etag-counter, actors: 4, iterations: 60}
  - {name: create, kind: blob.create-once, actors: 2, iterations: 30}
  - {name: paced, kind: blob.etag-counter, executor: open, rate: 10, actors: 2, iterations: 25}
`))
	// The races are bounded by iterations, so they are lost however slow
	// the machine; the open loop's 25 arrivals at 10/s keep the load going
	// for 2.4 s however fast it is, so progress scrapes while it runs. The
	// 3 m duration is only a cap.
	if err != nil {
		t.Fatal(err)
	}
	prom, err := NewPrometheus("127.0.0.1:0", sc.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer prom.Close(context.Background())
	recv, url := startHTTPReceiver(t)
	otlp, err := NewOTLP(context.Background(), OTLPOptions{Endpoint: url, Interval: 500 * time.Millisecond, Scenario: sc.Name})
	if err != nil {
		t.Fatal(err)
	}

	// Scrape from the progress callback: the load is running then.
	// Each scrape made while the load runs holds at least the operations
	// the progress snapshot just before it counted.
	var mu sync.Mutex
	var during float64
	progress := func(p runner.Progress) {
		running, seen := false, int64(0)
		for _, w := range p.Workloads {
			running = running || (!w.Done && w.Ops > 0)
			seen += w.Ops
		}
		if !running {
			return
		}
		fams := scrape(t, prom.URL())
		var n float64
		for _, m := range fams[NameOperations].GetMetric() {
			n += m.GetCounter().GetValue()
		}
		if n < float64(seen) {
			t.Errorf("scraped %v operations while the run had recorded %d", n, seen)
		}
		mu.Lock()
		during = max(during, n)
		mu.Unlock()
	}
	sum, err := runner.Run(context.Background(), sc, runner.Options{
		ResultsDir: filepath.Join(t.TempDir(), "results"), Progress: progress, ProgressEvery: 300 * time.Millisecond,
		Exporters: []runner.Exporter{prom, otlp},
	})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if err := otlp.Close(context.Background()); err != nil {
		t.Fatalf("otlp final export: %v", err)
	}

	var total float64
	for _, w := range sum.Workloads {
		for _, o := range w.Ops {
			total += float64(o.Count)
		}
	}
	mu.Lock()
	if during <= 0 || during > total {
		t.Errorf("scraped while running: %v operations; want some, at most the run's %v", during, total)
	}
	mu.Unlock()

	fams := scrape(t, prom.URL())
	otel, _ := lastExport(t, recv)
	for _, w := range sum.Workloads {
		if w.Goal == "" {
			t.Errorf("workload %s has no goal", w.Name)
		}
		a := find(fams, NameAchieved, map[string]string{"scenario": "live", "workload": w.Name, "goal": w.Goal})
		if a == nil || a.GetCounter().GetValue() != float64(w.Achieved) {
			t.Errorf("%s: scraped achieved %v, summary %d", w.Name, a, w.Achieved)
		}
		if got := sumValue(t, otel, "stormcheck.achieved", map[string]string{"workload": w.Name}); got != w.Achieved {
			t.Errorf("%s: OTLP achieved %d, summary %d", w.Name, got, w.Achieved)
		}
		for _, o := range w.Ops {
			for outcome, cnt := range o.Outcomes {
				labels := map[string]string{"workload": w.Name, "op": o.Op, "outcome": outcome}
				m := find(fams, NameOperations, labels)
				if m == nil || m.GetCounter().GetValue() != float64(cnt) {
					t.Errorf("%v: scraped %v, summary %d", labels, m, cnt)
				}
				if got := sumValue(t, otel, "stormcheck.operations", labels); got != cnt {
					t.Errorf("%v: OTLP %d, summary %d", labels, got, cnt)
				}
			}
			for _, r := range o.Responses {
				labels := map[string]string{"workload": w.Name, "op": o.Op, "status": statusLabel(r.Status), "error_code": r.Code}
				m := find(fams, NameResponses, labels)
				if m == nil || m.GetCounter().GetValue() != float64(r.Count) {
					t.Errorf("%v: scraped %v, summary %d", labels, m, r.Count)
				}
			}
			h := find(fams, NameDuration, map[string]string{"workload": w.Name, "op": o.Op, "outcome": "ok"})
			if h == nil || h.GetHistogram().GetSampleCount() != uint64(o.Outcomes["ok"]) {
				t.Errorf("%s %s: latency histogram %v, want %d ok attempts", w.Name, o.Op, h, o.Outcomes["ok"])
			}
		}
	}
	// The lost races are 412 ConditionNotMet on the counter and 409
	// BlobAlreadyExists on create-once: the breakdown tells them apart.
	for _, c := range []map[string]string{
		{"workload": "counter", "op": "blob.put", "status": "412", "error_code": "ConditionNotMet"},
		{"workload": "create", "op": "blob.create", "status": "409", "error_code": "BlobAlreadyExists"},
	} {
		if m := find(fams, NameResponses, c); m == nil || m.GetCounter().GetValue() == 0 {
			t.Errorf("%v: none scraped; the races were not lost as documented?", c)
		}
	}
}
