package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/reports"
)

// TestAbortOnFailStopsTheRun: a threshold with abort_on_fail that fails on
// the live figures (a median under a microsecond cannot hold) stops a
// 10-minute run at its first check after the 1 s delay, through the load's
// stop path (final reads and checks still run), and the run exits 5. What
// is asserted is what the run decided (the abort recorded in summary.json
// and when it was judged), not how fast it went.
func TestAbortOnFailStopsTheRun(t *testing.T) {
	tmp := t.TempDir()
	sc := filepath.Join(tmp, "t.yaml")
	src := `name: abort
duration: 10m
workloads:
  - {name: counter, kind: blob.etag-counter, actors: 2}
thresholds:
  - {threshold: "p50(blob.put) < 1us", abort_on_fail: true, delay_abort_eval: 1s}
  - "errors == 0"
`
	if err := os.WriteFile(sc, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "r")
	var out, errOut bytes.Buffer
	code := run([]string{"run", "--out", dir, "--progress", "none", sc}, &out, &errOut)
	if code != exitThreshold {
		t.Fatalf("exit %d, want %d (a threshold stopped the run)\n%s\n%s", code, exitThreshold, out.String(), errOut.String())
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum reports.Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	a := sum.AbortedBy
	if a == nil || a.Threshold != "p50(blob.put) < 1us" || a.AtSeconds < 1 || a.Actual < 0.001 {
		t.Fatalf("aborted_by_threshold: %+v, want p50(blob.put) < 1us judged from 1s on", a)
	}
	if sum.Interrupted {
		t.Errorf("an abort by threshold is recorded as an interrupt")
	}
	var found bool
	for _, r := range sum.Thresholds {
		if r.Threshold == a.Threshold {
			found = !r.Pass && r.Aborted
		}
	}
	if !found {
		t.Errorf("the aborting threshold is not failed and marked: %+v", sum.Thresholds)
	}
	for _, c := range sum.Checks {
		if c.Verdict == "" {
			t.Errorf("check %s has no verdict after the abort", c.Check)
		}
	}
	if !strings.Contains(out.String(), "FAIL  p50(blob.put) < 1us") || !strings.Contains(out.String(), "failed during the run") {
		t.Errorf("the report does not say the threshold failed during the run:\n%s", out.String())
	}
}
