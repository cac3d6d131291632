package runner

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// CheckMemoryLimit is the soft memory limit the checks run under, in a
// run's end and in `stormcheck check`: the checkers' tables live until each
// key group is judged, so with Go's default the heap may grow to twice what
// they hold before a collection (a 10M-operation run peaked from 374 to
// 540 MiB from one run to the next); under the limit the collector works
// harder instead and the whole process stays under 512 MiB. In a container
// allowed less (cgroup v2 memory.max), the limit is three quarters of what
// it allows.
const CheckMemoryLimit = 384 << 20

// LimitCheckMemory sets the checks' soft memory limit unless GOMEMLIMIT in
// the environment sets one, and returns what puts back the limit it found.
func LimitCheckMemory() (restore func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prev := debug.SetMemoryLimit(CheckMemoryLimitFor(CgroupMemoryMax("/sys/fs/cgroup/memory.max")))
	return func() { debug.SetMemoryLimit(prev) }
}

// CheckMemoryLimitFor is the checks' soft memory limit in a cgroup that
// allows max bytes (0: no limit known).
func CheckMemoryLimitFor(max int64) int64 {
	if max > 0 && max/4*3 < CheckMemoryLimit {
		return max / 4 * 3
	}
	return CheckMemoryLimit
}

// CgroupMemoryMax reads a cgroup v2 memory.max: its bytes, or 0 when it
// says "max" or cannot be read.
func CgroupMemoryMax(path string) int64 {
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
