package main

import (
	"os"
	"runtime/debug"
)

// Garbage collection for a check: the checkers' state lives until each key
// group is judged, so a collection at every doubling of the heap (Go's
// default) spends a sixth of a large check's CPU marking the same tables
// again. A check collects at every fourfold growth instead, under a soft
// memory limit that keeps the whole check (load and checks) well under
// 512 MiB: the limit, not the growth, bounds its heap once the checkers
// hold much. GOGC or GOMEMLIMIT in the environment take precedence.
const (
	checkGCPercent   = 300
	checkMemoryLimit = 384 << 20
)

// tuneCheckGC sets them, unless the environment sets either, and returns
// what puts back the settings it found.
func tuneCheckGC() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	gc := debug.SetGCPercent(checkGCPercent)
	limit := debug.SetMemoryLimit(checkMemoryLimit)
	return func() {
		debug.SetGCPercent(gc)
		debug.SetMemoryLimit(limit)
	}
}
