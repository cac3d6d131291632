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
	bin := buildStormcheck(b, dir)
	res, st, size := synthResults(b, filepath.Join(dir, "results"), synthhist.Default(*synthOps))
	b.ResetTimer()
	var rss int64
	var took time.Duration
	for b.Loop() {
		t0 := time.Now()
		ps := checkSynth(b, bin, res)
		took = time.Since(t0)
		// Linux reports KiB. An exec'd child's maxrss starts at its
		// parent's resident set, so this is max(child, this benchmark
		// process at the exec): an upper bound on the child's peak, and the
		// benchmark process holds little (the history was streamed to disk).
		rss = max(rss, ps.SysUsage().(*syscall.Rusage).Maxrss*1024)
	}
	b.ReportMetric(float64(rss)/(1<<20), "peak-RSS-MiB")
	b.ReportMetric(float64(size)/float64(st.Records), "disk-B/op")
	b.ReportMetric(float64(st.Bytes)/float64(st.Records), "json-B/op")
	b.ReportMetric(took.Seconds(), "check-s")
	b.ReportMetric(float64(st.Records), "records")
}

// buildStormcheck builds the command into dir and returns its path.
func buildStormcheck(b *testing.B, dir string) string {
	b.Helper()
	bin := filepath.Join(dir, "stormcheck")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// synthResults writes a results directory (scenario and compressed
// history) holding the synthetic history of cfg; it returns the directory,
// what was written and the history's size on disk.
func synthResults(b *testing.B, res string, cfg synthhist.Config) (string, synthhist.Stats, int64) {
	b.Helper()
	if err := os.MkdirAll(res, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(res, runner.ScenarioFile), []byte(synthhist.Scenario), 0o644); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(res, runner.HistoryFile)
	st, err := synthhist.WriteFile(path, cfg)
	if err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return res, st, fi.Size()
}

// checkSynth runs `stormcheck check res` as a child process and returns
// its state (exit 0 or 4, undecided, are expected; anything else fails).
func checkSynth(b *testing.B, bin, res string) *os.ProcessState {
	b.Helper()
	cmd := exec.Command(bin, "check", res)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if err != nil && cmd.ProcessState.ExitCode() != exitUndecided {
		b.Fatalf("stormcheck check: %v\n%s%s", err, out.String(), errOut.String())
	}
	b.Logf("exit %d\n%s%s", cmd.ProcessState.ExitCode(), out.String(), errOut.String())
	return cmd.ProcessState
}
