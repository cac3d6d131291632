package runner

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/runtest"
)

// TestBlobConcurrencyWorkloads runs every blob workload against managed
// Azurite with every check that applies (porcupine included, on small
// keys) and expects them all to pass: Azurite's blob concurrency core
// behaves as documented, so a failure here is a false positive to chase.
// Each workload is bounded by its iterations, not by time (a 4 s run on a
// loaded machine once made no conditional read that came back 304); the
// duration is only a cap, far above what the iterations take.
func TestBlobConcurrencyWorkloads(t *testing.T) {
	const limit = 3 * time.Minute
	sc := runtest.Parse(t, `
name: blobs
duration: 3m
workloads:
  - {name: lww, kind: blob.lww, actors: 4, keys: 2, iterations: 80, params: {conditional_reads: 0.5}}
  - {name: blocks, kind: blob.block-commit, actors: 3, keys: 1, iterations: 24, params: {blocks: 3}}
  - {name: cached, kind: blob.etag-counter, actors: 3, keys: 1, iterations: 60, params: {conditional_reads: 0.8, date_conditions: 0.5}}
  - {name: mutex, kind: blob.lease-mutex, actors: 4, iterations: 40, params: {misbehave: 0.5, lease_duration: 15s}}
  - {name: leases, kind: blob.lease-lifecycle, actors: 6, keys: 2, iterations: 40}
checks: [no-lost-updates, version-chain, linearizable, lease-exclusion, lease-protocol, date-conditions]
`)
	dir := filepath.Join(t.TempDir(), "results")
	sum, err := Run(context.Background(), sc, Options{ResultsDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	requireIterationsDone(t, sum, limit)
	torn := tornReadsOnly(sum.Checks, "blocks")
	for _, r := range sum.Checks {
		if r.Workload == "blocks" && torn && r.Verdict == checks.Fail {
			// Known Azurite 3.37.0 divergence, seen by both checkers: a Get Blob
			// overlapping a Put Block List can return the previous content
			// with the new ETag (a torn read). Anything else still fails.
			t.Logf("known Azurite divergence on %s: %s", r.Check, r.Summary)
			continue
		}
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
	ops := map[string]reports.OpSummary{}
	for _, w := range sum.Workloads {
		for _, o := range w.Ops {
			ops[w.Name+"/"+o.Op] = o
		}
	}
	if ops["lww/blob.put"].Outcomes["ok"] == 0 || ops["lww/blob.put"].Outcomes["conflict"] != 0 {
		t.Errorf("lww puts: %v (unconditional writes are never refused)", ops["lww/blob.put"].Outcomes)
	}
	if ops["blocks/blob.stage"].Count < 3 || ops["blocks/blob.commit"].Outcomes["ok"] == 0 {
		t.Errorf("block-commit: staged %d, commits %v", ops["blocks/blob.stage"].Count, ops["blocks/blob.commit"].Outcomes)
	}
	if ops["mutex/blob.put"].Outcomes["conflict"] == 0 {
		t.Errorf("no refused write on the leased blob: misbehaving actors did not intrude (%v)", ops["mutex/blob.put"].Outcomes)
	}
	// The caching pattern: some reads came back 304 (counted as ok).
	var notModified, counted int
	readHistoryFile(t, filepath.Join(dir, HistoryFile), func(op *checks.Op) {
		if op.Kind == "blob.get" && op.Out.Status == 304 {
			notModified++
		}
		// Bytes on the wire are the bodies: a put sends its value, a get
		// reads it back.
		switch {
		case op.Kind == "blob.put" && op.Outcome == checks.OK:
			if op.In.Bytes != int64(len(op.In.Value)) {
				t.Errorf("put of %d bytes recorded %d sent", len(op.In.Value), op.In.Bytes)
			}
			counted++
		case op.Kind == "blob.get" && op.Outcome == checks.OK && op.Out.Status == 200:
			if op.Out.Bytes != int64(len(op.Out.Value)) {
				t.Errorf("get of %d bytes recorded %d received", len(op.Out.Value), op.Out.Bytes)
			}
		}
	})
	if counted == 0 {
		t.Error("no acknowledged put to check the bytes of")
	}
	if notModified == 0 {
		t.Error("no conditional read was answered 304")
	}
}

// tornReadsOnly reports whether version-chain's violations on workload are
// all torn reads: a read returning one version's ETag with another
// version's content, while it overlapped the write that made that ETag.
func tornReadsOnly(rs []checks.Result, workload string) bool {
	for _, r := range rs {
		if r.Workload != workload || r.Check != "version-chain" {
			continue
		}
		if r.Verdict != checks.Fail || r.Total != len(r.Violations) {
			return false
		}
		for _, v := range r.Violations {
			if !strings.HasPrefix(v.Message, "ETag/value mismatch") || !overlapsItsWriter(v.Ops) {
				return false
			}
		}
		return true
	}
	return false
}

// overlapsItsWriter: the excerpt's read overlapped the write whose ETag it
// returned.
func overlapsItsWriter(ops []checks.Op) bool {
	for _, rd := range ops {
		if rd.Kind != "blob.get" {
			continue
		}
		for _, w := range ops {
			if w.Kind != "blob.get" && w.Out.ETag == rd.Out.ETag && w.Call < rd.Return && rd.Call < w.Return {
				return true
			}
		}
	}
	return false
}

// TestContainerWorkloads: container leases (only Delete is enforced) and
// date-conditioned container writes, against managed Azurite.
// Bounded by iterations, not time (the duration is a cap).
func TestContainerWorkloads(t *testing.T) {
	sc := runtest.Parse(t, `
name: containers
duration: 3m
workloads:
  - {name: leased, kind: container.lease, actors: 6, keys: 2, iterations: 60}
  - {name: dated, kind: container.etag, actors: 6, keys: 2, iterations: 40}
`)
	dir := filepath.Join(t.TempDir(), "results")
	sum, err := Run(context.Background(), sc, Options{ResultsDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	requireIterationsDone(t, sum, 3*time.Minute)
	if len(sum.Checks) != 2 || !runtest.AllPass(sum.Checks) {
		t.Fatalf("checks: %+v", sum.Checks)
	}
	ops := map[string]reports.OpSummary{}
	for _, w := range sum.Workloads {
		for _, o := range w.Ops {
			ops[w.Name+"/"+o.Op] = o
		}
	}
	if ops["leased/container.lease.acquire"].Outcomes["ok"] == 0 || ops["leased/container.delete"].Outcomes["conflict"] == 0 {
		t.Errorf("no lease held or no delete refused: %v %v", ops["leased/container.lease.acquire"].Outcomes, ops["leased/container.delete"].Outcomes)
	}
	if ops["leased/container.setmeta"].Outcomes["conflict"] != 0 {
		t.Errorf("Set Container Metadata without a lease id was refused: only Delete is enforced")
	}
	if ops["dated/container.delete"].Outcomes["ok"] != 0 || ops["dated/container.setacl"].Outcomes["ok"] == 0 {
		t.Errorf("dated: deletes %v (all must be refused), setacl %v", ops["dated/container.delete"].Outcomes, ops["dated/container.setacl"].Outcomes)
	}
}
