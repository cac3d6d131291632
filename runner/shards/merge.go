package shards

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/internal/boundedread"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/html"
	"github.com/stormcheck/stormcheck/reports/merge"
	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios"
)

// Read reads the summaries and scenarios of the shards' results
// directories and refuses those that are not the whole of one sharded run
// (reports.CheckShards); the shards come back ordered by index.
func Read(dirs []string) ([]merge.ShardResults, error) {
	var shards []merge.ShardResults
	for _, d := range dirs {
		s, err := reports.ReadSummary(filepath.Join(d, runner.SummaryFile))
		if err != nil {
			return nil, fmt.Errorf("%s: no readable %s (a shard's results directory holds one): %w", d, runner.SummaryFile, err)
		}
		sc, err := scenarios.ReadFile(filepath.Join(d, runner.ScenarioFile)) // bounded as a scenario
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d, err)
		}
		if _, err := os.Stat(runner.HistoryPath(d)); err != nil {
			return nil, fmt.Errorf("%s: no history (%s): %w", d, runner.HistoryFile, err)
		}
		if err := firstRecordFits(runner.HistoryPath(d)); err != nil {
			return nil, fmt.Errorf("%s: %w", d, err)
		}
		shards = append(shards, merge.ShardResults{Dir: d, Summary: s, Scenario: sc})
	}
	return merge.CheckShards(shards)
}

// firstRecordFits reads a history up to its first record and returns the
// error when that record is past its bound (checks.MaxRecordBytes): a
// device, or a file that is no history, refused before the merge writes
// anything. Any other problem is the merge's to report, as it goes.
func firstRecordFits(path string) error {
	errFirst := errors.New("first record read")
	err := checks.ReadHistoryFile(path, func(*checks.Op) error { return errFirst })
	if boundedread.As(err) != nil {
		return err
	}
	return nil
}

// Merge merges the shards' results (as ReadShards returns them) into
// out, which the caller has claimed (ClaimResultsDir, StageResultsDir): the scenario, the
// merged history (history.jsonl.zst: times rebased to the earliest shard's
// start, every interval widened by its shard's clock bound, see
// reports.PlanShards), the merged latency logs (hlog/), the checks over the
// merged history (and their pictures), summary.json and report.html. It
// writes what it has even when a step fails, and returns the summary
// (ExitCode is the caller's) with the first error. Once ctx is done (an
// interrupt) it stops before its next step and returns no summary and
// ctx's error: what it wrote is the caller's to discard.
func Merge(ctx context.Context, out string, shards []merge.ShardResults, logf func(string, ...any)) (*reports.Summary, error) {
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if err := reports.WriteFileAtomic(filepath.Join(out, runner.ScenarioFile), func(w io.Writer) error {
		_, err := w.Write(shards[0].Scenario)
		return err
	}); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	sc, err := scenarios.Load(filepath.Join(out, runner.ScenarioFile))
	if err != nil {
		return nil, fmt.Errorf("the shards' scenario: %w", err)
	}
	origin, plan, notes := merge.PlanShards(shards)
	for _, n := range notes {
		logf("%s", n)
	}
	names := make([]string, 0, len(sc.Workloads))
	goals := map[string]reports.Goal{}
	for _, w := range sc.Workloads {
		names = append(names, w.Name)
		if g, ok := reports.GoalOf(w.Kind); ok {
			goals[w.Name] = g
		}
	}
	replay := reports.NewMetrics(reports.MetricsOptions{Start: origin, Workloads: names, Goals: goals})
	hist := make([]merge.HistoryShard, len(shards))
	hlogDirs := make([]string, len(shards))
	shifts := make([]time.Duration, len(shards))
	for i, s := range shards {
		hist[i] = merge.HistoryShard{Path: runner.HistoryPath(s.Dir), Shift: plan[i].Shift, Widen: plan[i].Widened}
		hlogDirs[i] = html.HlogDirOf(s.Dir, s.Summary)
		shifts[i] = plan[i].Shift
	}
	var errs []error
	logf("merging the histories of %d shards", len(shards))
	historyPath := filepath.Join(out, runner.HistoryFile)
	counts, truncated, histErr := merge.MergeHistoryFile(historyPath, hist, func(_ int, op *checks.Op) { replay.Record(op) })
	if histErr != nil {
		errs = append(errs, fmt.Errorf("merged history: %w", histErr))
	}
	for i := range plan {
		if i < len(counts) {
			plan[i].Ops = counts[i]
		}
	}
	for _, t := range truncated {
		notes = append(notes, t.Error()+": merged up to its last whole record")
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	latency, hlogFiles, problems, err := merge.MergeHlogs(hlogDirs, shifts, filepath.Join(out, runner.HlogDir), origin)
	if err != nil {
		errs = append(errs, fmt.Errorf("merged hlogs: %w", err))
	}
	notes = append(notes, problems...)
	sum := merge.MergeSummary(merge.MergeInput{Shards: shards, Plan: plan, Origin: origin, Notes: notes, Replayed: replay,
		Latency: latency, Targets: runner.UnitTargets(sc.Capacity), Bandwidth: runner.BandwidthTargets(sc.Capacity)})
	sum.File = sc.File
	if len(hlogFiles) > 0 {
		sum.Files["hlog"] = runner.HlogDir + string(os.PathSeparator)
	}
	sum.Files["history"] = runner.HistoryFile
	sum.Files["scenario"] = runner.ScenarioFile

	// The units' latencies from the unwidened times, in a second pass.
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	units := reports.NewUnitLatencyCollector(sum.Units)
	if _, _, err := merge.MergeHistories(hist, nil, func(_ int, op *checks.Op) { units.Observe(op) }); err != nil {
		logf("unit latencies: %v", err)
	}
	units.Apply()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if histErr == nil || len(counts) > 0 {
		logf("checking the merged history")
		results, cerr := runner.CheckHistory(historyPath, sc)
		if cerr != nil && !checks.IsTruncated(cerr) {
			sum.ChecksError = target.Redact(cerr.Error())
			errs = append(errs, cerr)
		}
		if len(truncated) > 0 {
			results = withholdFailures(results, truncated)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if werr := runner.WriteArtifacts(out, results); werr != nil {
			sum.NotWritten = append(sum.NotWritten, werr.Error())
			errs = append(errs, werr)
		}
		sum.Checks = results
	}
	sum.Thresholds = reports.EvaluateThresholds(sum, sc.Thresholds)
	runErr := errors.Join(errs...)
	if runErr != nil {
		sum.Error = runner.JoinErr(sum.Error, target.Redact(runErr.Error()))
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err := runner.WriteResults(out, sum); err != nil && runErr == nil {
		runErr = err
	}
	return sum, runErr
}

// withholdFailures turns the failures of checks over a merged history that
// lacks what a shard recorded after its history was cut into undecided
// verdicts, their violations kept as evidence: the other shards' records
// go on past the cut, so a write the cut shard made (and lost) can be what
// explains a refusal or a read. Two shards, one cut in half, gave "FAIL
// version-chain: 412 on a current ETag" and exit 1 for a run with no
// violation.
func withholdFailures(results []checks.Result, truncated []error) []checks.Result {
	out := slices.Clone(results)
	for i, r := range out {
		if r.Verdict != checks.Fail {
			continue
		}
		out[i].Verdict = checks.Undecided
		out[i].Summary = fmt.Sprintf("%s; undecided, not judged a violation: the history of %d shard(s) is cut short (see merged), and the records cut off may explain it",
			r.Summary, len(truncated))
	}
	return out
}
