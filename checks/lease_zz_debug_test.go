package checks

import (
	"math/rand/v2"
	"testing"
)

func TestLeaseZZDebug(t *testing.T) {
	r := rand.New(rand.NewPCG(uint64(4), 7))
	cfg := randomLeaseSimConfig(r, "blob.")
	ops, _ := simulateLeases(r, cfg)
	for j := range ops {
		if ops[j].Key == "k1" && ops[j].Call > 40e9 && ops[j].Call < 138e9 {
			t.Logf("%s dur=%d bp=%v", ops[j].String(), ops[j].In.LeaseDuration, ops[j].In.BreakPeriod)
		}
	}
}
