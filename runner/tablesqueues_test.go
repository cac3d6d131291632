package runner

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/batch"
	"github.com/stormcheck/stormcheck/checks/delivery"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/runtest"
)

// TestTableAndQueueWorkloads runs every table and queue workload against
// managed Azurite, with every check that applies, and expects them all to
// pass: a failure here is either an Azurite divergence to document or a
// false positive to chase. It also checks that each workload did what it
// claims (refusals where races are lost, failed batches refused whole,
// crashed consumers' messages redelivered, entities scanned vs returned,
// per-unit figures against the targets).
//
// Each workload is bounded by its iterations, not by time, so what it did
// does not depend on the machine's speed (a loaded machine once made 6
// puts in a 4 s run); the top-level duration is only a cap, far above what
// the iterations take, and the test says so if it was reached.
func TestTableAndQueueWorkloads(t *testing.T) {
	const limit = 3 * time.Minute
	sc := runtest.Parse(t, `
name: tables-queues
duration: 3m
workloads:
  - {name: counter, kind: table.etag-counter, actors: 4, keys: 1, iterations: 60}
  - {name: force, kind: table.force-update, actors: 4, keys: 1, iterations: 24}
  - {name: merge, kind: table.merge-vs-replace, actors: 4, keys: 1, iterations: 24, params: {props: 4}}
  - {name: batch, kind: table.batch, actors: 4, keys: 1, iterations: 40, params: {batch_size: 5, rows: 12, fail_fraction: 0.3}}
  - {name: hot, kind: table.hot-partition, executor: open, rate: 40, actors: 8, iterations: 80, params: {key_pattern: append}}
  - {name: query, kind: table.query, actors: 2, keys: 2, iterations: 12, params: {rows: 30}}
  - {name: work, kind: queue.work, actors: 5, keys: 1, iterations: 150, params: {producers: 2, visibility: 1s, crash_fraction: 0.2, update_fraction: 0.3, release_fraction: 0.2}}
  - {name: qhot, kind: queue.hot, executor: open, rate: 40, actors: 8, keys: 2, iterations: 60}
checks: [no-lost-updates, version-chain, linearizable, merge-replace, batch-atomicity, snapshot-reads, at-least-once, exclusive-visibility, pop-receipt]
`)
	dir := filepath.Join(t.TempDir(), "results")
	sum, err := Run(context.Background(), sc, Options{ResultsDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	requireIterationsDone(t, sum, limit)
	want := map[string]bool{}
	for _, r := range sum.Checks {
		want[r.Workload+"/"+r.Check] = true
		if r.Verdict != checks.Pass {
			t.Errorf("%s on %s: %s: %s", r.Check, r.Workload, r.Verdict, r.Summary)
			for _, v := range r.Violations {
				t.Logf("  %s", v.Message)
				for _, op := range v.Ops {
					t.Logf("    %s", op.String())
				}
			}
		}
	}
	for _, c := range []string{"counter/no-lost-updates", "counter/linearizable", "force/version-chain", "merge/merge-replace",
		"batch/batch-atomicity", "batch/snapshot-reads", "work/at-least-once", "work/exclusive-visibility", "work/pop-receipt"} {
		if !want[c] {
			t.Errorf("check %s did not run", c)
		}
	}

	ops := map[string]reports.OpSummary{}
	for _, w := range sum.Workloads {
		for _, o := range w.Ops {
			ops[w.Name+"/"+o.Op] = o
		}
	}
	conflicts := func(key string) int64 { return ops[key].Outcomes["conflict"] }
	if conflicts("counter/table.update")+conflicts("counter/table.merge") == 0 {
		t.Error("table counter: no 412 although 4 actors race one entity")
	}
	if ops["force/table.upsert"].Outcomes["ok"]+ops["force/table.upsert-merge"].Outcomes["ok"] == 0 || conflicts("force/table.upsert") != 0 {
		t.Errorf("force-update: upserts %v (never refused)", ops["force/table.upsert"].Outcomes)
	}
	if conflicts("batch/table.batch") == 0 || ops["batch/table.batch"].Outcomes["ok"] == 0 {
		t.Errorf("batches: %v; want committed ones and refused ones", ops["batch/table.batch"].Outcomes)
	}
	if o := ops["query/table.scan"]; o.Scanned == 0 || o.Returned*5 > o.Scanned {
		t.Errorf("table scans scanned %d, returned %d: want a tenth returned", o.Scanned, o.Returned)
	}
	if conflicts("work/queue.delete") == 0 {
		t.Errorf("no delete with a stale pop receipt was refused: %v", ops["work/queue.delete"].Outcomes)
	}
	if ops["work/queue.put"].Outcomes["ok"] == 0 || ops["work/queue.delete"].Outcomes["ok"] == 0 || ops["work/queue.update"].Outcomes["ok"] == 0 {
		t.Errorf("queue.work did not put, update and delete: %v %v %v", ops["work/queue.put"].Outcomes, ops["work/queue.update"].Outcomes, ops["work/queue.delete"].Outcomes)
	}

	// Refused batches carry the failed operation's status, not the 202.
	var refused, redelivered int
	readHistoryFile(t, filepath.Join(dir, HistoryFile), func(op *checks.Op) {
		if op.Kind == checks.KindTableBatch && op.Outcome == checks.Conflict {
			refused++
			if op.Out.Status != 409 || op.Out.ErrorCode != "EntityAlreadyExists" || op.In.BatchFails == "" {
				t.Errorf("refused batch recorded as %d %s (fails %q)", op.Out.Status, op.Out.ErrorCode, op.In.BatchFails)
			}
		}
		if op.Kind == checks.KindQueueGet {
			for _, m := range op.Out.Messages {
				if m.DequeueCount > 1 {
					redelivered++
				}
			}
		}
	})
	if refused == 0 {
		t.Error("no refused batch in the history")
	}
	if redelivered == 0 {
		t.Error("no message was delivered twice although consumers crash on 20 % of them")
	}

	// Units: partitions and queues beside their targets.
	units := map[string]reports.UnitSummary{}
	for _, u := range sum.Units {
		units[u.Workload+"/"+string(u.Kind)+"/"+u.Name] = u
	}
	var hotPartitions int
	for k, u := range units {
		if strings.HasPrefix(k, "hot/partition/") {
			hotPartitions++
			if u.Target != 2000 || u.Measure != "entities" {
				t.Errorf("partition unit %s: target %v %s", k, u.Target, u.Measure)
			}
		}
	}
	if hotPartitions < 2 {
		t.Errorf("append-only keys over 80 arrivals at 40/s (2 s, whatever the speed) used %d partitions; want one per second", hotPartitions)
	}
	if u := units["batch/partition/k0"]; u.Amount == 0 || u.BusiestShare != 1 {
		t.Errorf("batch partition k0: %+v", u)
	}
	var queues int
	for k, u := range units {
		if strings.HasPrefix(k, "qhot/queue/") {
			queues++
			if u.Target != 2000 || u.Amount == 0 {
				t.Errorf("queue unit %s: %+v", k, u)
			}
		}
	}
	if queues != 2 {
		t.Errorf("queue.hot over 2 queues reported %d queue units", queues)
	}
}

// TestInjectedTableAndQueueViolations takes histories Azurite produced for
// a batch workload and a queue workload, plants one violation in each (a
// stale row in the final read; a message whose deliveries vanish) and
// expects the checks that passed to fail.
func TestInjectedTableAndQueueViolations(t *testing.T) {
	sc := runtest.Parse(t, `
name: inject
duration: 3m
workloads:
  - {name: batch, kind: table.batch, actors: 3, keys: 1, iterations: 12, params: {batch_size: 4, rows: 8}}
  - {name: work, kind: queue.work, actors: 3, iterations: 30, params: {producers: 1, visibility: 1s, crash_fraction: 0}}
`)
	dir := filepath.Join(t.TempDir(), "results")
	if _, err := Run(context.Background(), sc, Options{ResultsDir: dir}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, HistoryFile)
	if res, err := CheckHistory(path, sc); err != nil || len(res) != 5 || !runtest.AllPass(res) {
		t.Fatalf("clean history: %v %+v", err, res)
	}
	var ops []checks.Op
	readHistoryFile(t, path, func(op *checks.Op) { ops = append(ops, *op) })

	// A stale row: in the final read, one row of the newest visible batch
	// shows the setup stamp instead.
	batches := map[string][]string{}
	setupStamp := ""
	for _, op := range ops {
		if op.Kind == checks.KindTableBatch {
			batches[op.In.Value] = op.In.Rows
			if op.Actor == checks.ActorSetup {
				setupStamp = op.In.Value
			}
		}
	}
	staled := false
	for i := range ops {
		op := &ops[i]
		if staled || op.Actor != checks.ActorFinal || op.Kind != checks.KindTableQuery {
			continue
		}
		shown := map[string]int{}
		for j, e := range op.Out.Entities {
			shown[e.Row] = j
		}
		for _, e := range op.Out.Entities {
			if e.Value == setupStamp {
				continue
			}
			for _, r := range batches[e.Value] {
				if j, ok := shown[r]; ok && r != e.Row && op.Out.Entities[j].Value == e.Value {
					op.Out.Entities[j].Value = setupStamp
					staled = true
					break
				}
			}
			if staled {
				break
			}
		}
	}
	// A lost message: every delivery of one acknowledged message vanishes,
	// with the calls that used its receipts.
	lost := ""
	for _, op := range ops {
		if op.Kind == checks.KindQueuePut && op.Outcome == checks.OK && op.Actor >= 0 {
			lost = op.Out.MessageID
			break
		}
	}
	kept := ops[:0]
	for _, op := range ops {
		if (op.Kind == checks.KindQueueDelete || op.Kind == checks.KindQueueUpdate) && op.In.MessageID == lost {
			continue
		}
		if op.Kind == checks.KindQueueGet {
			var msgs []checks.Message
			for _, m := range op.Out.Messages {
				if m.ID != lost {
					msgs = append(msgs, m)
				}
			}
			op.Out.Messages = msgs
		}
		kept = append(kept, op)
	}
	if !staled || lost == "" {
		t.Fatalf("nothing to plant: stale row %v, message %q", staled, lost)
	}
	writeHistoryFile(t, path, kept)

	res, err := CheckHistory(path, sc)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]checks.Verdict{}
	for _, r := range res {
		verdicts[r.Check] = r.Verdict
	}
	for _, c := range []string{batch.BatchAtomicityName, batch.SnapshotReadsName, delivery.AtLeastOnceName} {
		if verdicts[c] != checks.Fail {
			t.Errorf("%s missed the planted violation: %v", c, verdicts[c])
		}
	}
}

// writeHistoryFile replaces a history file with ops, compressed as the
// recorder writes it.
func writeHistoryFile(t *testing.T, path string, ops []checks.Op) {
	t.Helper()
	var b bytes.Buffer
	w, err := checks.NewHistoryWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ops {
		line, err := ops[i].MarshalJSONLine()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
