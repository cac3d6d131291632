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

// runSMBExample runs example (shortened to 3 s) with extra appended before
// its checks (faults), and returns the exit code and the summary.
func runSMBExample(t *testing.T, example, faults string, args ...string) (int, *reports.Summary, string) {
	t.Helper()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		t.Skip("no managed Samba here: smbd runs as root on Linux")
	}
	src, err := os.ReadFile(filepath.Join("../../scenarios/examples", example))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), example)
	text := strings.Replace(string(src), "\nchecks:", "\n"+faults+"checks:", 1)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	var out, errOut bytes.Buffer
	code := run(append([]string{"run", "--out", dir, path, "--duration", "3s", "--progress", "lines"}, args...), &out, &errOut)
	s, err := reports.ReadSummary(filepath.Join(dir, "summary.json"))
	if err != nil || len(s.Checks) != 1 {
		t.Fatalf("exit %d, summary %v\n%s\n%s", code, err, out.String(), errOut.String())
	}
	for _, w := range s.Workloads {
		for _, o := range w.Ops {
			if !scenarios.KindEmits(w.Kind, o.Op) {
				t.Errorf("%s recorded op %q, which its kind does not declare", w.Kind, o.Op)
			}
		}
	}
	return code, s, out.String() + errOut.String()
}

// TestSMBExamplesUnderFaults: the byte-range locks, leases and delete-pending examples on
// the managed Samba exit 0 with their check passing, also under a net.*
// fault on the SMB connections (resets after the request was forwarded);
// under their broken promise (a stage on the SMB stream) their check
// fails and the run exits 1.
func TestSMBExamplesUnderFaults(t *testing.T) {
	const reset = "faults:\n  - kind: net.reset-after\n    at: 1s\n    for: 1s\n    fraction: 0.5\n"
	for _, tc := range []struct {
		example, check, broken string
		args                   []string
	}{
		{"files-byte-range-locks.yaml", "byte-range-locks", "broken.smb-lock-shared", nil},
		{"files-leases.yaml", "lease-breaks", "broken.smb-lease-write", nil},
		// Samba's delete race is counted as its known divergence, not
		// failed. The test holds the example to 2 actors, as the fault
		// matrix's row does: the fewer racers, the fewer opens whose holder
		// the history cannot place, and the shorter the run under -race.
		{"files-delete-pending.yaml", "delete-pending", "broken.smb-keep-file", []string{"--set", "delete.actors=2"}},
	} {
		t.Run(tc.check, func(t *testing.T) {
			for _, faults := range []string{"", reset} {
				code, s, text := runSMBExample(t, tc.example, faults, tc.args...)
				if c := s.Checks[0]; code != exitOK || c.Check != tc.check || c.Verdict != "pass" || c.Decided == 0 {
					t.Fatalf("faults %q: exit %d, check %+v\n%s", faults, code, c, text)
				}
			}
			code, s, text := runSMBExample(t, tc.example, "faults:\n  - kind: "+tc.broken+"\n", tc.args...)
			if c := s.Checks[0]; code != exitViolation || c.Verdict != "fail" || !strings.Contains(text, "THIS RUN BREAKS THE SERVICE ON PURPOSE") {
				t.Fatalf("%s: exit %d, check %+v\n%s", tc.broken, code, c, text)
			}
		})
	}
}
