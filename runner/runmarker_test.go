package runner

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/runtest"
	"github.com/stormcheck/stormcheck/runner/target"
)

// TestRunIDInUseIsRefusedUntouched: a run given the run id of a run still
// on the target (running, or left after a third Ctrl-C) stops at its
// marker, saying what to do (it said only "HTTP 409 Conflict
// (ContainerAlreadyExists)"), and touches nothing of the other run.
func TestRunIDInUseIsRefusedUntouched(t *testing.T) {
	ctx, inst := runtest.StartAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	tg := runtest.OpenTarget(ctx, t, inst)
	everything := plantLookAlikes(ctx, t, inst)
	const id = "0c0c0c0c"
	plantRun(ctx, t, tg, id, time.Now())
	before := everything()

	sc := runtest.Parse(t, "name: again\ntarget: {kind: connection-string}\nworkloads:\n  - {name: counter, kind: blob.etag-counter, actors: 2, iterations: 20}\n")
	_, err := Run(ctx, sc, Options{ResultsDir: filepath.Join(t.TempDir(), "results"),
		Target: target.Options{ConnectionString: inst.ConnectionString()}, Shard: &Shard{Count: 1, RunID: id}})
	want := "run id 0c0c0c0c is in use on this target: its marker container sc0c0c0c0c exists"
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "stormcheck cleanup --run 0c0c0c0c") {
		t.Fatalf("err = %v; want %q and the cleanup command", err, want)
	}
	if after := everything(); !slices.Equal(after, before) {
		t.Errorf("the other run's resources changed:\nbefore %v\nafter  %v", before, after)
	}
}

// cancelOnLine cancels when a line holding want is logged.
type cancelOnLine struct {
	want   string
	cancel context.CancelFunc
}

func (c cancelOnLine) Write(p []byte) (int, error) {
	if strings.Contains(string(p), c.want) {
		c.cancel()
	}
	return len(p), nil
}

// TestCtrlCDuringSetupIsNotATargetError: a Ctrl-C while the run sets up
// (here the moment it says so, before its marker) is said as such; it was
// said as the target's failure ("no answer (unknown): canceled; is the
// target running, and is this its Blob endpoint?").
func TestCtrlCDuringSetupIsNotATargetError(t *testing.T) {
	sc := runtest.Parse(t, "name: setup\nworkloads:\n  - {name: counter, kind: blob.etag-counter, actors: 2, keys: 50, iterations: 20}\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sum, err := Run(ctx, sc, Options{ResultsDir: filepath.Join(t.TempDir(), "results"), Log: cancelOnLine{"setting up", cancel}})
	if err == nil || !strings.Contains(err.Error(), "setup interrupted before it finished (Ctrl-C)") || strings.Contains(err.Error(), "is the target running") {
		t.Fatalf("err = %v", err)
	}
	if sum == nil || !sum.Interrupted {
		t.Errorf("summary not marked interrupted: %+v", sum)
	}
}
