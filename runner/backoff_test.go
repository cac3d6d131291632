package runner

import (
	"github.com/stormcheck/stormcheck/runner/workload"
	"math/rand/v2"
	"testing"
	"time"
)

func TestBackoffGrowsAndIsCapped(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	base, limit := 100*time.Millisecond, time.Second
	for try := 1; try <= 8; try++ {
		ceil := base << (try - 1)
		if ceil > limit {
			ceil = limit
		}
		var maxSeen time.Duration
		for i := 0; i < 2000; i++ {
			d := workload.Backoff(r, base, limit, try)
			if d <= 0 || d > ceil {
				t.Fatalf("try %d: back-off %v outside (0, %v]", try, d, ceil)
			}
			maxSeen = max(maxSeen, d)
		}
		if maxSeen < ceil*8/10 {
			t.Errorf("try %d: largest back-off %v, want near %v (full jitter)", try, maxSeen, ceil)
		}
	}
}
