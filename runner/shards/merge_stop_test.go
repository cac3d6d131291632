package shards

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner"
)

// TestMergeStopsAtItsNextStep: once its context is done, MergeShards
// starts no further step and returns no summary, and the staged folder it
// wrote into is discarded whole: OUT never appears.
func TestMergeStopsAtItsNextStep(t *testing.T) {
	shards, err := Read(twoShards(t, 20*time.Millisecond, reports.ClockOffset{}))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "merged")
	sd, err := runner.StageResultsDir(out)
	if err != nil {
		t.Fatal(err)
	}
	ctx, interrupt := context.WithCancel(context.Background())
	var said []string
	sum, err := Merge(ctx, sd.Temp, shards, func(f string, a ...any) {
		said = append(said, f)
		if strings.HasPrefix(f, "merging the histories") {
			interrupt() // during the history's merge
		}
	})
	if sum != nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("after the interrupt: summary %v, error %v; want none and the interrupt", sum != nil, err)
	}
	for _, f := range said {
		if strings.HasPrefix(f, "checking") {
			t.Errorf("a step started after the interrupt: %q", f)
		}
	}
	if _, err := os.Stat(filepath.Join(sd.Temp, runner.SummaryFile)); err == nil {
		t.Error("a summary was written after the interrupt")
	}
	if !sd.Discard() {
		t.Fatal("Discard after no Commit must discard")
	}
	if err := sd.Commit(); !errors.Is(err, runner.ErrDiscarded) {
		t.Errorf("Commit after Discard: %v, want ErrDiscarded", err)
	}
	if es, _ := os.ReadDir(filepath.Dir(out)); len(es) != 0 {
		t.Errorf("left beside OUT: %v", es)
	}
}

// TestStagedResultsDir: OUT is refused as a run's results folder is (a
// folder with entries is left as it was, nothing made beside it); an empty
// OUT stays as it is until Commit replaces it with the whole results; a
// Discard after Commit leaves them.
func TestStagedResultsDir(t *testing.T) {
	parent := t.TempDir()
	used := filepath.Join(parent, "used")
	if err := os.MkdirAll(filepath.Join(used, "old"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := runner.StageResultsDir(used); !errors.Is(err, runner.ErrResultsDirRefused) {
		t.Errorf("a used OUT: %v, want refused", err)
	}
	empty := filepath.Join(parent, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	sd, err := runner.StageResultsDir(empty)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sd.Temp, runner.SummaryFile), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if es, _ := os.ReadDir(empty); len(es) != 0 {
		t.Errorf("OUT written before Commit: %v", es)
	}
	if err := sd.Commit(); err != nil {
		t.Fatal(err)
	}
	if sd.Discard() {
		t.Error("Discard after Commit says it discarded")
	}
	if _, err := os.Stat(filepath.Join(empty, runner.SummaryFile)); err != nil {
		t.Errorf("after Commit: %v", err)
	}
	if fi, err := os.Stat(empty); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("OUT: %v, mode %v; want 0755 as a results folder", err, fi.Mode().Perm())
	}
	es, _ := os.ReadDir(parent)
	if len(es) != 2 {
		t.Errorf("beside OUT: %v, want only used and empty", es)
	}
}
