package runner

import (
	"os"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// During the load the collector is given a floor of loadHeapHeadroom
// bytes of room above the live heap: a run's live heap is small (the
// history is streamed, not kept), so with Go's default (room equal to the
// live heap) it collects every few megabytes of allocation, dozens of
// times a second at the ceiling, and its marking becomes a measurable part
// of the CPU per call. A live heap over the headroom gets Go's default.
// GOGC, when set, is the user's choice and is left alone.
const (
	loadHeapHeadroom = 64 << 20
	loadGCMaxPercent = 1000
	loadGCEvery      = 250 * time.Millisecond
)

// loadGCPercent is the GC percent that gives a live heap of live bytes the
// headroom: at least Go's default 100, at most loadGCMaxPercent.
func loadGCPercent(live uint64) int {
	if live == 0 {
		return loadGCMaxPercent
	}
	return int(min(max(loadHeapHeadroom*100/live, 100), loadGCMaxPercent))
}

// loadGC sets the load's GC percent and follows the live heap until the
// returned stop, which puts the previous setting back.
func loadGC() (stop func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	live := func() uint64 {
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return sample[0].Value.Uint64()
	}
	pct := loadGCPercent(live())
	prev := debug.SetGCPercent(pct)
	follow := every(loadGCEvery, func() {
		if p := loadGCPercent(live()); p != pct {
			pct = p
			debug.SetGCPercent(p)
		}
	})
	return func() {
		follow()
		debug.SetGCPercent(prev)
	}
}
