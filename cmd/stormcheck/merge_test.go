package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/runner/azurite"
)

// mergeScenario races If-Match writes of every shard on the same two blobs
// (shard_keys: shared) and keeps a divided counter beside it. Iterations
// bound the load, not a duration.
const mergeScenario = `name: merge-race
duration: 30s
workloads:
  - name: race
    kind: blob.etag-counter
    actors: 8
    keys: 2
    iterations: 160
    shard_keys: shared
  - name: counter
    kind: blob.etag-counter
    actors: 4
    keys: 8
    iterations: 80
`

// runShardProcs runs the n shards of one run as child processes of the
// built binary, each with JOB_COMPLETION_INDEX set as an Indexed Job sets
// it, against one Azurite by connection string, uploading to container.
// skew gives a shard's hidden --clock-skew. It returns the shards' dirs.
func runShardProcs(t *testing.T, ctx context.Context, bin, conn, scen, runID, container string, n int, skew map[int]time.Duration) []string {
	t.Helper()
	dir := t.TempDir()
	startAt := time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339Nano)
	outs := make([]string, n)
	cmds := make([]*exec.Cmd, n)
	for i := range n {
		outs[i] = filepath.Join(dir, fmt.Sprintf("shard-%d", i))
		args := []string{"run", scen, "--target", "connection-string", "--shards", strconv.Itoa(n), "--run-id", runID,
			"--start-at", startAt, "--upload", container, "--progress", "none", "--out", outs[i]}
		if d, ok := skew[i]; ok {
			args = append(args, "--clock-skew", d.String())
		}
		cmds[i] = exec.CommandContext(ctx, bin, args...)
		cmds[i].Env = append(os.Environ(), "AZURE_STORAGE_CONNECTION_STRING="+conn, "JOB_COMPLETION_INDEX="+strconv.Itoa(i))
	}
	logs, errs := runSideBySide(cmds)
	for i := range n {
		if errs[i] != nil {
			if ee, ok := errs[i].(*exec.ExitError); !ok || ee.ExitCode() != exitOK {
				t.Fatalf("shard %d: %v\n%s", i, errs[i], logs[i])
			}
		}
	}
	return outs
}

// mergeFrom runs stormcheck merge --from and returns its exit code,
// output and the merged summary.
func mergeFrom(t *testing.T, ctx context.Context, bin, conn, container, runID string) (int, string, string, *reports.Summary, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "merged")
	cmd := exec.CommandContext(ctx, bin, "merge", out, "--from", container, "--run-id", runID, "--target", "connection-string")
	cmd.Env = append(os.Environ(), "AZURE_STORAGE_CONNECTION_STRING="+conn)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout.String()+stderr.String(), conn) {
		t.Fatal("the merge printed the connection string")
	}
	s, err := reports.ReadSummary(filepath.Join(out, runner.SummaryFile))
	if err != nil {
		t.Fatalf("merge: exit %d, no summary: %v\n%s\n%s", code, err, stdout.String(), stderr.String())
	}
	return code, stdout.String(), stderr.String(), s, out
}

