package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/shards"
	"github.com/stormcheck/stormcheck/runner/targettest"
)

// shardRig is what a test of shard processes needs: the built binary, a
// context bounded at 4 minutes, a managed Azurite (stopped at the end), a
// temporary directory and the scenario text written in it as file.
type shardRig struct {
	bin, dir, file string
	ctx            context.Context
	inst           *azurite.Instance
}

func newShardRig(t *testing.T, file, scenario string) *shardRig {
	t.Helper()
	r := &shardRig{bin: buildBinary(t), dir: t.TempDir()}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	t.Cleanup(cancel)
	r.ctx = ctx
	inst, err := azurite.Start(ctx, azurite.Options{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Stop() })
	r.inst = inst
	r.file = filepath.Join(r.dir, file)
	if err := os.WriteFile(r.file, []byte(scenario), 0o644); err != nil {
		t.Fatal(err)
	}
	return r
}

// checkUploads checks that every shard of n uploaded its summary, history
// and scenario to container as <run id>/shard-<i>-of-<n>/, and says so in
// its log.
func (r *shardRig) checkUploads(t *testing.T, container, runID string, n int, logs [][]byte) {
	t.Helper()
	c, err := targettest.Open(r.inst.ConnectionString())
	if err != nil {
		t.Fatal(err)
	}
	svc := c.Blob
	uploaded := map[string]bool{}
	pager := svc.NewContainerClient(container).NewListBlobsFlatPager(nil)
	for pager.More() {
		page, err := pager.NextPage(r.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range page.Segment.BlobItems {
			uploaded[*b.Name] = true
		}
	}
	for i := range n {
		for _, f := range []string{runner.SummaryFile, runner.HistoryFile, runner.ScenarioFile} {
			if name := shards.Prefix(runID, i, n) + "/" + f; !uploaded[name] {
				t.Errorf("upload: %s missing (%d blobs in %s)", name, len(uploaded), container)
			}
		}
		if !strings.Contains(string(logs[i]), "uploaded") {
			t.Errorf("shard %d does not say it uploaded:\n%s", i, logs[i])
		}
	}
}

// runSideBySide runs the shard processes at once, as a Job's pods run, and
// returns each one's combined output and error once all have ended.
func runSideBySide(cmds []*exec.Cmd) (logs [][]byte, errs []error) {
	logs, errs = make([][]byte, len(cmds)), make([]error, len(cmds))
	var wg sync.WaitGroup
	for i, cmd := range cmds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			logs[i], errs[i] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	return logs, errs
}
