package merge

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
)

// benchShards writes n shard histories of per records each, as shards of
// an etag-counter race write them (reads, If-Match writes, 412s).
func benchShards(b *testing.B, n, per int) []HistoryShard {
	b.Helper()
	dir := b.TempDir()
	var shards []HistoryShard
	for s := range n {
		p := filepath.Join(dir, fmt.Sprintf("h%d.jsonl.zst", s))
		f, err := os.Create(p)
		if err != nil {
			b.Fatal(err)
		}
		z, _ := checks.NewHistoryWriter(f)
		var line []byte
		for i := range per {
			t := int64(i) * int64(100*time.Microsecond)
			op := &checks.Op{Seq: uint64(i + 1), Actor: s*8 + i%8, Workload: "race", Kind: "blob.put", Key: fmt.Sprintf("k%d", i%4), Attempt: 1,
				Intended: t, Call: t + 1000, Return: t + 900_000, Outcome: checks.OK,
				In:  checks.Input{IfMatch: fmt.Sprintf("\"0x8DD%010X\"", i), Value: fmt.Sprintf("a%d-%d", s*8+i%8, i)},
				Out: checks.Output{Status: 201, ETag: fmt.Sprintf("\"0x8DD%010X\"", i+1), RequestID: "5f2c1d3e-0001-0000-0000-000000000000"}}
			if i%3 == 0 {
				op.Kind, op.In = "blob.get", checks.Input{}
				op.Out = checks.Output{Status: 200, ETag: op.Out.ETag, Value: fmt.Sprintf("a%d", i)}
			}
			line = op.AppendJSONLine(line[:0])
			z.Write(line)
		}
		z.Close()
		f.Close()
		shards = append(shards, HistoryShard{Path: p, Shift: time.Duration(s) * time.Millisecond, Widen: 100 * time.Millisecond})
	}
	return shards
}

// BenchmarkMergeHistories: merging 4 shards' histories k-way into one
// compressed history, beside reading the same four histories one after the
// other (what any pass over a run's history costs), at two lengths: the
// live heap's peak stays flat as the histories grow (one record per shard
// is held). Run: go test -run '^$' -bench MergeHistories -benchmem -benchtime 1x ./reports/
func BenchmarkMergeHistories(b *testing.B) {
	const n = 4
	for _, per := range []int{25_000, 100_000} {
		shards := benchShards(b, n, per)
		b.Run(fmt.Sprintf("read-4x%dk", per/1000), func(b *testing.B) {
			peak := heapPeak()
			for b.Loop() {
				for _, s := range shards {
					if err := checks.ReadHistoryFile(s.Path, func(*checks.Op) error { return nil }); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(peak())/(1<<20), "MB-heap-peak")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n*per), "ns/record")
		})
		b.Run(fmt.Sprintf("merge-4x%dk", per/1000), func(b *testing.B) {
			peak := heapPeak()
			for b.Loop() {
				z, _ := checks.NewHistoryWriter(io.Discard)
				if _, _, err := MergeHistories(shards, z, nil); err != nil {
					b.Fatal(err)
				}
				z.Close()
			}
			b.ReportMetric(float64(peak())/(1<<20), "MB-heap-peak")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n*per), "ns/record")
		})
	}
}

// heapPeak samples the live heap every 5 ms until the returned function
// is called, which returns the largest sample: what a streaming merge
// holds stays flat however long the histories are.
func heapPeak() func() uint64 {
	runtime.GC()
	stop := make(chan struct{})
	done := make(chan uint64)
	go func() {
		var peak uint64
		var ms runtime.MemStats
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-stop:
				done <- peak
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(stop); return <-done }
}
