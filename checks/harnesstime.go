package checks

// Times on the harness's clock (nanoseconds since the run's time zero), with
// infinities at both ends that sums saturate at.

import (
	"fmt"
	"math"
	"time"
)

const (
	lsInf    = math.MaxInt64
	lsNegInf = math.MinInt64
	lsSecond = int64(time.Second)
)

// addBound adds a duration to a time, saturating at the infinities.
func addBound(t, d int64) int64 {
	switch {
	case t == lsInf || d == lsInf:
		return lsInf
	case t == lsNegInf || d == lsNegInf:
		return lsNegInf
	}
	if s := t + d; (d > 0 && s < t) || (d < 0 && s > t) {
		if d > 0 {
			return lsInf
		}
		return lsNegInf
	}
	return t + d
}

// fmtHarnessTime renders a harness time for messages.
func fmtHarnessTime(t int64) string {
	switch t {
	case lsInf:
		return "forever"
	case lsNegInf:
		return "never"
	}
	return fmt.Sprintf("%.3fs", float64(t)/1e9)
}
