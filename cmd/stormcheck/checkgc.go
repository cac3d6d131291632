package main

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// Garbage collection for a check: the checkers' state lives until each key
// group is judged, so a collection at every doubling of the heap (Go's
// default) spends a sixth of a large check's CPU marking the same tables
// again. A check collects at every fourfold growth instead, under a soft
// memory limit that keeps the whole check (load and checks) well under
// 512 MiB: the limit, not the growth, bounds its heap once the checkers
// hold much. In a container allowed less (cgroup v2 memory.max), the limit
// is three quarters of what it allows. GOGC or GOMEMLIMIT in the
// environment take precedence.
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
	limit := debug.SetMemoryLimit(checkMemoryLimitFor(cgroupMemoryMax("/sys/fs/cgroup/memory.max")))
	return func() {
		debug.SetGCPercent(gc)
		debug.SetMemoryLimit(limit)
	}
}

// checkMemoryLimitFor is the check's soft memory limit in a cgroup that
// allows max bytes (0: no limit known).
func checkMemoryLimitFor(max int64) int64 {
	if max > 0 && max/4*3 < checkMemoryLimit {
		return max / 4 * 3
	}
	return checkMemoryLimit
}

// cgroupMemoryMax reads a cgroup v2 memory.max: its bytes, or 0 when it
// says "max" or cannot be read.
func cgroupMemoryMax(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}
