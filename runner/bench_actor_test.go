package runner

import (
	"context"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/blob"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// BenchmarkHarnessPerCall is what the harness adds to one call, alone: an
// actor's Do with a canned response instead of the SDK call (attempt
// timeout, classification, the sent conditions, the history line through
// zstd to a file, the live HDR metrics and hlog), with CPU per call
// measured from the process's CPU time.
//
//	go test -run '^$' -bench HarnessPerCall -cpu 1 ./runner/
func BenchmarkHarnessPerCall(b *testing.B) {
	dir := b.TempDir()
	start := time.Now()
	m := reports.NewMetrics(reports.MetricsOptions{HlogDir: filepath.Join(dir, "hlog"), Start: start, Workloads: []string{"w"}})
	rec, err := workload.NewRecorder(filepath.Join(dir, HistoryFile), start, m)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	defer rec.Close()
	e := &workload.Env{Name: "w", Keys: 1, Timeout: time.Second, Retry: scenarios.Retry{MaxAttempts: 1}, Rec: rec, Seed: 1}
	resp := &http.Response{StatusCode: 200, Header: http.Header{"Etag": {`"0x8DC1"`}, "X-Ms-Request-Id": {"abc"}, "Last-Modified": {"Tue, 24 Nov 2026 06:30:00 GMT"}},
		Request: &http.Request{Header: http.Header{"If-Match": {`"0x8DC0"`}, "x-ms-version": {"2025"}}}}
	b.ReportAllocs()
	c0 := cpuTime()
	defer func() { b.ReportMetric(float64(cpuTime()-c0)/float64(b.N), "cpu-ns/op") }()
	b.RunParallel(func(pb *testing.PB) {
		a := e.Actor(1)
		for pb.Next() {
			a.Do(context.Background(), workload.Call{Kind: "blob.put", Key: workload.KeyName(3), Conflicts: blob.ConflictPrecondition}, func(ctx context.Context, _ int) (checks.Input, string, error) {
				a.Wire.Resp = resp
				return checks.Input{IfMatch: `"0x8DC0"`, Value: checks.CounterValue{N: 5, Tag: a.Tag()}.Format(0)}, "", nil
			})
		}
	})
}
