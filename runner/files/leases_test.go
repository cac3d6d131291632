package files_test

import (
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/samba"
	"github.com/stormcheck/stormcheck/runner/samba/sambatest"
)

// TestLeaseBreaksBrokenPromise: the example's workload against Samba
// passes lease-breaks, with opens that had to wait for a break; against a
// Samba that grants every oplock and never breaks one ("fake oplocks =
// yes"), other clients' opens complete while a batch oplock is held, and
// the check fails.
func TestLeaseBreaksBrokenPromise(t *testing.T) {
	inst := sambatest.Start(t, samba.Options{})
	r := driveExample(t, "files-leases.yaml", inst, inst.Addr, 0, 150, "lease-breaks")
	if r.Verdict != checks.Pass || r.Decided == 0 || strings.Contains(r.Summary, " 0 opens called while write caching was held") {
		t.Fatalf("unmodified server: %s %s %+v", r.Verdict, r.Summary, r.Violations)
	}
	t.Log(r.Summary)
	broken := sambatest.Start(t, samba.Options{FakeOplocks: true})
	r = driveExample(t, "files-leases.yaml", broken, broken.Addr, 0, 150, "lease-breaks")
	if r.Verdict != checks.Fail || !strings.Contains(r.Violations[0].Message, "had not acknowledged its break") {
		t.Fatalf("fake oplocks: %s %s", r.Verdict, r.Summary)
	}
	t.Log(r.Summary)
}
