package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/runner/targettest"
)

const shardServicesScenario = `name: services
duration: 2s
workloads:
  - name: register
    kind: table.etag-counter
    actors: 2
    keys: 2
  - name: work
    kind: queue.work
    actors: 4
    keys: 1
    shard_keys: shared
  - name: boxes
    kind: container.etag
    actors: 2
    keys: 2
`

// TestShardsOfEveryService: two shards of a run with a table, a queue and
// a container workload. Shard 1 opens the clients of what shard 0 set up
// without sending anything, both run their load, the last one's final
// reads reach the table and drain the queue, and nothing of the run (no
// container, table or queue) is left.
func TestShardsOfEveryService(t *testing.T) {
	r := newShardRig(t, "services.yaml", shardServicesScenario)
	const runID, n = "5e1c0b2a", 2
	startAt := time.Now().Add(15 * time.Second).UTC().Format(time.RFC3339Nano)
	outs := make([]string, n)
	cmds := make([]*exec.Cmd, n)
	for i := 0; i < n; i++ {
		outs[i] = filepath.Join(r.dir, fmt.Sprintf("s%d", i))
		cmds[i] = exec.CommandContext(r.ctx, r.bin, "run", r.file, "--target", "connection-string", "--run-id", runID,
			"--shard", fmt.Sprintf("%d/%d", i, n), "--start-at", startAt, "--progress", "none", "--out", outs[i])
		cmds[i].Env = append(os.Environ(), "AZURE_STORAGE_CONNECTION_STRING="+r.inst.ConnectionString())
	}
	logs, errs := runSideBySide(cmds)
	for i := range errs {
		if errs[i] != nil {
			t.Fatalf("shard %d: %v\n%s", i, errs[i], logs[i])
		}
	}
	load := map[string][2]int{}  // workload -> load ops per shard
	final := map[string]string{} // workload -> an op kind of its final reads
	for i := 0; i < n; i++ {
		err := checks.ReadHistoryFile(filepath.Join(outs[i], runner.HistoryFile), func(op *checks.Op) error {
			switch op.Actor {
			case checks.ActorSetup:
				if i != 0 {
					t.Errorf("shard %d sent a setup call: %s %s", i, op.Kind, op.Key)
				}
			case checks.ActorFinal:
				final[op.Workload] = op.Kind
			default:
				c := load[op.Workload]
				c[i]++
				load[op.Workload] = c
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, w := range []string{"register", "work", "boxes"} {
		if c := load[w]; c[0] == 0 || c[1] == 0 {
			t.Errorf("workload %s: load ops per shard %v, want some in each", w, c)
		}
	}
	if !strings.HasPrefix(final["register"], "table.") || !strings.HasPrefix(final["work"], "queue.") || final["boxes"] == "" {
		t.Errorf("final reads by workload: %v", final)
	}

	cs := r.inst.ConnectionString()
	prefix := "sc" + runID
	c, err := targettest.Open(cs)
	if err != nil {
		t.Fatal(err)
	}
	cp := c.Blob.NewListContainersPager(&service.ListContainersOptions{Prefix: &prefix})
	for cp.More() {
		page, err := cp.NextPage(r.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range page.ContainerItems {
			t.Errorf("left: container %s", *c.Name)
		}
	}
	tp := c.Table.NewListTablesPager(nil)
	for tp.More() {
		page, err := tp.NextPage(r.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range page.Tables {
			if strings.HasPrefix(strings.ToLower(*tb.Name), prefix) {
				t.Errorf("left: table %s", *tb.Name)
			}
		}
	}
	qp := c.Queue.NewListQueuesPager(&azqueue.ListQueuesOptions{Prefix: &prefix})
	for qp.More() {
		page, err := qp.NextPage(r.ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range page.Queues {
			t.Errorf("left: queue %s", *q.Name)
		}
	}
	// A shard's directory is not checked alone: its history is part of
	// the run's.
	var out, errOut strings.Builder
	if code := run([]string{"check", outs[1]}, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), "holds shard 1 of 2 of run 5e1c0b2a") || !strings.Contains(errOut.String(), "stormcheck merge OUT DIR") {
		t.Errorf("check of a shard dir: exit %d, %q", code, errOut.String())
	}
	if t.Failed() {
		for i := range logs {
			t.Logf("shard %d:\n%s", i, logs[i])
		}
	}
}
