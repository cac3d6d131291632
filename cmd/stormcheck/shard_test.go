package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/runner/targettest"
)

const shardScenario = `name: shards
duration: 2s
workloads:
  - name: counter
    kind: blob.etag-counter
    actors: 5
    keys: 7
  - name: race
    kind: blob.etag-counter
    actors: 2
    keys: 2
    shard_keys: shared
  - name: once
    kind: blob.create-once
    actors: 3
    keys: 2
    shard_keys: shared
`

// TestShardsShareOneAzurite runs three shard processes of one run against
// one managed Azurite, as a cluster would: shards 0 and 1 meet at the run
// marker, shard 2 (its index from JOB_COMPLETION_INDEX, as an Indexed Job
// sets it) is given a start an hour in the past, shard 1's clock is skewed
// by 5 minutes. Each uploads its results.
func TestShardsShareOneAzurite(t *testing.T) {
	rig := newShardRig(t, "shards.yaml", shardScenario)
	bin, ctx, inst, dir, scen := rig.bin, rig.ctx, rig.inst, rig.dir, rig.file
	const runID, n, skew = "5ba4d0c1", 3, 5 * time.Minute
	lateStart := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	extra := [n][]string{
		{"--shard", "0/3"},
		{"--shard", "1/3", "--clock-skew", skew.String()},
		{"--shards", "3", "--start-at", lateStart},
	}
	outs := make([]string, n)
	cmds := make([]*exec.Cmd, n)
	for i := 0; i < n; i++ {
		outs[i] = filepath.Join(dir, fmt.Sprintf("shard%d", i))
		args := append([]string{"run", scen, "--target", "connection-string", "--run-id", runID, "--progress", "none",
			"--upload", "results", "--out", outs[i]}, extra[i]...)
		cmds[i] = exec.CommandContext(ctx, bin, args...)
		cmds[i].Env = append(os.Environ(), "AZURE_STORAGE_CONNECTION_STRING="+inst.ConnectionString())
		if i == 2 {
			cmds[i].Env = append(cmds[i].Env, "JOB_COMPLETION_INDEX=2")
		}
	}
	logs, results := runSideBySide(cmds)
	for i := 0; i < n; i++ {
		if results[i] != nil {
			t.Fatalf("shard %d: %v\n%s", i, results[i], logs[i])
		}
	}

	sums := make([]*reports.Summary, n)
	setups, finals, cleanups := 0, 0, 0
	last := -1
	for i := 0; i < n; i++ {
		b, err := os.ReadFile(filepath.Join(outs[i], runner.SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		var s reports.Summary
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		sums[i] = &s
		sh := s.Shard
		if sh == nil || sh.Index != i || sh.Count != n || sh.RunID != runID || s.RunID != runID {
			t.Fatalf("shard %d: summary's shard info %+v (run id %q)", i, sh, s.RunID)
		}
		if sh.ClockOffsetBound != 100*time.Millisecond {
			t.Errorf("shard %d: clock_offset_bound %v, want the default 100ms", i, sh.ClockOffsetBound)
		}
		if sh.Setup {
			setups++
		}
		if sh.FinalReads {
			finals++
			last = i
		}
		if sh.Cleanup {
			cleanups++
		}
		if sh.FinalReads != sh.Cleanup {
			t.Errorf("shard %d: final reads %v, cleanup %v: the last shard does both", i, sh.FinalReads, sh.Cleanup)
		}
		if len(s.Checks) != 0 {
			t.Errorf("shard %d ran checks on its part of the history: %v", i, s.Checks)
		}
	}
	if setups != 1 || !sums[0].Shard.Setup || finals != 1 || cleanups != 1 {
		t.Fatalf("setups %d (shard 0: %v), final reads %d, cleanups %d: want one of each", setups, sums[0].Shard.Setup, finals, cleanups)
	}
	// Shards 0 and 1 met at the marker: the same start, stamped by shard 0.
	if r := sums[0].Shard.Rendezvous; r == "" || sums[1].Shard.Rendezvous != r || sums[0].Shard.StartAt != "" {
		t.Errorf("rendezvous: shard 0 %q, shard 1 %q", r, sums[1].Shard.Rendezvous)
	}
	if sh := sums[2].Shard; sh.Late < 59*time.Minute || sh.StartAt == "" {
		t.Errorf("shard 2 started an hour after its --start-at and reports late %v (start_at %q)", sh.Late, sh.StartAt)
	}
	if !strings.Contains(strings.Join(strings.Fields(string(logs[2])), " "), "LATE by 1h0m") {
		t.Errorf("shard 2's output does not say how late it started:\n%s", logs[2])
	}
	// The clocks: shard 0's is the service's (same machine), shard 1's is
	// 5 minutes ahead.
	if c := sums[0].Shard.ClockOffset; c.Samples == 0 || !c.Contains(0) {
		t.Errorf("shard 0: clock offset %+v should contain 0", c)
	}
	if c := sums[1].Shard.ClockOffset; c.Samples == 0 || !c.Contains(skew) || c.Contains(0) {
		t.Errorf("shard 1: clock offset %+v should contain its skew %v, and not 0", c, skew)
	}
	for i, s := range sums {
		if s.Elapsed <= 0 || s.Elapsed > 4*time.Minute { // (the test's own bound)
			t.Errorf("shard %d: elapsed %v (a skewed clock must not change it)", i, s.Elapsed)
		}
	}

	// The histories: setup only in shard 0's, final reads only in the last
	// shard's, global actor ids, divided keys disjoint and covering.
	actors := map[string]map[int]int{} // workload -> actor -> shard
	keys := map[string]map[string]map[int]bool{}
	finalOnce, created := map[string]bool{}, map[string]int{} // create-once: final reads, rounds created (by shard)
	for i := 0; i < n; i++ {
		err := checks.ReadHistoryFile(filepath.Join(outs[i], runner.HistoryFile), func(op *checks.Op) error {
			switch op.Actor {
			case checks.ActorSetup:
				if i != 0 {
					t.Errorf("shard %d recorded a setup op %s %s", i, op.Kind, op.Key)
				}
				return nil
			case checks.ActorFinal:
				if i != last {
					t.Errorf("shard %d (not the last) recorded a final read %s", i, op.Key)
				}
				if op.Workload == "once" {
					finalOnce[op.Key] = true
				}
				return nil
			}
			if op.Workload == "once" && op.Kind == "blob.create" && op.Outcome == checks.OK {
				created[op.Key] = i
			}
			if actors[op.Workload] == nil {
				actors[op.Workload], keys[op.Workload] = map[int]int{}, map[string]map[int]bool{}
			}
			if s, ok := actors[op.Workload][op.Actor]; ok && s != i {
				t.Errorf("workload %s: actor %d recorded by shards %d and %d", op.Workload, op.Actor, s, i)
			}
			actors[op.Workload][op.Actor] = i
			if keys[op.Workload][op.Key] == nil {
				keys[op.Workload][op.Key] = map[int]bool{}
			}
			keys[op.Workload][op.Key][i] = true
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// create-once: the last shard's final reads cover the rounds every
	// shard created, not only its own.
	others := 0
	for k, by := range created {
		if !finalOnce[k] {
			t.Errorf("once: round %s created by shard %d has no final read", k, by)
		}
		if by != last {
			others++
		}
	}
	if others == 0 {
		t.Errorf("once: no round created outside the last shard (%d created): the test shows nothing", len(created))
	}
	// counter: 5 actors over 3 shards = 2, 2, 1 (ids 0-1, 2-3, 4).
	wantShard := map[int]int{0: 0, 1: 0, 2: 1, 3: 1, 4: 2}
	if len(actors["counter"]) != 5 || len(actors["race"]) != 2 {
		t.Errorf("actors seen: counter %v, race %v; want 5 and 2", actors["counter"], actors["race"])
	}
	for a, s := range actors["counter"] {
		if w, ok := wantShard[a]; !ok || w != s {
			t.Errorf("counter: actor %d ran in shard %d, want ids 0-1 in shard 0, 2-3 in 1, 4 in 2", a, s)
		}
	}
	// race: 2 actors over 3 shards: ids 0 and 1 in shards 0 and 1, none in 2.
	for a, s := range actors["race"] {
		if a != s {
			t.Errorf("race: actor %d ran in shard %d", a, s)
		}
	}
	// counter's 7 keys divided 3, 2, 2: each key in one shard only.
	var owned []string
	for k, by := range keys["counter"] {
		if len(by) != 1 {
			t.Errorf("counter: key %s (divided) used by shards %v", k, by)
		}
		owned = append(owned, k)
	}
	sort.Strings(owned)
	if len(owned) > 7 {
		t.Errorf("counter: keys %v, want at most k0..k6", owned)
	}

	// Nothing of the run is left on the target; every shard's results are
	// in the upload container.
	c, err := targettest.Open(inst.ConnectionString())
	if err != nil {
		t.Fatal(err)
	}
	svc := c.Blob
	prefix := "sc" + runID
	pager := svc.NewListContainersPager(&service.ListContainersOptions{Prefix: &prefix})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range page.ContainerItems {
			t.Errorf("left on the target: container %s", *c.Name)
		}
	}
	rig.checkUploads(t, "results", runID, n, logs)
	for i, s := range sums {
		t.Logf("shard %d: %+v", i, *s.Shard)
	}
	if t.Failed() {
		for i := range logs {
			t.Logf("shard %d:\n%s", i, logs[i])
		}
	}
}

// TestShardFlagErrors: a shard setting that cannot work is refused before
// anything runs (exit 2), saying what is allowed; --help teaches the flags
// and hides --clock-skew.
func TestShardFlagErrors(t *testing.T) {
	const q = "../../scenarios/examples/quickstart.yaml"
	cs := []string{"--target", "connection-string"}
	for _, tc := range []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"--shard", "4/4", "--run-id", "1a2b3c4d"}, "", "want I/N, the shard's index I (0 to N-1)"},
		{[]string{"--shard", "x"}, "", "e.g. --shard 0/4"},
		{append([]string{"--shard", "1/4"}, cs...), "", "--run-id is required: the shards of a run must share one run id"},
		{[]string{"--shard", "1/4", "--shards", "3", "--run-id", "1a2b3c4d"}, "", "disagree on the shard count"},
		{[]string{"--shards", "4", "--run-id", "1a2b3c4d"}, "", "set env JOB_COMPLETION_INDEX"},
		{[]string{"--shards", "4", "--run-id", "1a2b3c4d"}, "4", "JOB_COMPLETION_INDEX=\"4\": want the shard's index, 0 to 3"},
		{[]string{"--run-id", "1a2b3c4d"}, "1", "not the shard count: give --shards N"},
		{[]string{"--run-id", "ABC"}, "", "a run id is 8 lower-case hex digits"},
		{[]string{"--start-at", "noon"}, "", "want an RFC 3339 instant"},
		{[]string{"--shard", "1/2", "--run-id", "1a2b3c4d"}, "", "a managed Azurite belongs to one process: add --target connection-string"},
		{[]string{"--upload", "Results_1"}, "", "a blob container name is 3 to 63 lower-case letters"},
		{[]string{"--upload", "results"}, "", "a managed Azurite is deleted when the run ends"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("JOB_COMPLETION_INDEX", tc.env)
			} else {
				os.Unsetenv("JOB_COMPLETION_INDEX")
			}
			var out, errOut strings.Builder
			code := run(append([]string{"run", q, "--out", filepath.Join(t.TempDir(), "r")}, tc.args...), &out, &errOut)
			if code != exitUsage || !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 saying %q", code, errOut.String(), tc.want)
			}
		})
	}
	var out, errOut strings.Builder
	if code := run([]string{"run", "--help"}, &out, &errOut); code != exitOK {
		t.Fatal(code)
	}
	help := out.String()
	for _, want := range []string{"--shard I/N", "--shards", "--run-id", "--start-at", "--upload", "JOB_COMPLETION_INDEX", "floor(A/N)"} {
		if !strings.Contains(help, want) {
			t.Errorf("run --help does not mention %q", want)
		}
	}
	if strings.Contains(help, "clock-skew") {
		t.Error("run --help shows the hidden --clock-skew")
	}
}

