package main

import (
	"os"
	"runtime/debug"

	"github.com/stormcheck/stormcheck/runner"
)

// Garbage collection for a check: the checkers' state lives until each key
// group is judged, so a collection at every doubling of the heap (Go's
// default) spends a sixth of a large check's CPU marking the same tables
// again. A check collects at every fourfold growth instead, under the
// checks' soft memory limit (runner.CheckMemoryLimit), which keeps the
// whole check (load and checks) well under 512 MiB: the limit, not the
// growth, bounds its heap once the checkers hold much. GOGC or GOMEMLIMIT
// in the environment take precedence.
const checkGCPercent = 300

// tuneCheckGC sets them, unless the environment sets either, and returns
// what puts back the settings it found.
func tuneCheckGC() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	gc := debug.SetGCPercent(checkGCPercent)
	limit := runner.LimitCheckMemory()
	return func() {
		debug.SetGCPercent(gc)
		limit()
	}
}