// runCLI runs one stormcheck command in process.
func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errOut strings.Builder
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// TestMergeShardsEndToEnd is issue 15's "Done when": four shard processes
// against one Azurite, racing If-Match on shared keys, uploading, merged
// with merge --from: counts are the sum of the shards', the merged
// percentiles those of one histogram of every recorded latency, checks
// pass; one shard's clock skewed within the bound makes no false
// violation and no warning, beyond it the merge says so (and still no false
// violation); with If-Match stripped the merged check fails.
func TestMergeShardsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 12 shard processes against Azurite")
	}
	bin := buildBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	inst, err := azurite.Start(ctx, azurite.Options{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Stop()
	conn := inst.ConnectionString()
	scen := filepath.Join(t.TempDir(), "merge-race.yaml")
	if err := os.WriteFile(scen, []byte(mergeScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	const n, container = 4, "merge-results"

	t.Run("within the bound", func(t *testing.T) {
		const runID = "4e4e0001"
		dirs := runShardProcs(t, ctx, bin, conn, scen, runID, container, n, map[int]time.Duration{1: 40 * time.Millisecond})
		code, stdout, stderr, s, out := mergeFrom(t, ctx, bin, conn, container, runID)
		if code != exitOK {
			t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, stderr)
		}
		assertMergedExactly(t, dirs, s)
		if s.Files["shards"] != "shards/" || s.ExitCode != exitOK {
			t.Errorf("files %v, exit code %d in the summary", s.Files, s.ExitCode)
		}
		if strings.Contains(stdout, "BOUND EXCEEDED") {
			t.Errorf("a 40ms skew within the 100ms bound reported as exceeded:\n%s", stdout)
		}
		for _, p := range s.MergedFrom {
			if p.BeyondBound != 0 || p.Widened != 100*time.Millisecond {
				t.Errorf("shard %d: beyond %v, widened %v: want 0 and the stated 100ms", p.Index, p.BeyondBound, p.Widened)
			}
		}
		if len(s.Checks) == 0 {
			t.Fatal("no checks ran on the merged history")
		}
		for _, c := range s.Checks {
			if c.Verdict != checks.Pass {
				t.Errorf("check %s on %s: %s (%s), want pass", c.Check, c.Workload, c.Verdict, c.Summary)
			}
		}
		// report and check re-read the merged directory as any run's.
		if code, o, e := runCLI("check", out); code != exitOK {
			t.Errorf("check on the merged directory: exit %d\n%s\n%s", code, o, e)
		}
		if code, o, e := runCLI("report", out); code != exitOK || !strings.Contains(o, "merged    4 shards of run "+runID) {
			t.Errorf("report on the merged directory: exit %d\n%s\n%s", code, o, e)
		}
		t.Logf("merged report:\n%s", stdout)
	})

	t.Run("beyond the bound", func(t *testing.T) {
		const runID, skew = "4e4e0002", 2500 * time.Millisecond
		runShardProcs(t, ctx, bin, conn, scen, runID, container, n, map[int]time.Duration{3: skew})
		code, stdout, stderr, s, _ := mergeFrom(t, ctx, bin, conn, container, runID)
		if code != exitOK {
			t.Fatalf("merge: exit %d (a skew the merge measured must make no false violation)\n%s\n%s", code, stdout, stderr)
		}
		p := s.MergedFrom[3]
		if p.BeyondBound <= 0 || p.BeyondBound > skew || p.Widened < skew-time.Second {
			t.Errorf("shard 3 skewed by %v: beyond the bound by %v, widened %v", skew, p.BeyondBound, p.Widened)
		}
		if !strings.Contains(stdout, "CLOCK OFFSET BOUND EXCEEDED: shard 3's clock is at least") ||
			len(s.MergeNotes) == 0 || !strings.HasPrefix(s.MergeNotes[0], "clock offset bound exceeded: shard 3") {
			t.Errorf("the merge does not say shard 3's clock is beyond the bound:\n%s\nnotes %q", stdout, s.MergeNotes)
		}
		t.Logf("merged report:\n%s", stdout)
		for _, q := range s.MergedFrom[:3] {
			if q.BeyondBound != 0 {
				t.Errorf("shard %d blamed for shard 3's clock: %+v", q.Index, q)
			}
		}
		for _, c := range s.Checks {
			if c.Verdict != checks.Pass {
				t.Errorf("check %s on %s: %s (%s): a false violation from the skew", c.Check, c.Workload, c.Verdict, c.Summary)
			}
		}
	})

	t.Run("broken promise", func(t *testing.T) {
		const runID = "4e4e0003"
		broken := filepath.Join(t.TempDir(), "broken.yaml")
		if err := os.WriteFile(broken, []byte(mergeScenario+"faults:\n  - {kind: broken.strip-if-match, name: breaker}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		runShardProcs(t, ctx, bin, conn, broken, runID, container, n, nil)
		code, stdout, _, s, out := mergeFrom(t, ctx, bin, conn, container, runID)
		failed := false
		for _, c := range s.Checks {
			if c.Check == "no-lost-updates" && c.Workload == "race" && c.Verdict == checks.Fail {
				failed = true
			}
		}
		if code, _, _ := runCLI("compare", out, out); code != exitOK {
			t.Errorf("compare of the merged run with itself: exit %d", code)
		}
		if code != exitViolation || !failed {
			t.Fatalf("If-Match stripped on every shard: merge exit %d, want %d with no-lost-updates failing on race\n%s", code, exitViolation, stdout)
		}
	})
}

// assertMergedExactly holds the merged summary to the shards' own files:
// every count is their sum, and the merged percentiles are those of one
// histogram of every latency the shards' histories recorded.
func assertMergedExactly(t *testing.T, dirs []string, s *reports.Summary) {
	t.Helper()
	type key struct{ w, op string }
	want := map[key]int64{}
	wantOut := map[key]map[string]int64{}
	var acct int64
	for _, d := range dirs {
		sh, err := reports.ReadSummary(filepath.Join(d, runner.SummaryFile))
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range sh.Workloads {
			for _, o := range w.Ops {
				k := key{w.Name, o.Op}
				want[k] += o.Count
				if wantOut[k] == nil {
					wantOut[k] = map[string]int64{}
				}
				for oc, c := range o.Outcomes {
					wantOut[k][oc] += c
				}
			}
		}
		for _, u := range sh.Units {
			if u.Kind == reports.UnitAccount {
				acct += u.Amount
			}
		}
	}
	// One histogram of every recorded latency, from the histories.
	lat, cor := map[key]*hdrhistogram.Histogram{}, map[key]*hdrhistogram.Histogram{}
	for _, d := range dirs {
		err := checks.ReadHistoryFile(runner.HistoryPath(d), func(op *checks.Op) error {
			if op.IsHarness() {
				return nil
			}
			k := key{op.Workload, op.Kind}
			if lat[k] == nil {
				lat[k], cor[k] = hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3), hdrhistogram.New(1, int64(time.Hour/time.Microsecond), 3)
			}
			l := max(op.Return-op.Call, 0)
			_ = lat[k].RecordValue((l + 500) / 1000)
			_ = cor[k].RecordValue((max(op.Return-op.Intended, l) + 500) / 1000)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	got := map[key]bool{}
	var total int64
	for _, w := range s.Workloads {
		for _, o := range w.Ops {
			k := key{w.Name, o.Op}
			got[k] = true
			if o.Count != want[k] {
				t.Errorf("%s %s: merged count %d, shards' sum %d", k.w, k.op, o.Count, want[k])
			}
			for oc, c := range wantOut[k] {
				if o.Outcomes[oc] != c {
					t.Errorf("%s %s: merged %s %d, shards' sum %d", k.w, k.op, oc, o.Outcomes[oc], c)
				}
			}
			var perSec int64
			for _, c := range o.PerSecond {
				perSec += c.Total()
			}
			if perSec != o.Count {
				t.Errorf("%s %s: per-second series add up to %d, count %d", k.w, k.op, perSec, o.Count)
			}
			total += o.Count
			for _, c := range []struct {
				name string
				p    reports.Percentiles
				enc  string
				h    *hdrhistogram.Histogram
			}{{"latency", o.Latency, o.Histograms.Latency, lat[k]}, {"corrected", o.Corrected, o.Histograms.Corrected, cor[k]}} {
				if c.h == nil {
					t.Fatalf("%s %s: no recorded latencies", k.w, k.op)
				}
				merged, err := reports.DecodeHistogram(c.enc)
				if err != nil {
					t.Fatal(err)
				}
				if !merged.Equals(c.h) {
					t.Errorf("%s %s %s: the merged histogram is not the histogram of every recorded latency (%d vs %d values)", k.w, k.op, c.name, merged.TotalCount(), c.h.TotalCount())
				}
				maxMs := c.p.Max
				for _, q := range []struct {
					q   float64
					got float64
				}{{50, c.p.P50}, {90, c.p.P90}, {99, c.p.P99}, {99.9, c.p.P999}} {
					if w := min(float64(c.h.ValueAtQuantile(q.q))/1e3, maxMs); w != q.got {
						t.Errorf("%s %s %s p%v: merged %vms, one histogram of all latencies %vms", k.w, k.op, c.name, q.q, q.got, w)
					}
				}
				if c.p.Count != c.h.TotalCount() {
					t.Errorf("%s %s %s: count %d, recorded %d", k.w, k.op, c.name, c.p.Count, c.h.TotalCount())
				}
			}
		}
	}
	for k := range want {
		if !got[k] {
			t.Errorf("%s %s: in the shards, not in the merged summary", k.w, k.op)
		}
	}
	for _, u := range s.Units {
		if u.Kind == reports.UnitAccount && u.Amount != acct {
			t.Errorf("account: merged amount %d, shards' sum %d", u.Amount, acct)
		}
	}
	if total == 0 {
		t.Fatal("the merged run has no operations")
	}
}
