// Package fuzzguard bounds one fuzz input's cost: the fuzz targets of the
// loaders and the history reader run each input under Run, which fails the
// input if it allocates more than MaxAllocBytes or, when fuzzing with
// STORMCHECK_FUZZ_LIMITS=1 (scripts/fuzz.sh sets it), runs longer than
// MaxDuration. Only tests import it.
package fuzzguard

import (
	"fmt"
	"os"
	"runtime/metrics"
	"sync"
	"time"
)

// The bounds on one input.
const (
	MaxAllocBytes = 256 << 20
	MaxDuration   = time.Second
)

// EnvLimits, set to 1, turns on the time bound. Plain `go test` runs the
// seeds without it: the suite never asserts how fast the machine is.
const EnvLimits = "STORMCHECK_FUZZ_LIMITS"

// TB is the part of testing.TB that Run uses.
type TB interface {
	Helper()
	Fatalf(format string, args ...any)
}

const allocsMetric = "/gc/heap/allocs:bytes"

// breach is what the watchdog does when an input crosses a bound while it
// runs: panic, which ends the fuzz worker and makes the fuzzer keep the input
// as a crasher. Tests of this package record instead.
var breach = func(msg string) { panic(msg) }

// mu serialises guarded inputs, so that the process-wide allocation counter
// measures one input (the fuzz scripts run one worker: -parallel=1).
var mu sync.Mutex

// allocated returns the bytes allocated on the heap so far.
func allocated() uint64 {
	s := []metrics.Sample{{Name: allocsMetric}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// Run runs fn and fails t if fn allocated more than MaxAllocBytes (counted
// from the runtime's cumulative heap allocations) or, with EnvLimits set,
// took longer than MaxDuration. A watchdog checks both every few
// milliseconds while fn runs and panics when a bound is crossed, so an
// input that would loop forever or allocate without end is still caught
// (the fuzzer then records it as a crasher) instead of hanging or being
// killed for memory.
func Run(t TB, fn func()) {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	timed := os.Getenv(EnvLimits) == "1"
	start, before := time.Now(), allocated()
	done := make(chan struct{})
	watchdog := make(chan struct{})
	go func() {
		defer close(watchdog)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if a := allocated() - before; a > MaxAllocBytes {
					breach(fmt.Sprintf("fuzzguard: input allocated %d MiB so far, over the %d MiB bound", a>>20, MaxAllocBytes>>20))
					return
				}
				if d := time.Since(start); timed && d > MaxDuration {
					breach(fmt.Sprintf("fuzzguard: input running for %v, over the %v bound", d.Round(time.Millisecond), MaxDuration))
					return
				}
			}
		}
	}()
	fn()
	elapsed, used := time.Since(start), allocated()-before
	close(done)
	<-watchdog
	if used > MaxAllocBytes {
		t.Fatalf("input allocated %d MiB, over the %d MiB bound", used>>20, MaxAllocBytes>>20)
	}
	if timed && elapsed > MaxDuration {
		t.Fatalf("input took %v, over the %v bound", elapsed.Round(time.Millisecond), MaxDuration)
	}
}
