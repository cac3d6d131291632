package files_test

import (
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/samba"
	"github.com/stormcheck/stormcheck/runner/samba/sambatest"
)

// TestDeletePendingOneActorPasses: one actor's deletes, clears, opens and
// listings, one after another on the managed Samba, keep every rule the
// check holds (several racing actors do not on Samba 4.17: an open racing
// the last close of a delete-pending file is granted a handle on the file
// that close then unlinks, which the check reports).
func TestDeletePendingOneActorPasses(t *testing.T) {
	inst := sambatest.Start(t, samba.Options{})
	r := driveExample(t, "files-delete-pending.yaml", inst, inst.Addr, 1, 400, "delete-pending")
	if r.Verdict != checks.Pass || r.Decided == 0 {
		t.Fatalf("%s %s %+v", r.Verdict, r.Summary, r.Violations)
	}
	t.Log(r.Summary)
}
