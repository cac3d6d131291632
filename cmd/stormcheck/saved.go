package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/scenarios"
)

// cmdCheck re-runs the checks of a saved run over its history file: after a
// checker is fixed or added, old runs can be judged again.
func cmdCheck(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stderr, "usage: stormcheck check RESULTS_DIR\n\nRe-runs the scenario's checks (from RESULTS_DIR/scenario.yaml) over RESULTS_DIR/history.jsonl.")
		return exitUsage
	}
	dir := args[0]
	sc, err := scenarios.Load(filepath.Join(dir, runner.ScenarioFile))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	results, err := runner.CheckHistory(filepath.Join(dir, runner.HistoryFile), sc)
	if err == nil {
		err = runner.WriteArtifacts(dir, results) // pictures of violations, beside the history
	}
	if err != nil {
		fmt.Fprintln(stderr, "stormcheck check:", err)
		return exitHarness
	}
	s := &reports.Summary{Scenario: sc.Name, Checks: results}
	reports.WriteText(stdout, s)
	code := exitOK
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

// cmdReport prints a saved run's report from its summary.json.
func cmdReport(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stderr, "usage: stormcheck report RESULTS_DIR\n\nPrints the report of a saved run from RESULTS_DIR/summary.json.")
		return exitUsage
	}
	s, err := reports.ReadSummary(filepath.Join(args[0], runner.SummaryFile))
	if err != nil {
		fmt.Fprintln(stderr, "stormcheck report:", err)
		return exitUsage
	}
	reports.WriteText(stdout, s)
	return s.ExitCode
}
