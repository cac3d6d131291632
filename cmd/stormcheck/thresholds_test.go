package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestThresholdExitCodeAndCompare runs one short scenario twice with
// thresholds: a failed threshold exits 5 and is in the report and
// summary.json; compare of the two runs prints the table. The thresholds
// that must pass cannot fail on a slow machine (no errors; at least one
// read in 3 s), the one that must fail cannot pass on a fast one (a
// median under a microsecond).
func TestThresholdExitCodeAndCompare(t *testing.T) {
	tmp := t.TempDir()
	sc := filepath.Join(tmp, "t.yaml")
	src := `name: thresholds
duration: 3s
workloads:
  - {name: counter, kind: blob.etag-counter, actors: 4}
thresholds:
  - "p50(blob.put) < 1us"
  - "errors == 0"
  - "throughput(counter/blob.get) > 0.1"
`
	if err := os.WriteFile(sc, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	var dirs []string
	for i := 0; i < 2; i++ {
		dir := filepath.Join(tmp, "r"+string(rune('a'+i)))
		var out, errOut bytes.Buffer
		code := run([]string{"run", "--out", dir, "--progress", "none", sc}, &out, &errOut)
		if code != exitThreshold {
			t.Fatalf("exit %d, want %d (a threshold failed)\n%s\n%s", code, exitThreshold, out.String(), errOut.String())
		}
		for _, want := range []string{"thresholds: 2 pass, 1 fail", "FAIL  p50(blob.put) < 1us", "PASS  errors == 0"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("report lacks %q:\n%s", want, out.String())
			}
		}
		b, _ := os.ReadFile(filepath.Join(dir, "summary.json"))
		if !strings.Contains(string(b), `"threshold": "p50(blob.put) < 1us"`) {
			t.Errorf("summary.json lacks the threshold verdicts")
		}
		dirs = append(dirs, dir)
	}
	// Two real runs one after the other on a loaded machine can differ by
	// any factor a load spike makes (p50 2 ms then 15 ms): a tolerance of
	// 1e9 (a change a 3 s run cannot make) keeps this a test of compare
	// reading thresholded runs, not of the machine's steadiness; the
	// verdict is TestCompareVerdictOnSyntheticRuns'.
	var out, errOut bytes.Buffer
	// One of two runs side by side may find the client short of CPU and the
	// other not: then no verdict (exit 4), never a regression.
	code := run([]string{"compare", "--tolerance", "1e9", dirs[0], dirs[1]}, &out, &errOut)
	if !strings.Contains(out.String(), "workload counter") ||
		!(code == exitOK && strings.Contains(out.String(), "no regression") || code == exitUndecided && strings.Contains(out.String(), "not comparable")) {
		t.Errorf("compare exit %d:\n%s\n%s", code, out.String(), errOut.String())
	}
	if code := run([]string{"compare", dirs[0]}, &out, &errOut); code != exitUsage {
		t.Errorf("compare with one run: exit %d", code)
	}
}
