package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/cleanup"
)

// TestCleanupFindsWhatAnSMBRunLeft: a run against the managed Samba keeps
// its share in its results folder, and the files its workload made stay
// there (as after a killed run, whose final steps never came); cleanup,
// given the results folder and the run id, lists them in a dry run,
// deletes them, and leaves what is not the run's. Given the scenario file
// instead, it says where a managed Samba's share is (exit 2).
func TestCleanupFindsWhatAnSMBRunLeft(t *testing.T) {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("no managed Samba here: smbd runs as root on Linux")
	}
	dir := filepath.Join(t.TempDir(), "out")
	const example = "../../scenarios/examples/files-share-modes.yaml"
	if code, out, errOut := runCLI("run", "--out", dir, example, "--duration", "1s", "--progress", "none"); code != exitOK {
		t.Fatalf("run: exit %d\n%s\n%s", code, out, errOut)
	}
	s, err := reports.ReadSummary(filepath.Join(dir, "summary.json"))
	if err != nil || s.RunID == "" {
		t.Fatalf("summary: %v %+v", err, s)
	}
	share := cleanup.SambaShareDir(dir)
	left, _ := filepath.Glob(filepath.Join(share, cleanup.RunPrefix(s.RunID)+"*"))
	if len(left) != 3 { // the example's three counter files
		t.Fatalf("the run's files in %s: %v, want 3", share, left)
	}
	other := filepath.Join(share, "not-a-run.txt")
	if err := os.WriteFile(other, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := runCLI("cleanup", "--run", s.RunID, "--dry-run", dir)
	if code != exitOK || !strings.Contains(out, "would delete 3 entries") || !strings.Contains(out, "would delete file "+cleanup.RunPrefix(s.RunID)) {
		t.Fatalf("dry run: exit %d\n%s\n%s", code, out, errOut)
	}
	if got, _ := filepath.Glob(filepath.Join(share, "*")); len(got) != 4 {
		t.Fatalf("a dry run deleted something: %v", got)
	}
	if code, out, errOut = runCLI("cleanup", "--run", s.RunID, dir); code != exitOK || !strings.Contains(out, "deleted 3 entries") {
		t.Fatalf("cleanup: exit %d\n%s\n%s", code, out, errOut)
	}
	if got, _ := filepath.Glob(filepath.Join(share, "*")); len(got) != 1 || got[0] != other {
		t.Fatalf("after cleanup the share holds %v, want only %s", got, other)
	}
	if code, out, _ = runCLI("cleanup", "--run", s.RunID, dir); code != exitOK || !strings.Contains(out, "nothing to delete") {
		t.Fatalf("second cleanup: exit %d\n%s", code, out)
	}
	if code, _, errOut = runCLI("cleanup", "--run", s.RunID, example); code != exitUsage || !strings.Contains(errOut, "its share is in each run's results folder") {
		t.Fatalf("cleanup given the scenario: exit %d\n%s", code, errOut)
	}
}