// TestUploadFailureKeepsResults: an upload the target refuses (a blob of
// the shard's path held under a lease) is a line on stderr and exit code
// 3; the results directory, written before, is intact and still says the
// run itself ended with 0.
func TestUploadFailureKeepsResults(t *testing.T) {
	r := newShardRig(t, "one.yaml", "name: one\nduration: 1s\nworkloads:\n  - name: counter\n    kind: blob.etag-counter\n")
	c, err := targettest.Open(r.inst.ConnectionString())
	if err != nil {
		t.Fatal(err)
	}
	svc := c.Blob
	const runID = "0a0b0c0d"
	blocked := svc.NewContainerClient("held").NewBlockBlobClient(runID + "/shard-0-of-1/" + runner.SummaryFile)
	if _, err := svc.CreateContainer(r.ctx, "held", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := blocked.UploadBuffer(r.ctx, []byte("someone else's"), nil); err != nil {
		t.Fatal(err)
	}
	lc, err := lease.NewBlobClient(blocked, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lc.AcquireLease(r.ctx, -1, nil); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(r.dir, "res")
	cmd := exec.CommandContext(r.ctx, r.bin, "run", r.file, "--target", "connection-string", "--run-id", runID,
		"--progress", "none", "--upload", "held", "--out", out)
	cmd.Env = append(os.Environ(), "AZURE_STORAGE_CONNECTION_STRING="+r.inst.ConnectionString())
	log, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitHarness {
		t.Fatalf("exit: %v, want %d\n%s", err, exitHarness, log)
	}
	flat := strings.Join(strings.Fields(string(log)), " ")
	if !strings.Contains(flat, "upload to container held:") || !strings.Contains(flat, "the local results are untouched") {
		t.Errorf("the failure is not said:\n%s", log)
	}
	b, err := os.ReadFile(filepath.Join(out, runner.SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	var s reports.Summary
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if s.ExitCode != exitOK || s.RunID != runID || len(s.Checks) == 0 {
		t.Errorf("summary after a failed upload: exit %d, run id %q, %d checks", s.ExitCode, s.RunID, len(s.Checks))
	}
	if _, err := os.Stat(filepath.Join(out, runner.HistoryFile)); err != nil {
		t.Error(err)
	}
	got, err := blocked.DownloadStream(r.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(got.Body)
	got.Body.Close()
	if string(body) != "someone else's" {
		t.Errorf("the leased blob was overwritten: %q", body)
	}
}

// TestDefaultResultsDirOfAShard: shards started in the same second on one
// machine do not pick the same default folder.
func TestDefaultResultsDirOfAShard(t *testing.T) {
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.Local)
	a := defaultResultsDir("qs", now, &runner.Shard{Index: 0, Count: 2})
	b := defaultResultsDir("qs", now, &runner.Shard{Index: 1, Count: 2})
	if a == b || a != filepath.Join("results", "qs-20261124-120000-shard-0-of-2") {
		t.Errorf("shard folders %q and %q", a, b)
	}
	if got := defaultResultsDir("qs", now, nil); got != filepath.Join("results", "qs-20261124-120000") {
		t.Errorf("unsharded: %q", got)
	}
}

// TestRunRefusesAnImpossibleCut: a shard whose divided keys cannot be cut
// N ways is refused with exit 2 before the target is opened (the
// connection string names a port nothing listens on) and before the
// results directory exists.
func TestRunRefusesAnImpossibleCut(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "few.yaml")
	sc := "name: few\nduration: 1s\nworkloads:\n  - {name: counters, kind: blob.etag-counter, actors: 8, keys: 3, shard_keys: divided}\n"
	if err := os.WriteFile(file, []byte(sc), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AZURE_STORAGE_CONNECTION_STRING", "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=a2V5;BlobEndpoint=http://127.0.0.1:1/devstoreaccount1;")
	os.Unsetenv("JOB_COMPLETION_INDEX")
	out := filepath.Join(dir, "r")
	var stdout, stderr strings.Builder
	code := run([]string{"run", file, "--out", out, "--target", "connection-string", "--shard", "1/4", "--run-id", "1a2b3c4d"}, &stdout, &stderr)
	if code != exitUsage || !strings.Contains(stderr.String(), "shard 1/4: workload counters: shard_keys divided") || !strings.Contains(stderr.String(), "few.yaml") {
		t.Fatalf("exit %d, stderr %q; want exit 2 naming the file, the shard and the workload", code, stderr.String())
	}
	if strings.Contains(stderr.String(), "running") {
		t.Errorf("the run started before the cut was checked: %q", stderr.String())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("results directory %s exists after a refused run (%v)", out, err)
	}
}
