package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/reports"
)

// TestQuickstartThroughTheCommandLine runs the quickstart as a user does,
// shortened to 3 s, against a managed Azurite, and reads back its results.
func TestQuickstartThroughTheCommandLine(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var out, errOut bytes.Buffer
	// Flags after the file; the overrides go through the loader and into
	// the scenario kept with the results.
	code := run([]string{"run", "--out", dir, "../../scenarios/examples/quickstart.yaml", "--duration", "3s", "--progress", "lines", "--actors", "4", "--set", "counter.payload_bytes=64"}, &out, &errOut)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	report := out.String()
	for _, want := range []string{"managed Azurite 3.37.0", "blob.put", "blob.create", "p99", "PASS", "no-lost-updates", "single-winner", "exit code 0"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	if !strings.Contains(errOut.String(), "starting Azurite") || !strings.Contains(errOut.String(), "counter:") {
		t.Errorf("no progress on stderr:\n%s", errOut.String())
	}
	if !strings.Contains(report, "closed loop, 4 actors") {
		t.Errorf("--actors 4 not applied:\n%s", report)
	}
	kept, _ := os.ReadFile(filepath.Join(dir, "scenario.yaml"))
	if !strings.Contains(string(kept), "run with --duration 3s --actors 4 --set counter.payload_bytes=64") || !strings.Contains(string(kept), "payload_bytes: 64") {
		t.Errorf("the kept scenario does not show the overrides:\n%s", kept)
	}
	s, err := reports.ReadSummary(filepath.Join(dir, "summary.json"))
	if err != nil || s.ExitCode != exitOK || len(s.Checks) != 2 {
		t.Fatalf("summary: %v %+v", err, s)
	}
	// The saved run can be re-reported and re-checked from its directory alone.
	out.Reset()
	if code := run([]string{"report", dir}, &out, &errOut); code != exitOK || !strings.Contains(out.String(), "single-winner") {
		t.Errorf("report: exit %d\n%s", code, out.String())
	}
	if !strings.Contains(report, "summary      summary.json") && !strings.Contains(report, "summary.json") {
		t.Errorf("the files list lacks summary.json:\n%s", report)
	}
	out.Reset()
	if code := run([]string{"check", dir}, &out, &errOut); code != exitOK || !strings.Contains(out.String(), "PASS") {
		t.Errorf("check: exit %d\n%s", code, out.String())
	}
	// check prints the saved run's own header, not seed 0 and elapsed 0s.
	want := fmt.Sprintf("seed %d", s.Seed)
	if !strings.Contains(out.String(), want) || strings.Contains(out.String(), "elapsed 0s") || !strings.Contains(out.String(), s.Target) {
		t.Errorf("check header lacks %q or the run's elapsed/target:\n%s", want, out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "azurite.log")); err != nil {
		t.Error(err)
	}
}
