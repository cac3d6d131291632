package files_test

import (
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/samba"
	"github.com/stormcheck/stormcheck/runner/samba/sambatest"
)

// TestByteRangeLocksBrokenPromise: the example's workload against Samba
// passes byte-range-locks; against a Samba that grants every lock and
// refuses no I/O ("locking = no"), the check fails.
func TestByteRangeLocksBrokenPromise(t *testing.T) {
	inst := sambatest.Start(t, samba.Options{})
	if r := driveExample(t, "files-byte-range-locks.yaml", inst, inst.Addr, 0, 150, "byte-range-locks"); r.Verdict != checks.Pass || r.Decided == 0 {
		t.Fatalf("unmodified server: %s %s %+v", r.Verdict, r.Summary, r.Violations)
	}
	broken := sambatest.Start(t, samba.Options{IgnoreByteRangeLocks: true})
	r := driveExample(t, "files-byte-range-locks.yaml", broken, broken.Addr, 0, 150, "byte-range-locks")
	if r.Verdict != checks.Fail || !strings.Contains(r.Violations[0].Message, "held at the same time") && !strings.Contains(r.Violations[0].Message, "answered OK inside") {
		t.Fatalf("locking = no: %s %s", r.Verdict, r.Summary)
	}
	t.Log(r.Summary)
}
