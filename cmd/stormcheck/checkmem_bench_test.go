package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/internal/synthhist"
	"github.com/stormcheck/stormcheck/runner"
)

var synthOps = flag.Int("synth-ops", 10_000_000, "operations in BenchmarkCheckMemory's synthetic history")

// BenchmarkCheckMemory runs `stormcheck check` (the built binary, as a child
// process) over a synthetic history of -synth-ops operations (default 10M:
// etag counters on 10,000 blobs, last-writer-wins blobs, create-once
// rounds; every check that applies: no-lost-updates, version-chain,
// linearizable, single-winner) and reports the child's peak RSS, the
// history's bytes per operation on disk and the check's wall time.
//
//	go test -run '^$' -bench CheckMemory -benchtime 1x -timeout 60m ./cmd/stormcheck/
func BenchmarkCheckMemory(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "stormcheck")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	res := filepath.Join(dir, "results")
	if err := os.MkdirAll(res, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(res, runner.ScenarioFile), []byte(synthhist.Scenario), 0o644); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(res, runner.HistoryFile)
	st, err := synthhist.WriteFile(path, synthhist.Default(*synthOps))
	if err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(path)
	b.ResetTimer()
	var rss int64
	var took time.Duration
	for b.Loop() {
		cmd := exec.Command(bin, "check", res)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		t0 := time.Now()
		err := cmd.Run()
		took = time.Since(t0)
		if err != nil && cmd.ProcessState.ExitCode() != exitUndecided {
			b.Fatalf("stormcheck check: %v\n%s%s", err, out.String(), errOut.String())
		}
		b.Logf("exit %d\n%s%s", cmd.ProcessState.ExitCode(), out.String(), errOut.String())
		// Linux reports KiB. An exec'd child's maxrss starts at its
		// parent's resident set, so this is max(child, this benchmark
		// process at the exec): an upper bound on the child's peak, and the
		// benchmark process holds little (the history was streamed to disk).
		rss = max(rss, cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss*1024)
	}
	b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
	b.ReportMetric(float64(fi.Size())/float64(st.Records), "disk-B/op")
	b.ReportMetric(float64(st.Bytes)/float64(st.Records), "json-B/op")
	b.ReportMetric(took.Seconds(), "check-s")
	b.ReportMetric(float64(st.Records), "records")
}
