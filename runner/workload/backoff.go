package workload

import (
	"math/rand/v2"
	"time"
)

// backoff is the wait before attempt try+1 (try ≥ 1): exponential from base,
// capped at max, with full jitter so that actors that failed together do not
// retry together (the seeds: "use an exponential back off").
func Backoff(r *rand.Rand, base, max time.Duration, try int) time.Duration {
	d := base
	for i := 1; i < try && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	if d <= 0 {
		return 0
	}
	return time.Duration(r.Int64N(int64(d)) + 1)
}
