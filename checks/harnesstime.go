package checks

// Times on the harness's clock (nanoseconds since the run's time zero), with
// infinities at both ends that sums saturate at.

import (
	"fmt"
	"math"
	"time"
)

const (
	LsInf    = math.MaxInt64
	LsNegInf = math.MinInt64
	LsSecond = int64(time.Second)
)

// addBound adds a duration to a time, saturating at the infinities.
func AddBound(t, d int64) int64 {
	switch {
	case t == LsInf || d == LsInf:
		return LsInf
	case t == LsNegInf || d == LsNegInf:
		return LsNegInf
	}
	if s := t + d; (d > 0 && s < t) || (d < 0 && s > t) {
		if d > 0 {
			return LsInf
		}
		return LsNegInf
	}
	return t + d
}

// fmtHarnessTime renders a harness time for messages.
func FmtHarnessTime(t int64) string {
	switch t {
	case LsInf:
		return "forever"
	case LsNegInf:
		return "never"
	}
	return fmt.Sprintf("%.3fs", float64(t)/1e9)
}
