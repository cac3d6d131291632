// Package fuzzguard bounds one fuzz input's cost: the fuzz targets of the
// loaders and the history reader run each input under Run, which fails the
// input if it allocates more than MaxAllocBytes or, when fuzzing with
// STORMCHECK_FUZZ_LIMITS=1 (scripts/fuzz.sh sets it), uses more than
// MaxDuration of CPU. Only tests import it.
//
// Time is the process's CPU time (user + system, getrusage), not the wall
// clock: on a shared machine (load average 19 on 2 cores while this was
// written) a 50 ms input can wait over a second for a core, and the wall
// clock would blame the input. One fuzz worker (-parallel=1) runs one input
// at a time, so the process's CPU during the input is the input's (and the
// garbage collection it causes). A wall-clock bound of MaxWall still catches
// an input that blocks without using CPU.
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
	MaxWall       = 30 * time.Second
)

// cpuBound is MaxDuration; this package's tests shorten it.
var cpuBound = MaxDuration

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
var breach = func(msg string) {
	if path := os.Getenv(EnvLog); path != "" { // the fuzzer may not show a dying worker's output
		if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			fmt.Fprintf(f, "%s %s\n", time.Now().UTC().Format(time.RFC3339), msg)
			f.Close()
		}
	}
	panic(msg)
}

// EnvLog, when set, names a file each bound crossed is appended to before
// the worker panics (scripts/fuzz.sh sets it).
const EnvLog = "STORMCHECK_FUZZ_LOG"

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
// used more than MaxDuration of CPU (or MaxWall of wall clock). A watchdog checks both every few
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
	cpu0, hasCPU := cpuTime()
	slow := func() (string, bool) {
		wall := time.Since(start)
		if !hasCPU {
			return fmt.Sprintf("running for %v", wall.Round(time.Millisecond)), wall > cpuBound
		}
		cpu, _ := cpuTime()
		used := cpu - cpu0
		return fmt.Sprintf("used %v of CPU (%v of wall clock)", used.Round(time.Millisecond), wall.Round(time.Millisecond)),
			used > cpuBound || wall > MaxWall
	}
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
				if what, over := slow(); timed && over {
					breach(fmt.Sprintf("fuzzguard: input %s, over the %v bound", what, cpuBound))
					return
				}
			}
		}
	}()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			close(done)
			<-watchdog
		}
	}
	defer stop() // also when fn panics or calls t.Fatal: the watchdog must not outlive the input
	fn()
	used := allocated() - before
	what, over := slow()
	stop()
	if used > MaxAllocBytes {
		t.Fatalf("input allocated %d MiB, over the %d MiB bound", used>>20, MaxAllocBytes>>20)
	}
	if timed && over {
		t.Fatalf("input %s, over the %v bound", what, cpuBound)
	}
}
