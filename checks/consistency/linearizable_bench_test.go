package consistency

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
)

// BenchmarkCheckersCompared checks the same histories of one blob, from the
// shared generator genRegisterHistory (CHECKERS.md's mix: 45% reads, 45%
// If-Match writes, 10% unconditional writes; 1% unknown outcomes), with
// version-chain and with the linearizable checker (pre-pass, then porcupine
// within a 20 s budget, its size bounds lifted so that it tries every case
// up to 100k operations), with and without an injected lost update. Each
// case reports its time, bytes allocated (B/op), the peak of live heap above
// the history itself (peak-MB), and the verdict as a metric (pass, fail or
// undecided = 1). One iteration per case is enough, and the whole run stays
// within about ten minutes on two cores:
//
//	go test -run '^$' -bench BenchmarkCheckersCompared -benchtime 1x -timeout 30m ./checks/
//
// A subset: -bench 'BenchmarkCheckersCompared/ops=10k/actors=16/'.
func BenchmarkCheckersCompared(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000, 1_000_000} {
		for _, actors := range []int{4, 16, 64} {
			for _, violation := range []bool{false, true} {
				var (
					once sync.Once
					ops  []checks.Op
				)
				gen := func() {
					once.Do(func() {
						r := rand.New(rand.NewPCG(uint64(n), uint64(actors)))
						ops = genRegisterHistory(r, actors, n, registerCASMix, 0.01, violation)
					})
				}
				label := "clean"
				if violation {
					label = "lost-update"
				}
				name := fmt.Sprintf("ops=%s/actors=%d/%s", linCount(n), actors, label)
				b.Run(name+"/version-chain", func(b *testing.B) {
					if _, err := checks.New("version-chain"); err != nil {
						b.Skip("version-chain is not registered yet")
					}
					gen()
					linBenchChecker(b, ops, violation, func() checks.Checker { c, _ := checks.New("version-chain"); return c })
				})
				b.Run(name+"/porcupine", func(b *testing.B) {
					if n > 100_000 {
						b.Skip("porcupine is not tried above 100k operations")
					}
					gen()
					linBenchChecker(b, ops, violation, func() checks.Checker {
						c := NewLinearizable()
						c.Budget, c.MaxOps, c.MaxActors = 20*time.Second, 1<<30, 1<<30
						return c
					})
				})
				ops = nil
			}
		}
	}
}

func linCount(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1_000 && n%1_000 == 0:
		return fmt.Sprintf("%dk", n/1_000)
	}
	return fmt.Sprint(n)
}

// linBenchChecker runs fresh checkers over ops b.N times and reports the last
// verdict and the peak live heap.
func linBenchChecker(b *testing.B, ops []checks.Op, violation bool, mk func() checks.Checker) {
	b.ReportAllocs()
	runtime.GC()
	base := linLiveHeap()
	peak := base
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				peak = max(peak, linLiveHeap())
			}
		}
	}()
	var r checks.Result
	b.ResetTimer()
	for range b.N {
		r = checks.Run(ops, mk())[0]
	}
	b.StopTimer()
	close(stop)
	<-done
	peak = max(peak, linLiveHeap())
	b.ReportMetric(float64(peak-base)/(1<<20), "peak-MB")
	for _, v := range []checks.Verdict{checks.Pass, checks.Fail, checks.Undecided} {
		if r.Verdict == v {
			b.ReportMetric(1, string(v))
		}
	}
	summary := r.Summary
	if i := strings.Index(summary, "): "); i >= 0 {
		summary = summary[i+3:]
	}
	if len(summary) > 160 {
		summary = summary[:160] + "..."
	}
	b.Logf("%d ops, violation=%v: %s (%s)", len(ops), violation, r.Verdict, summary)
}

// linLiveHeap is the bytes of live and not yet swept heap objects.
func linLiveHeap() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
