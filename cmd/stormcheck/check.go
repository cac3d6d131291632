package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/internal/boundedread"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/text"
	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/scenarios"
)

func newCheckCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "check RESULTS_DIR",
		Short: "Re-run the checks over a saved run's history",
		Long: `Re-runs the scenario's checks (from RESULTS_DIR/scenario.yaml) over
RESULTS_DIR/history.jsonl.zst (or history.jsonl, as runs before compression
wrote it): after a checker is fixed or added, old runs can be judged again.
Pictures of violations are written beside the history.

A history cut short by a killed run or a full disk, or damaged on disk, is
checked up to its last whole record, and the verdict is at best undecided
(exit 4).
To read the history yourself: zstd -dc RESULTS_DIR/history.jsonl.zst | head`,
		Example:           `  stormcheck check results/quickstart-20261122-091957`,
		Args:              exactArgs(1, "want exactly one results directory"),
		ValidArgsFunction: completeDirs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return exitWith(checkSaved(cmd, args[0]))
		},
	}
}

// checkSaved re-runs the checks of a saved run over its history file.
func checkSaved(cmd *cobra.Command, dir string) int {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	saved, err := reports.ReadSummary(filepath.Join(dir, runner.SummaryFile))
	if boundedread.As(err) != nil { // summary.json is optional (a killed run wrote none), but one past its bound is refused
		fmt.Fprintln(stderr, "stormcheck check:", err)
		return exitUsage
	}
	if err == nil && saved.Shard != nil && saved.Shard.Count > 1 {
		sh := saved.Shard
		fmt.Fprintf(stderr, "stormcheck check: %s holds shard %d of %d of run %s: its history is only part of the run's (shared keys are written by every shard, the setup is in shard 0's, the final reads in the last shard's), so its checks would judge what they cannot see; merge the shards and check the merged run: stormcheck merge OUT DIR...\n", dir, sh.Index, sh.Count, sh.RunID)
		return exitUsage
	}
	sc, err := scenarios.Load(filepath.Join(dir, runner.ScenarioFile))
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		// It said only "open DIR/scenario.yaml: no such file or directory".
		if _, serr := os.Stat(dir); serr != nil {
			fmt.Fprintf(stderr, "stormcheck check: no results directory %s: %v\n", dir, serr)
			return exitUsage
		}
		fmt.Fprintf(stderr, "stormcheck check: %s is not a results directory: it holds no %s (stormcheck run writes one in each results directory): %v\n", dir, runner.ScenarioFile, err)
		return exitUsage
	}
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	defer tuneCheckGC()()
	results, err := runner.CheckHistory(runner.HistoryPath(dir), sc)
	truncated := checks.IsTruncated(err)
	if truncated {
		fmt.Fprintln(stderr, "stormcheck check: warning:", err)
		err = nil
	}
	if err == nil {
		err = runner.WriteArtifacts(dir, results) // pictures of violations, beside the history
	}
	if boundedread.As(err) != nil { // a record past its bound: the history is not one stormcheck wrote
		fmt.Fprintln(stderr, "stormcheck check:", err)
		return exitUsage
	}
	if err != nil {
		fmt.Fprintln(stderr, "stormcheck check:", err)
		return exitHarness
	}
	text.WriteText(stdout, checkedSummary(saved, sc, results))
	if len(results) == 0 {
		// The header alone would leave the reader wondering what happened.
		fmt.Fprintln(stdout, noChecksLine(sc))
	}
	code := exitOK
	if truncated {
		code = exitUndecided // what the missing records held was not judged
	}
	for _, r := range results {
		if r.Verdict == checks.Fail {
			return exitViolation
		}
		if r.Verdict == checks.Undecided {
			code = exitUndecided
		}
	}
	return code
}

// checkedSummary is what check prints: the saved run's header (seed,
// target, start, elapsed, as its summary.json recorded them) with the new
// verdicts. Without a saved summary (nil: a run killed before writing it)
// the header has what the scenario says and no times.
func checkedSummary(saved *reports.Summary, sc *scenarios.Scenario, results []checks.Result) *reports.Summary {
	s := &reports.Summary{Scenario: sc.Name, File: sc.File, Seed: sc.Seed, Checks: results}
	if saved != nil {
		s.File, s.Seed, s.Target, s.Interrupted = saved.File, saved.Seed, saved.Target, saved.Interrupted
		s.Started, s.Elapsed, s.Startup, s.LoadStart = saved.Started, saved.Elapsed, saved.Startup, saved.LoadStart
	}
	return s
}

// noChecksLine says why check judged nothing: the scenario names no
// check (the loader refuses a check that judges none of its kinds).
func noChecksLine(sc *scenarios.Scenario) string {
	return "checks: none: " + sc.File + " names no checks (list them under checks:; stormcheck kinds shows which apply to each kind), so nothing was judged"
}
