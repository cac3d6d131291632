package runner

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/runner/azurite"
)

// TestRunIDInUseIsRefusedUntouched: a run given the run id of a run still
// on the target (running, or left after a third Ctrl-C) stops at its
// marker, saying what to do (it said only "HTTP 409 Conflict
// (ContainerAlreadyExists)"), and touches nothing of the other run.
func TestRunIDInUseIsRefusedUntouched(t *testing.T) {
	ctx, inst := startAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	tg := openTestTarget(ctx, t, inst)
	everything := plantLookAlikes(ctx, t, inst)
	const id = "0c0c0c0c"
	plantRun(ctx, t, tg, id, time.Now())
	before := everything()

	sc := parse(t, "name: again\ntarget: {kind: connection-string}\nworkloads:\n  - {name: counter, kind: blob.etag-counter, actors: 2, iterations: 20}\n")
	_, err := Run(ctx, sc, Options{ResultsDir: filepath.Join(t.TempDir(), "results"),
		Target: TargetOptions{ConnectionString: inst.ConnectionString()}, Shard: &Shard{Count: 1, RunID: id}})
	want := "run id 0c0c0c0c is in use on this target: its marker container sc0c0c0c0c exists"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "stormcheck cleanup --run 0c0c0c0c") {
		t.Fatalf("err = %v; want %q and the cleanup command", err, want)
	}
	if after := everything(); !slices.Equal(after, before) {
		t.Errorf("the other run's resources changed:\nbefore %v\nafter  %v", before, after)
	}
}
