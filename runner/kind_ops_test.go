package runner

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/runtest"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/targettest"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// TestKindOpsMatchWhatTheWorkloadsRecord runs every kind for a few seconds
// on Azurite and checks that each op name a workload records is one its
// kind declares (scenarios.Kinds[kind].Ops): validate refuses a threshold
// naming an op outside that list, so a missing name would refuse a valid
// threshold. A declared op no short run records is reported only if it
// appears nowhere in the runner (a stale name).
func TestKindOpsMatchWhatTheWorkloadsRecord(t *testing.T) {
	_, inst := runtest.StartAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	kinds := targettest.HTTPKinds(workload.Kinds()) // the SMB kinds run on Samba: cmd/stormcheck's TestFilesShareModesExample checks theirs
	w, names := targettest.EveryKind(kinds)
	src := "name: kind-ops\nduration: 4s\ntimeout: 5s\ntarget: {kind: connection-string}\n" + w
	sum, err := Run(context.Background(), runtest.Parse(t, src), Options{
		ResultsDir: filepath.Join(t.TempDir(), "results"),
		Target:     target.Options{ConnectionString: inst.ConnectionString()},
	})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	seen := map[string]map[string]bool{}
	for _, ws := range sum.Workloads {
		seen[ws.Name] = map[string]bool{}
		for _, o := range ws.Ops {
			seen[ws.Name][o.Op] = true
		}
	}
	for _, kind := range kinds {
		declared := scenarios.Kinds[kind].Ops
		if len(declared) == 0 {
			t.Errorf("kind %s declares no ops", kind)
		}
		rec := seen[names[kind]]
		if len(rec) == 0 {
			t.Errorf("kind %s recorded no op in the run", kind)
		}
		for op := range rec {
			if !scenarios.KindEmits(kind, op) {
				t.Errorf("kind %s recorded op %q, which scenarios.Kinds[%q].Ops does not list (%v)", kind, op, kind, declared)
			}
		}
		for _, op := range declared {
			if !rec[op] {
				t.Logf("kind %s: declared op %s not recorded in this short run", kind, op)
			}
		}
	}
}
