package delivery

import (
	"math/rand/v2"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
)

// A long simulated queue.work history: 2 queues, 4 producers, 8 consumers
// with crashes, updates and unknown outcomes; all three checkers at once.
func BenchmarkQueueCheckers(b *testing.B) {
	cfg := qsimCfg{queues: 2, producers: 4, consumers: 8, puts: 5000, gets: 5000,
		unknown: 0.02, throttle: 0.02, late: 0.3, crash: 0.05, update: 0.2, slow: 0.05}
	ops := qsimRun(rand.New(rand.NewPCG(1, 2)), cfg)
	b.Logf("%d ops", len(ops))
	b.ResetTimer()
	for range b.N {
		for _, r := range checks.Run(ops, NewAtLeastOnce(), NewExclusiveVisibility(), NewPopReceipt()) {
			if r.Verdict != checks.Pass {
				b.Fatal(r.Summary)
			}
		}
	}
}
