package main

import (
	"encoding/json"
	"flag"
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
		fmt.Fprintln(stderr, "usage: stormcheck check RESULTS_DIR\n\n"+
			"Re-runs the scenario's checks (from RESULTS_DIR/scenario.yaml) over RESULTS_DIR/history.jsonl.zst\n"+
			"(or history.jsonl, as runs before compression wrote it). A history cut short by a killed run or\n"+
			"a full disk is checked up to its last whole record, and the verdict is at best undecided.\n"+
			"To read the history yourself: zstd -dc RESULTS_DIR/history.jsonl.zst | head")
		return exitUsage
	}
	dir := args[0]
	sc, err := scenarios.Load(filepath.Join(dir, runner.ScenarioFile))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	results, err := runner.CheckHistory(runner.HistoryPath(dir), sc)
	truncated := checks.IsTruncated(err)
	if truncated {
		fmt.Fprintln(stderr, "stormcheck check: warning:", err)
		err = nil
	}
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

// cmdReport re-renders a saved run from its summary.json (and hlog/):
// writes RESULTS_DIR/report.html and prints the report, as text, the HTML
// page or the summary as JSON.
func cmdReport(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "what to print: text (the terminal report), html (the page) or json (the summary)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: stormcheck report [--format text|html|json] RESULTS_DIR\n\n"+
			"Writes RESULTS_DIR/report.html again from RESULTS_DIR/summary.json and the latency logs in hlog/,\n"+
			"and prints the report of the saved run. Flags:")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 1 || (*format != "text" && *format != "html" && *format != "json") {
		fs.Usage()
		return exitUsage
	}
	dir := fs.Arg(0)
	s, err := reports.ReadSummary(filepath.Join(dir, runner.SummaryFile))
	if err != nil {
		fmt.Fprintln(stderr, "stormcheck report:", err)
		return exitUsage
	}
	if s.Files == nil {
		s.Files = map[string]string{}
	}
	s.Files["report"] = reports.HTMLFile // the page lists itself, as after a run
	code := s.ExitCode
	if err := reports.WriteHTMLReport(dir, s); err != nil {
		fmt.Fprintln(stderr, "stormcheck report:", err)
		code = exitHarness
	} else {
		fmt.Fprintln(stderr, "stormcheck report: wrote", filepath.Join(dir, reports.HTMLFile))
	}
	switch *format {
	case "html":
		err = reports.WriteHTML(stdout, s, reports.HlogDirOf(dir, s))
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		err = enc.Encode(s)
	default:
		err = reports.WriteText(stdout, s)
	}
	if err != nil {
		fmt.Fprintln(stderr, "stormcheck report:", err)
		return exitHarness
	}
	return code
}
