//go:build !unix

package fuzzguard

import "time"

// cpuTime is unknown here: Run falls back to the wall clock.
func cpuTime() (time.Duration, bool) { return 0, false }
