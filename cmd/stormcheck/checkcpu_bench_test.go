package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/internal/synthhist"
)

var cpuOps = flag.Int("cpu-ops", 250_000, "operations in BenchmarkCheckCPU's smaller synthetic history (the larger has four times as many)")

// BenchmarkCheckCPU shows whether `stormcheck check` takes CPU in
// proportion to the history: it runs the built binary, as a child process,
// over synthetic histories of -cpu-ops and four times -cpu-ops operations
// (internal/synthhist's mix, as BenchmarkCheckMemory) side by side and
// reports the child's CPU time (user + system, from the kernel) per record
// at each size, and on the larger one its ratio to the smaller
// (x-smaller): 1 is linear, 4 would be quadratic. The
// "complete" histories end with their final reads; the "cut" ones are a
// killed run's (no final reads, the last record half written: every check
// but one is undecided, and says so for each key).
//
//	go test -run '^$' -bench CheckCPU -benchtime 1x -timeout 30m ./cmd/stormcheck/
func BenchmarkCheckCPU(b *testing.B) {
	bin := buildStormcheck(b, b.TempDir())
	small, large := *cpuOps, 4**cpuOps
	for _, cut := range []bool{false, true} {
		name := "complete"
		if cut {
			name = "cut"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			var first float64 // CPU per record at the smaller size
			for _, n := range []int{small, large} {
				b.Run(fmt.Sprint(n), func(b *testing.B) {
					cfg := synthhist.Default(n)
					cfg.Cut = cut
					res, st, _ := synthResults(b, filepath.Join(dir, fmt.Sprint(n)), cfg)
					b.ResetTimer()
					var cpu time.Duration
					for range b.N {
						ps := checkSynth(b, bin, res)
						cpu += ps.UserTime() + ps.SystemTime()
					}
					perRecord := float64(cpu.Microseconds()) / float64(b.N) / float64(st.Records)
					b.ReportMetric(perRecord, "cpu-µs/record")
					b.ReportMetric(float64(st.Records), "records")
					if n == small {
						first = perRecord
					} else {
						b.ReportMetric(perRecord/first, "x-smaller")
					}
				})
			}
		})
	}
}
