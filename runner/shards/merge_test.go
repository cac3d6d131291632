package shards

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/merge"
	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

const mergeUnitScenario = `name: merge-units
duration: 2s
checks: [version-chain]
workloads:
  - {name: w, kind: blob.lww, actors: 2, keys: 1, shard_keys: shared}
thresholds:
  - utilisation(blob) < 0.8
`

// writeShardDir writes a shard's results directory as a run does: the
// scenario, the history and hlogs through a Recorder and Metrics, and the
// summary with its shard info.
func writeShardDir(t *testing.T, dir string, index, count int, started time.Time, bound time.Duration, off reports.ClockOffset, ops []*checks.Op) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, runner.ScenarioFile), []byte(mergeUnitScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Parse("merge-units.yaml", []byte(mergeUnitScenario))
	if err != nil {
		t.Fatal(err)
	}
	m := reports.NewMetrics(reports.MetricsOptions{HlogDir: filepath.Join(dir, runner.HlogDir), Start: started, Workloads: []string{"w"}})
	rec, err := workload.NewRecorder(filepath.Join(dir, runner.HistoryFile), started, m)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range ops {
		rec.Record(op)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	elapsed := 2 * time.Second
	ws, harness := m.Summary(elapsed)
	for i := range ws {
		ws[i].Kind, ws[i].Executor, ws[i].Actors = "blob.lww", "closed", 1
	}
	s := &reports.Summary{Scenario: sc.Name, File: "merge-units.yaml", Started: started, Elapsed: elapsed, RunID: "abcd0042",
		Workloads: ws, Harness: harness, Capacity: runner.CapacityInfo(sc), Files: map[string]string{"hlog": runner.HlogDir + "/"},
		Units: m.Units(merge.ActivePeriods(ws, elapsed), runner.UnitTargets(sc.Capacity), runner.BandwidthTargets(sc.Capacity)),
		Shard: &reports.ShardInfo{Index: index, Count: count, RunID: "abcd0042", ClockOffsetBound: bound, ClockOffset: off}}
	s.Thresholds = reports.EvaluateThresholds(s, sc.Thresholds)
	if err := reports.WriteSummaryJSON(filepath.Join(dir, runner.SummaryFile), s); err != nil {
		t.Fatal(err)
	}
}

// twoShards writes a run of two shards on one blob: shard 0 sets it up and
// replaces it (If-Match, returned at 110ms) and reads it 300 times in its
// second 1; shard 1, whose clock is 150ms ahead of shard 0's, reads the
// initial version at its 0-5ms (really before the write: 150ms on the
// merged time line by its clock), then reads the blob 200 times in its
// second 1 and does the final read.
func twoShards(t *testing.T, bound time.Duration, off1 reports.ClockOffset) []string {
	ms := int64(time.Millisecond)
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	read := func(actor int, call int64, val, etag string) *checks.Op {
		return &checks.Op{Actor: actor, Workload: "w", Kind: "blob.get", Key: "k", Attempt: 1, Intended: call, Call: call, Return: call + 2*ms,
			Out: checks.Output{Status: 200, Value: val, ETag: etag}}
	}
	s0 := []*checks.Op{
		{Actor: checks.ActorSetup, Workload: "w", Kind: "blob.put", Key: "k", Attempt: 1, Call: 1 * ms, Return: 2 * ms, In: checks.Input{Value: "init"}, Out: checks.Output{Status: 201, ETag: "E0"}},
		{Actor: 0, Workload: "w", Kind: "blob.put", Key: "k", Attempt: 1, Intended: 100 * ms, Call: 100 * ms, Return: 110 * ms, In: checks.Input{IfMatch: "E0", Value: "a0-1"}, Out: checks.Output{Status: 201, ETag: "E1"}},
	}
	for i := range 300 {
		s0 = append(s0, read(0, 1100*ms+int64(i)*2*ms, "a0-1", "E1"))
	}
	s1 := []*checks.Op{read(1, 0, "init", "E0")}
	for i := range 200 {
		s1 = append(s1, read(1, 1050*ms+int64(i)*2*ms, "a0-1", "E1"))
	}
	s1 = append(s1, read(checks.ActorFinal, 1900*ms, "a0-1", "E1"))
	dir := t.TempDir()
	dirs := []string{filepath.Join(dir, "shard-0-of-2"), filepath.Join(dir, "shard-1-of-2")}
	writeShardDir(t, dirs[0], 0, 2, t0, bound, reports.ClockOffset{Lo: -5 * time.Millisecond, Hi: 5 * time.Millisecond, Samples: 300}, s0)
	writeShardDir(t, dirs[1], 1, 2, t0.Add(150*time.Millisecond), bound, off1, s1)
	return dirs
}

func mergeDirs(t *testing.T, dirs []string) *reports.Summary {
	t.Helper()
	shards, err := Read(dirs)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "merged")
	if err := runner.ClaimResultsDir(out); err != nil {
		t.Fatal(err)
	}
	sum, err := Merge(context.Background(), out, shards, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	again, err := reports.ReadSummary(filepath.Join(out, runner.SummaryFile))
	if err != nil || len(again.MergedFrom) != 2 {
		t.Fatalf("merged summary.json: %v", err)
	}
	return sum
}

func verdictOf(s *reports.Summary, check string) checks.Result {
	for _, r := range s.Checks {
		if r.Check == check {
			return r
		}
	}
	return checks.Result{}
}

// Widening by the clock bound keeps a read that a skewed clock places after
// a write from being judged stale; without it (a 1ms bound the estimates
// cannot contradict) the same history is a stale read, so the merged check
// does see across shards.
func TestMergeWideningPreventsFalseViolations(t *testing.T) {
	within := reports.ClockOffset{Lo: 60 * time.Millisecond, Hi: 90 * time.Millisecond, Samples: 200}
	s := mergeDirs(t, twoShards(t, 100*time.Millisecond, within))
	if r := verdictOf(s, "version-chain"); r.Verdict != checks.Pass {
		t.Errorf("within the bound: version-chain %s (%s), want pass", r.Verdict, r.Summary)
	}
	if len(s.MergeNotes) != 0 {
		t.Errorf("notes %q", s.MergeNotes)
	}

	s = mergeDirs(t, twoShards(t, time.Millisecond, reports.ClockOffset{}))
	if r := verdictOf(s, "version-chain"); r.Verdict != checks.Fail || !strings.Contains(r.Summary+r.Violations[0].Message, "stale read") {
		t.Errorf("a 1ms bound: version-chain %s (%+v), want the stale read", r.Verdict, r)
	}
}

// The units are counted again from the merged history: a blob read 300
// times a second by one shard and 200 by the other is read 500 times that
// second, at its 500/s target, though each shard alone saw 60% and 40%;
// the threshold judged on the merged figure fails where each shard's
// passed. Counts and per-second series add up.
func TestMergeUnitsShowTheTrueRate(t *testing.T) {
	dirs := twoShards(t, 100*time.Millisecond, reports.ClockOffset{Lo: 60 * time.Millisecond, Hi: 90 * time.Millisecond, Samples: 200})
	for _, d := range dirs {
		s, err := reports.ReadSummary(filepath.Join(d, runner.SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Thresholds) != 1 || !s.Thresholds[0].Pass {
			t.Fatalf("%s: the shard alone should pass its threshold: %+v", d, s.Thresholds)
		}
	}
	s := mergeDirs(t, dirs)
	var blob *reports.UnitSummary
	for i := range s.Units {
		if s.Units[i].Kind == reports.UnitBlob && s.Units[i].Name == "k" {
			blob = &s.Units[i]
		}
	}
	if blob == nil || blob.Amount != 502 || blob.Peak != 500 || blob.PeakSecond != 1 || blob.Utilisation != 1 {
		t.Fatalf("blob k merged: %+v; want 502 requests, 500 in second 1 (utilisation 1)", blob)
	}
	if len(s.Thresholds) != 1 || s.Thresholds[0].Pass {
		t.Errorf("threshold on the merged figures: %+v, want it failed", s.Thresholds)
	}
	var get reports.OpSummary
	for _, o := range s.Workloads[0].Ops {
		if o.Op == "blob.get" {
			get = o
		}
	}
	var perSec int64
	for _, c := range get.PerSecond {
		perSec += c.Total()
	}
	if get.Count != 501 || perSec != 501 || get.Latency.Count != 501 || s.Workloads[0].Actors != 2 {
		t.Errorf("blob.get: count %d, per-second sum %d, latency count %d, actors %d; want 501, 501, 501, 2", get.Count, perSec, get.Latency.Count, s.Workloads[0].Actors)
	}
	if s.MergedFrom[1].Shift != 150*time.Millisecond || s.MergedFrom[0].Ops != 302 || s.MergedFrom[1].Ops != 202 {
		t.Errorf("merged from %+v", s.MergedFrom)
	}
}

// TestMergeWithACutShardFailsNothing: when a shard's history is cut short
// (its process killed, its disk full), the other shards' records go on past
// the cut, so a write the cut shard lost can explain what looks like a
// violation: the merged checks' failures become undecided, their
// violations kept, the cut named. A run of two shards, one cut in half,
// gave "FAIL version-chain: 412 on a current ETag" and exit 1 for a run
// with no violation. The history here has a stale read (a 1ms clock bound),
// so only the cut turns its failure into undecided.
func TestMergeWithACutShardFailsNothing(t *testing.T) {
	dirs := twoShards(t, time.Millisecond, reports.ClockOffset{})
	hist := runner.HistoryPath(dirs[0])
	b, err := os.ReadFile(hist)
	if err != nil {
		t.Fatal(err)
	}
	// A second compressed frame begun and cut off: every record is read,
	// and the reader says the history was cut.
	if err := os.WriteFile(hist, append(b, b[:8]...), 0o644); err != nil {
		t.Fatal(err)
	}
	s := mergeDirs(t, dirs)
	r := verdictOf(s, "version-chain")
	if r.Verdict != checks.Undecided || len(r.Violations) == 0 || !strings.Contains(r.Summary, "not judged a violation: the history of 1 shard(s) is cut short") {
		t.Errorf("version-chain %s (%s), want undecided naming the cut, its violations kept", r.Verdict, r.Summary)
	}
	for _, c := range s.Checks {
		if c.Verdict == checks.Fail {
			t.Errorf("%s failed over a merged history with a cut shard: %s", c.Check, c.Summary)
		}
	}
	if !strings.Contains(strings.Join(s.MergeNotes, "\n"), "history truncated after record 302") {
		t.Errorf("notes %q do not name the cut", s.MergeNotes)
	}
}
