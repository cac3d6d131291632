package runner

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/azurite"
	scblob "github.com/stormcheck/stormcheck/runner/blob"
	"github.com/stormcheck/stormcheck/runner/runtest"
	"github.com/stormcheck/stormcheck/runner/workload"
)

// blobCallsActor sets up what a test of the blob service's calls needs: a
// real Azurite, a container of its own (deleted at cleanup) and actor 0 of a
// workload environment recording every attempt into a history, as a run
// does. ctx bounds the test.
func blobCallsActor(t *testing.T, runID string) (context.Context, *scblob.Blobs, *workload.Actor) {
	t.Helper()
	ctx, inst := runtest.StartAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	tg := runtest.OpenTarget(ctx, t, inst)
	sc := runtest.Parse(t, "name: calls\nduration: 1s\nworkloads:\n  - {name: w, kind: blob.etag-counter}\n")
	dir := t.TempDir()
	start := time.Now()
	m := reports.NewMetrics(reports.MetricsOptions{HlogDir: filepath.Join(dir, HlogDir), Start: start, Workloads: []string{"w"}})
	t.Cleanup(func() { m.Close() })
	rec, err := workload.NewRecorder(filepath.Join(dir, HistoryFile), start, m)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rec.Close() })
	env := workload.NewEnv(sc.Workloads[0], sc, rec, tg, runID)
	b := &scblob.Blobs{C: tg.Blob.NewContainerClient(env.Prefix)}
	if _, err := b.C.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.C.Delete(context.Background(), nil) })
	return ctx, b, env.Actor(0)
}
