package batch

import (
	"math/rand/v2"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

// One partition of a thousand rows, pages of up to a thousand entities.
func BenchmarkTableBatchCheckers(b *testing.B) {
	cfg := tbSimCfg{parts: 1, rows: 1000, actors: 8, ops: 500, unknown: 0.05, fails: 0.05, throttle: 0.05, retry: 0.5,
		query: 0.3, split: 0.3, maxRows: 100, maxDur: 50, maxGap: 20, maxLate: 100}
	sim := simulateTableBatches(rand.New(rand.NewPCG(1, 2)), cfg)
	ents := 0
	for i := range sim.ops {
		ents += len(sim.ops[i].Out.Entities)
	}
	b.Logf("%d ops, %d entities read", len(sim.ops), ents)
	b.ResetTimer()
	for range b.N {
		for _, r := range checks.Run(sim.ops, NewBatchAtomicity(), NewSnapshotReads()) {
			if r.Verdict != checks.Pass {
				b.Fatal(checkstest.Describe(r))
			}
		}
	}
}
