package runner

import (
	"runtime/debug"
	"testing"
)

// The checks' soft memory limit is set for them and put back after, and a
// GOMEMLIMIT in the environment is left alone.
func TestLimitCheckMemory(t *testing.T) {
	limit0 := debug.SetMemoryLimit(-1)
	t.Setenv("GOMEMLIMIT", "")
	restore := LimitCheckMemory()
	if got, want := debug.SetMemoryLimit(-1), CheckMemoryLimitFor(CgroupMemoryMax("/sys/fs/cgroup/memory.max")); got != want || got > CheckMemoryLimit {
		t.Errorf("limit %d during the checks, want %d", got, want)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != limit0 {
		t.Errorf("limit %d after the checks, want %d back", got, limit0)
	}
	t.Setenv("GOMEMLIMIT", "1GiB")
	restore = LimitCheckMemory()
	if got := debug.SetMemoryLimit(-1); got != limit0 {
		t.Errorf("GOMEMLIMIT set: limit changed to %d", got)
	}
	restore()
}
