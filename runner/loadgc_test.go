package runner

import (
	"runtime/debug"
	"testing"
)

func TestLoadGCPercent(t *testing.T) {
	for _, c := range []struct {
		live uint64
		want int
	}{
		{0, loadGCMaxPercent},
		{1 << 20, loadGCMaxPercent}, // 64 MiB of room would be 6400 %: capped
		{8 << 20, 800},              // 64 MiB of room over 8 MiB
		{32 << 20, 200},             // over 32 MiB
		{64 << 20, 100},             // Go's default from here on
		{1 << 30, 100},              // never below it
	} {
		if got := loadGCPercent(c.live); got != c.want {
			t.Errorf("loadGCPercent(%d) = %d, want %d", c.live, got, c.want)
		}
	}
}

// The load's setting is undone when the load ends, and GOGC set by the user
// is left alone.
func TestLoadGCRestores(t *testing.T) {
	prev := debug.SetGCPercent(150)
	defer debug.SetGCPercent(prev)
	stop := loadGC()
	during := debug.SetGCPercent(-1)
	debug.SetGCPercent(during)
	stop()
	if during < 100 || during == 150 {
		t.Errorf("GC percent during the load = %d, want the load's own (≥ 100)", during)
	}
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("GC percent after the load = %d, want 150 back", got)
	}

	t.Setenv("GOGC", "150")
	stop = loadGC()
	got := debug.SetGCPercent(150)
	stop()
	if got != 150 {
		t.Errorf("with GOGC set, GC percent during the load = %d, want 150 (the user's)", got)
	}
}
