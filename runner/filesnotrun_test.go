package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/runtest"
	"github.com/stormcheck/stormcheck/runner/target"
)

// TestFilesRESTNotRunWithoutAnAccount: a scenario with a Files REST
// workload beside a blob workload, on a managed Azurite (no File service)
// and on Azurite's connection string (whose file endpoint would be derived
// to a public host), runs the blob workload and says, in the summary, that
// the Files workload was not run and why; nothing is sent for it. With
// only Files REST workloads the run fails, naming them.
func TestFilesRESTNotRunWithoutAnAccount(t *testing.T) {
	_, inst := runtest.StartAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	const mixed = "name: files-not-run\nduration: 1s\nworkloads:\n" +
		"  - {name: lww, kind: blob.lww, actors: 1, keys: 1}\n" +
		"  - {name: ranges, kind: files.rest-ranges, actors: 2, keys: 1}\n"
	for _, to := range []target.Options{{Azurite: inst}, {ConnectionString: inst.ConnectionString()}} {
		sum, err := Run(context.Background(), runtest.Parse(t, mixed), Options{ResultsDir: filepath.Join(t.TempDir(), "results"), Target: to})
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		if len(sum.NotRun) != 1 || !strings.HasPrefix(sum.NotRun[0], "workload ranges: files.rest-ranges: ") ||
			!strings.Contains(sum.NotRun[0], "target kind connection-string") {
			t.Fatalf("not run: %q", sum.NotRun)
		}
		for _, w := range sum.Workloads {
			if w.Name == "ranges" && len(w.Ops) > 0 {
				t.Errorf("the Files workload recorded ops: %+v", w.Ops)
			}
		}
	}
	only := "name: files-only\nduration: 1s\nworkloads:\n  - {name: ranges, kind: files.rest-ranges, actors: 2, keys: 1}\n"
	_, err := Run(context.Background(), runtest.Parse(t, only), Options{ResultsDir: filepath.Join(t.TempDir(), "results"), Target: target.Options{Azurite: inst}})
	if err == nil || !strings.Contains(err.Error(), "no workload of the scenario can run") || !strings.Contains(err.Error(), "Azurite has no File service") {
		t.Fatalf("files-only run: %v", err)
	}
}
