package runner

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/cleanup"
	"github.com/stormcheck/stormcheck/runner/runtest"
	"github.com/stormcheck/stormcheck/runner/table"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/targettest"
)

// plantLookAlikes creates targettest.LookAlikes on inst, and returns a
// lister of everything the target holds.
func plantLookAlikes(ctx context.Context, t *testing.T, inst *azurite.Instance) func() []string {
	t.Helper()
	c, err := targettest.Open(inst.ConnectionString())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.PlantLookAlikes(ctx); err != nil {
		t.Fatal(err)
	}
	return func() []string {
		all, err := c.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return all
	}
}

// plantRun leaves what an interrupted run leaves: its stamped marker, and a
// container, a table and a queue named with its prefix.
func plantRun(ctx context.Context, t *testing.T, tg *target.Target, id string, created time.Time) {
	t.Helper()
	if err := cleanup.MarkRun(ctx, tg, id, created); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Blob.CreateContainer(ctx, cleanup.RunPrefix(id)+"counter", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Table.CreateTable(ctx, table.TableName(cleanup.RunPrefix(id)+"entities"), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Queue.CreateQueue(ctx, cleanup.RunPrefix(id)+"messages-q0", nil); err != nil {
		t.Fatal(err)
	}
}

// TestCleanupRunsDeletesOnlyMarkedRuns plants two earlier runs (one two
// days old, one new) beside look-alikes, and cleans them up the ways the
// command does: a dry run deletes nothing, --older-than takes only the old
// run, --run the other; the look-alikes survive every step.
func TestCleanupRunsDeletesOnlyMarkedRuns(t *testing.T) {
	ctx, inst := runtest.StartAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	tg := runtest.OpenTarget(ctx, t, inst)
	everything := plantLookAlikes(ctx, t, inst)
	now := time.Now()
	plantRun(ctx, t, tg, "0a0a0a0a", now.Add(-48*time.Hour))
	plantRun(ctx, t, tg, "0b0b0b0b", now)
	before := everything()

	runs, err := cleanup.Runs(ctx, tg, cleanup.Options{OlderThan: 24 * time.Hour, DryRun: true, Now: now})
	if err != nil || len(runs) != 1 || runs[0].Mark.ID != "0a0a0a0a" || len(runs[0].Resources) != 3 {
		t.Fatalf("dry run: %+v, %v; want run 0a0a0a0a with its 3 resources", runs, err)
	}
	if after := everything(); !slices.Equal(after, before) {
		t.Fatalf("a dry run deleted something:\nbefore %v\nafter  %v", before, after)
	}

	runs, err = cleanup.Runs(ctx, tg, cleanup.Options{OlderThan: 24 * time.Hour, Now: now})
	if err != nil || len(runs) != 1 || runs[0].Err != nil {
		t.Fatalf("older than 24h: %+v, %v", runs, err)
	}
	after := everything()
	for _, n := range after {
		if strings.Contains(n, "0a0a0a0a") {
			t.Errorf("the old run's %s is still there", n)
		}
	}
	if !slices.Contains(after, "container sc0b0b0b0b") || !slices.Contains(after, "queue sc0b0b0b0b-messages-q0") {
		t.Errorf("--older-than 24h deleted the new run: %v", after)
	}

	if _, err := cleanup.Runs(ctx, tg, cleanup.Options{RunID: "0b0b0b0b"}); err != nil {
		t.Fatal(err)
	}
	if got, want := everything(), targettest.SortedLookAlikes(); !slices.Equal(got, want) {
		t.Errorf("after both cleanups the target holds\n%v\nwant only the look-alikes\n%v", got, want)
	}

	for _, id := range []string{"0badc0de", "1234abcd"} { // shaped like runs, not stormcheck's
		if _, err := cleanup.Runs(ctx, tg, cleanup.Options{RunID: id}); err == nil || !strings.Contains(err.Error(), "no run "+id) {
			t.Errorf("--run %s: %v; want \"no run %s\"", id, err, id)
		}
	}
	if got, want := everything(), targettest.SortedLookAlikes(); !slices.Equal(got, want) {
		t.Errorf("look-alikes touched: %v", got)
	}
}

func TestCleanupRunsRefusesBadSelections(t *testing.T) {
	for _, o := range []cleanup.Options{{}, {RunID: "0a0a0a0a", OlderThan: time.Hour}, {RunID: "sc0a0a0a0a"}, {RunID: "../x"}} {
		if _, err := cleanup.Runs(context.Background(), nil, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}
