package throttle

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkProxyOverhead measures what the emulation costs a run: the same
// table upserts (16 workers, one partition each, limits far above the
// load) straight to Azurite and through the proxy, in alternating 2 s
// slices so both see the same machine. It reports operations per second
// and the mean latency of each path, and their ratios.
func BenchmarkProxyOverhead(b *testing.B) {
	inst := startAzurite(b)
	p := startProxy(b, inst, Options{Limits: Limits{PartitionEntities: 1e6, AccountRequests: 1e7}})
	ctx := testCtx(b)
	table := uniq("bench")
	direct := tableClient(b, inst, inst.TableURL, table)
	proxied := tableClient(b, inst, p.TableURL, table)
	if _, err := direct.CreateTable(ctx, nil); err != nil {
		b.Fatal(err)
	}
	slice := func(path string) (ops int64, lat time.Duration) {
		c := direct
		if path == "proxy" {
			c = proxied
		}
		var n, sum atomic.Int64
		end := time.Now().Add(2 * time.Second)
		var wg sync.WaitGroup
		for w := 0; w < 16; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				for i := 0; time.Now().Before(end); i++ {
					t0 := time.Now()
					if _, err := c.UpsertEntity(ctx, entityJSON(b, uniq("p"), "r"), nil); err != nil {
						b.Error(err)
						return
					}
					sum.Add(int64(time.Since(t0)))
					n.Add(1)
				}
			}(w)
		}
		wg.Wait()
		return n.Load(), time.Duration(sum.Load() / max(n.Load(), 1))
	}
	var opsD, opsP int64
	var latD, latP time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n, l := slice("direct")
		opsD, latD = opsD+n, latD+l
		n, l = slice("proxy")
		opsP, latP = opsP+n, latP+l
	}
	b.StopTimer()
	secs := float64(2 * b.N)
	b.ReportMetric(float64(opsD)/secs, "direct-ops/s")
	b.ReportMetric(float64(opsP)/secs, "proxy-ops/s")
	b.ReportMetric(float64(opsP)/float64(opsD), "throughput-ratio")
	b.ReportMetric(float64(latP)/float64(latD), "latency-ratio")
	b.ReportMetric(float64(latD/time.Duration(b.N))/1e6, "direct-ms")
	b.ReportMetric(float64(latP/time.Duration(b.N))/1e6, "proxy-ms")
}
