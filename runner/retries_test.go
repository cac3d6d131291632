package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/consistency"
	"github.com/stormcheck/stormcheck/runner/runtest"
)

// retriesScenario makes Azurite apply writes whose answers are lost or
// turned into 500 OperationTimedOut, and answers others 503, so that
// attempts are retried and outcomes are unknown, on the workloads whose
// retries used to reuse a value (block-commit's list, queue texts).
const retriesScenario = `
name: retries
seed: 12
duration: 3m
timeout: 3s
retry: {max_attempts: 4, base: 10ms, max: 100ms}
workloads:
  - name: commit
    kind: blob.block-commit
    actors: 3
    keys: 1
    iterations: 60
    params: {blocks: 2}
  - name: counter
    kind: blob.etag-counter
    actors: 3
    keys: 1
    iterations: 60
  - name: queue
    kind: queue.work
    actors: 2
    iterations: 60
faults:
  - {kind: http.drop-response, name: drop, ops: [blob.commit, blob.put, queue.put], fraction: 0.15}
  - {kind: http.timeout-after, name: late, ops: [blob.commit, blob.put, queue.put], fraction: 0.1}
  - {kind: http.server-busy, name: busy, ops: [blob.commit, blob.put, queue.put], fraction: 0.15}
`

// TestRetriesWriteNewValuesAndReadFirst checks, from the recorded history
// of a run under faults: every write attempt, retries included, wrote a
// value no other attempt wrote; after a conditional write of unknown
// outcome the actor read the key before it wrote it again; and the checks
// resolve unknown writes instead of giving up on reused values.
func TestRetriesWriteNewValuesAndReadFirst(t *testing.T) {
	sc := runtest.Parse(t, retriesScenario)
	dir := filepath.Join(t.TempDir(), "results")
	if d := os.Getenv("VERDICTS_KEEP"); d != "" {
		dir = d
	}
	var log strings.Builder
	sum, err := Run(context.Background(), sc, Options{ResultsDir: dir, Log: &log})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	requireIterationsDone(t, sum, 3*time.Minute)
	writes := map[string]bool{"blob.commit": true, "blob.put": true, checks.KindQueuePut: true}
	seen := map[string]uint64{} // workload + value -> seq of the attempt that wrote it
	type actorKey struct {
		workload string
		actor    int
		key      string
	}
	mustRead := map[actorKey]uint64{} // an unknown conditional write not yet followed by a read
	retries, unknown := 0, 0
	readHistoryFile(t, filepath.Join(dir, HistoryFile), func(op *checks.Op) {
		if op.IsHarness() {
			return
		}
		ak := actorKey{op.Workload, op.Actor, op.Key}
		if op.Kind == "blob.get" && op.Outcome == checks.OK {
			delete(mustRead, ak)
		}
		if !writes[op.Kind] {
			return
		}
		if op.Attempt > 1 {
			retries++
		}
		if seq, ok := mustRead[ak]; ok {
			t.Errorf("#%d actor %d wrote %s again without reading it after #%d's unknown outcome", op.Seq, op.Actor, op.Key, seq)
			delete(mustRead, ak)
		}
		k := op.Workload + "\x00" + op.In.Value
		if first, dup := seen[k]; dup {
			t.Errorf("#%d (%s attempt %d) wrote the value #%d wrote: %.60q", op.Seq, op.Kind, op.Attempt, first, op.In.Value)
		}
		seen[k] = op.Seq
		mayHaveApplied := op.Outcome == checks.Unknown || op.Out.Status == 500
		if mayHaveApplied {
			unknown++
		}
		if mayHaveApplied && op.In.IfMatch != "" && op.In.IfMatch != "*" {
			mustRead[ak] = op.Seq
		}
	})
	if retries == 0 || unknown == 0 {
		t.Fatalf("the faults made %d retries and %d unknown writes: the test judged nothing\n%s", retries, unknown, log.String())
	}
	resolved := 0
	for _, r := range sum.Checks {
		if r.Verdict == checks.Fail && !azuriteTornCommitRead(r) {
			t.Errorf("check %s on %s failed: %s", r.Check, r.Workload, r.Summary)
			for _, v := range r.Violations {
				t.Logf("  %s", v.Message)
				for _, o := range v.Ops {
					t.Logf("    %s", o.String())
				}
			}
		}
		if strings.Contains(r.Summary, "reusing another's value") {
			t.Errorf("%s on %s still sees reused values: %s", r.Check, r.Workload, r.Summary)
		}
		if r.Unknown != nil {
			resolved += r.Unknown.Applied + r.Unknown.NotApplied
		}
		t.Log(r.Check, r.Workload, r.Verdict, r.Decided, fmt.Sprintf("%+v", r.Unknown))
	}
	if resolved == 0 {
		t.Errorf("no unknown write was resolved as applied or not applied")
	}
}

// azuriteTornCommitRead: Azurite 3.37.0 answers a Get Blob that overlaps a
// Put Block List with the new ETag and the old content (found by this test
// once block-commit's retries stopped reusing values, so version-chain
// could judge the workload; see the README's Findings). The new version's
// commit may be one whose answer was lost or timed out (a fault of this
// test), so its ETag is known only from the read: every "ETag/value
// mismatch" on the commit workload is taken as that finding; any other
// violation, or one on another workload, still fails.
func azuriteTornCommitRead(r checks.Result) bool {
	if r.Check != consistency.VersionChainName || r.Workload != "commit" || len(r.Violations) == 0 {
		return false
	}
	for _, v := range r.Violations {
		if !strings.HasPrefix(v.Message, "ETag/value mismatch") {
			return false
		}
	}
	return true
}
