package metricsexport

import (
	"context"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
)

// BenchmarkExportHook measures what live export costs the hot path: the
// same attempts recorded into metrics without export and into metrics with
// export on (latency buckets per outcome) while a Prometheus endpoint is
// scraped every 100 ms, in alternating slices of 4,096 attempts so that
// both see the same machine. It reports ns per attempt for each and their
// ratio (on/off).
//
//	go test -run x -bench ExportHook -benchtime 2000000x ./runner/metricsexport/
func BenchmarkExportHook(b *testing.B) {
	off := reports.NewMetrics(reports.MetricsOptions{Workloads: []string{"counter"}})
	on := reports.NewMetrics(reports.MetricsOptions{Workloads: []string{"counter"}, Export: true,
		Goals: map[string]reports.Goal{"counter": {Noun: "increments", Ops: []string{"blob.put"}}}})
	p, err := NewPrometheus("127.0.0.1:0", "bench")
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close(context.Background())
	p.Attach(on)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // Prometheus scraping, far more often than it would
		defer wg.Done()
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if resp, err := http.Get(p.URL()); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}
	}()

	kinds := []struct {
		kind   string
		o      checks.Outcome
		status int
		code   string
	}{
		{"blob.get", checks.OK, 200, ""},
		{"blob.put", checks.OK, 201, ""},
		{"blob.put", checks.Conflict, 412, "ConditionNotMet"},
		{"blob.put", checks.Conflict, 412, "ConditionNotMet"},
	}
	ops := make([]checks.Op, len(kinds))
	for i, k := range kinds {
		ops[i] = checks.Op{Workload: "counter", Kind: k.kind, Key: "k0", Attempt: 1, Outcome: k.o,
			Out: checks.Output{Status: k.status, ErrorCode: k.code}}
	}
	const slice = 4096
	var tOff, tOn time.Duration
	record := func(m *reports.Metrics, from, n int) time.Duration {
		t0 := time.Now()
		for i := from; i < from+n; i++ {
			op := &ops[i%len(ops)]
			op.Call = int64(i) * 10_000 // 100k attempts per simulated second
			op.Intended = op.Call
			op.Return = op.Call + int64(i%5000)*1000
			m.Record(op)
		}
		return time.Since(t0)
	}
	b.ResetTimer()
	for done := 0; done < b.N; done += slice {
		n := min(slice, b.N-done)
		tOff += record(off, done, n)
		tOn += record(on, done, n)
	}
	b.StopTimer()
	close(stop)
	wg.Wait()
	b.ReportMetric(float64(tOff.Nanoseconds())/float64(b.N), "ns/attempt-off")
	b.ReportMetric(float64(tOn.Nanoseconds())/float64(b.N), "ns/attempt-on")
	if tOff > 0 {
		b.ReportMetric(float64(tOn)/float64(tOff), "on/off")
	}
}
