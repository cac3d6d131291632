package main

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/scenarios"
)

// TestFilesShareModesExample runs scenarios/examples/files-share-modes.yaml,
// shortened to 3 s, against the managed Samba the run starts: exit 0, the
// share-modes check passes having judged granted opens and the three
// counters, and opens were both granted and refused (the race happened).
func TestFilesShareModesExample(t *testing.T) {
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("no managed Samba here: smbd runs as root on Linux")
	}
	dir := filepath.Join(t.TempDir(), "out")
	var out, errOut bytes.Buffer
	code := run([]string{"run", "--out", dir, "../../scenarios/examples/files-share-modes.yaml", "--duration", "3s", "--progress", "lines"}, &out, &errOut)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	report := out.String()
	for _, want := range []string{"managed Samba (127.0.0.1:", "files.open", "files.write", "PASS", "share-modes"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	s, err := reports.ReadSummary(filepath.Join(dir, "summary.json"))
	if err != nil || s.ExitCode != exitOK || len(s.Checks) != 1 {
		t.Fatalf("summary: %v %+v", err, s)
	}
	if c := s.Checks[0]; c.Check != "share-modes" || c.Verdict != "pass" || c.Decided == 0 || !strings.Contains(c.Summary, "3 counters judged") {
		t.Errorf("check: %+v", c)
	}
	var open map[string]int64
	for _, w := range s.Workloads {
		for _, o := range w.Ops {
			// every op the run records is one the kind declares (validate
			// checks thresholds against that list; runner's
			// TestKindOpsMatchWhatTheWorkloadsRecord covers the HTTP kinds)
			if !scenarios.KindEmits("files.share-modes", o.Op) {
				t.Errorf("files.share-modes recorded op %q, which its kind does not declare", o.Op)
			}
			if o.Op == "files.open" {
				open = o.Outcomes
			}
		}
	}
	if open["ok"] == 0 || open["conflict"] == 0 {
		t.Errorf("files.open: want granted and refused opens, got %v", open)
	}
}
