package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/stormcheck/stormcheck/runner"
)

// A check collects garbage less often under a memory limit, unless GOGC or
// GOMEMLIMIT says otherwise; what it set is put back after.
func TestCheckGCTuning(t *testing.T) {
	current := func() (int, int64) {
		gc := debug.SetGCPercent(-1)
		debug.SetGCPercent(gc)
		return gc, debug.SetMemoryLimit(-1)
	}
	gc0, limit0 := current()
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	restore := tuneCheckGC()
	wantLimit := runner.CheckMemoryLimitFor(runner.CgroupMemoryMax("/sys/fs/cgroup/memory.max"))
	if gc, limit := current(); gc != checkGCPercent || limit != wantLimit || limit > runner.CheckMemoryLimit {
		t.Errorf("tuned: GOGC %d, limit %d; want %d, %d", gc, limit, checkGCPercent, wantLimit)
	}
	restore()
	if gc, limit := current(); gc != gc0 || limit != limit0 {
		t.Errorf("restored: GOGC %d, limit %d; want %d, %d", gc, limit, gc0, limit0)
	}
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Setenv(env, "off")
		restore := tuneCheckGC()
		if gc, limit := current(); gc != gc0 || limit != limit0 {
			t.Errorf("%s set: GOGC %d, limit %d changed", env, gc, limit)
		}
		restore()
		t.Setenv(env, "")
	}
}

// In a container allowed less memory, the check's limit is three quarters
// of what it allows; "max", nonsense or no file leave the check's own.
func TestCheckMemoryLimitFollowsTheCgroup(t *testing.T) {
	dir := t.TempDir()
	for content, want := range map[string]int64{
		"max\n":         runner.CheckMemoryLimit,
		"335544320\n":   320 << 20 / 4 * 3,
		"17179869184\n": runner.CheckMemoryLimit,
		"garbage":       runner.CheckMemoryLimit,
		"-5":            runner.CheckMemoryLimit,
	} {
		p := filepath.Join(dir, "memory.max")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := runner.CheckMemoryLimitFor(runner.CgroupMemoryMax(p)); got != want {
			t.Errorf("memory.max %q: limit %d, want %d", content, got, want)
		}
	}
	if got := runner.CheckMemoryLimitFor(runner.CgroupMemoryMax(filepath.Join(dir, "absent"))); got != runner.CheckMemoryLimit {
		t.Errorf("no memory.max: limit %d, want %d", got, runner.CheckMemoryLimit)
	}
}
