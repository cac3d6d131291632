package fuzzguard

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

type recorder struct {
	mu       sync.Mutex
	failures []string
}

func (r *recorder) Helper() {}
func (r *recorder) Fatalf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func (r *recorder) all() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.failures, "; ")
}

var sink [][]byte

// guarded runs fn under Run with the watchdog's breaches recorded into r.
func guarded(r *recorder, fn func()) {
	old := breach
	breach = func(msg string) { r.Fatalf("%s", msg) }
	defer func() { breach = old }()
	Run(r, fn)
}

// TestAllocationBoundCaught: an input allocating 300 MiB in small pieces is
// failed; one allocating a few MiB passes.
func TestAllocationBoundCaught(t *testing.T) {
	var r recorder
	guarded(&r, func() {
		for range 4 {
			sink = append(sink, make([]byte, 1<<20))
		}
	})
	sink = nil
	if got := r.all(); got != "" {
		t.Fatalf("4 MiB failed: %s", got)
	}
	guarded(&r, func() {
		for range 300 {
			sink = append(sink, make([]byte, 1<<20))
		}
	})
	sink = nil
	if got := r.all(); !strings.Contains(got, "over the 256 MiB bound") {
		t.Fatalf("300 MiB passed (failures: %q)", got)
	}
}

// TestTimeBoundOnlyWhenFuzzing: an input that uses more CPU than the bound is
// failed with the limits on (as scripts/fuzz.sh runs), never in the plain
// suite; one that only waits is not (its CPU is the bound).
func TestTimeBoundOnlyWhenFuzzing(t *testing.T) {
	if _, ok := cpuTime(); !ok {
		t.Skip("no process CPU time on this platform")
	}
	defer func(old time.Duration) { cpuBound = old }(cpuBound)
	cpuBound = 200 * time.Millisecond // the 1 s bound, scaled down to keep the test short
	slow := func() {                  // spin until the process has used over a second of CPU
		c0, _ := cpuTime()
		for {
			if c, _ := cpuTime(); c-c0 > cpuBound+100*time.Millisecond {
				return
			}
		}
	}
	var r recorder
	t.Setenv(EnvLimits, "")
	guarded(&r, slow)
	if got := r.all(); got != "" {
		t.Fatalf("without %s: %s", EnvLimits, got)
	}
	t.Setenv(EnvLimits, "1")
	guarded(&r, slow)
	if got := r.all(); !strings.Contains(got, "over the 200ms bound") {
		t.Fatalf("with %s=1 an input using %v of CPU passed (failures: %q)", EnvLimits, cpuBound+100*time.Millisecond, got)
	}
	var waiting recorder
	guarded(&waiting, func() { time.Sleep(cpuBound + 100*time.Millisecond) })
	if got := waiting.all(); got != "" {
		t.Fatalf("an input that only waited was failed: %s", got)
	}
}
