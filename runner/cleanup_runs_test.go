package runner

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/scenarios"
)

// lookAlikes are resources stormcheck did not create, named like its own:
// the prefix shape of a run without its marker, a marker-shaped container
// without the stamp, one stamped for another run id, and plain names. No
// cleanup may touch them.
var lookAlikes = struct{ containers, tables, queues []string }{
	containers: []string{"sc0badc0de-counter", "sc0badc0de", "sc1234abcd", "someone-elses", "scratch"},
	tables:     []string{"sc0badc0decounter", "someoneelses"},
	queues:     []string{"sc0badc0de-q0", "someone-elses"},
}

// plantLookAlikes creates lookAlikes on the target.
func plantLookAlikes(ctx context.Context, t *testing.T, tg *Target) {
	t.Helper()
	other := "99999999" // stamped, but for a run id that is not its name's
	for _, c := range lookAlikes.containers {
		var o *container.CreateOptions
		if c == "sc1234abcd" {
			o = &container.CreateOptions{Metadata: map[string]*string{metaRun: &other}}
		}
		if _, err := tg.Blob.CreateContainer(ctx, c, o); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range lookAlikes.tables {
		if _, err := tg.Table.CreateTable(ctx, n, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range lookAlikes.queues {
		if _, err := tg.Queue.CreateQueue(ctx, n, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// plantRun leaves what an interrupted run leaves: its stamped marker, and a
// container, a table and a queue named with its prefix.
func plantRun(ctx context.Context, t *testing.T, tg *Target, id string, created time.Time) {
	t.Helper()
	if err := markRun(ctx, tg, id, created); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Blob.CreateContainer(ctx, runPrefix(id)+"counter", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Table.CreateTable(ctx, tableName(runPrefix(id)+"entities"), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := tg.Queue.CreateQueue(ctx, runPrefix(id)+"messages-q0", nil); err != nil {
		t.Fatal(err)
	}
}

// everything lists every container, table and queue of the target.
func everything(ctx context.Context, t *testing.T, tg *Target) []string {
	t.Helper()
	var all []string
	cp := tg.Blob.NewListContainersPager(nil)
	for cp.More() {
		page, err := cp.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range page.ContainerItems {
			all = append(all, "container "+*c.Name)
		}
	}
	tp := tg.Table.NewListTablesPager(nil)
	for tp.More() {
		page, err := tp.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range page.Tables {
			all = append(all, "table "+*x.Name)
		}
	}
	qp := tg.Queue.NewListQueuesPager(nil)
	for qp.More() {
		page, err := qp.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range page.Queues {
			all = append(all, "queue "+*q.Name)
		}
	}
	sort.Strings(all)
	return all
}

func lookAlikeNames() []string {
	var all []string
	for _, c := range lookAlikes.containers {
		all = append(all, "container "+c)
	}
	for _, n := range lookAlikes.tables {
		all = append(all, "table "+n)
	}
	for _, n := range lookAlikes.queues {
		all = append(all, "queue "+n)
	}
	sort.Strings(all)
	return all
}

// openTestTarget opens a target on inst the way a run with a connection
// string does.
func openTestTarget(ctx context.Context, t *testing.T, inst *azurite.Instance) *Target {
	t.Helper()
	tg, err := OpenTarget(ctx, scenarios.Target{Kind: scenarios.TargetConnectionString}, TargetOptions{ConnectionString: inst.ConnectionString()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}

// TestCleanupRunsDeletesOnlyMarkedRuns plants two earlier runs (one two
// days old, one new) beside look-alikes, and cleans them up the ways the
// command does: a dry run deletes nothing, --older-than takes only the old
// run, --run the other; the look-alikes survive every step.
func TestCleanupRunsDeletesOnlyMarkedRuns(t *testing.T) {
	ctx, inst := startAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	tg := openTestTarget(ctx, t, inst)
	plantLookAlikes(ctx, t, tg)
	now := time.Now()
	plantRun(ctx, t, tg, "0a0a0a0a", now.Add(-48*time.Hour))
	plantRun(ctx, t, tg, "0b0b0b0b", now)
	before := everything(ctx, t, tg)

	runs, err := CleanupRuns(ctx, tg, CleanupOptions{OlderThan: 24 * time.Hour, DryRun: true, Now: now})
	if err != nil || len(runs) != 1 || runs[0].Mark.ID != "0a0a0a0a" || len(runs[0].Resources) != 3 {
		t.Fatalf("dry run: %+v, %v; want run 0a0a0a0a with its 3 resources", runs, err)
	}
	if after := everything(ctx, t, tg); !slices.Equal(after, before) {
		t.Fatalf("a dry run deleted something:\nbefore %v\nafter  %v", before, after)
	}

	runs, err = CleanupRuns(ctx, tg, CleanupOptions{OlderThan: 24 * time.Hour, Now: now})
	if err != nil || len(runs) != 1 || runs[0].Err != nil {
		t.Fatalf("older than 24h: %+v, %v", runs, err)
	}
	after := everything(ctx, t, tg)
	for _, n := range after {
		if strings.Contains(n, "0a0a0a0a") {
			t.Errorf("the old run's %s is still there", n)
		}
	}
	if !slices.Contains(after, "container sc0b0b0b0b") || !slices.Contains(after, "queue sc0b0b0b0b-messages-q0") {
		t.Errorf("--older-than 24h deleted the new run: %v", after)
	}

	if _, err := CleanupRuns(ctx, tg, CleanupOptions{RunID: "0b0b0b0b"}); err != nil {
		t.Fatal(err)
	}
	if got, want := everything(ctx, t, tg), lookAlikeNames(); !slices.Equal(got, want) {
		t.Errorf("after both cleanups the target holds\n%v\nwant only the look-alikes\n%v", got, want)
	}

	for _, id := range []string{"0badc0de", "1234abcd"} { // shaped like runs, not stormcheck's
		if _, err := CleanupRuns(ctx, tg, CleanupOptions{RunID: id}); err == nil || !strings.Contains(err.Error(), "no run "+id) {
			t.Errorf("--run %s: %v; want \"no run %s\"", id, err, id)
		}
	}
	if got, want := everything(ctx, t, tg), lookAlikeNames(); !slices.Equal(got, want) {
		t.Errorf("look-alikes touched: %v", got)
	}
}

func TestCleanupRunsRefusesBadSelections(t *testing.T) {
	for _, o := range []CleanupOptions{{}, {RunID: "0a0a0a0a", OlderThan: time.Hour}, {RunID: "sc0a0a0a0a"}, {RunID: "../x"}} {
		if _, err := CleanupRuns(context.Background(), nil, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}
