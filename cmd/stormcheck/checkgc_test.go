package main

import (
	"runtime/debug"
	"testing"
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
	if gc, limit := current(); gc != checkGCPercent || limit != checkMemoryLimit {
		t.Errorf("tuned: GOGC %d, limit %d; want %d, %d", gc, limit, checkGCPercent, checkMemoryLimit)
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
