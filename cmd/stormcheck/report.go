package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/html"
	"github.com/stormcheck/stormcheck/reports/text"
	"github.com/stormcheck/stormcheck/runner"
)

func newReportCmd() *cobra.Command {
	var format *enumFlag
	cmd := &cobra.Command{
		Use:   "report [--format text|html|json] RESULTS_DIR",
		Short: "Print a saved run's report again from its summary.json",
		Long: `Prints the report of a saved run from RESULTS_DIR/summary.json and the latency
logs in hlog/: as text (the terminal report) or the HTML page, and then also
writes RESULTS_DIR/report.html again (atomically); or, with --format json, the
summary as saved, writing nothing. The exit code is the saved run's.`,
		Example: `  stormcheck report results/quickstart-20261122-091957
  stormcheck report --format json results/quickstart-20261122-091957 | jq .checks`,
		Args:              exactArgs(1, "want exactly one results directory"),
		ValidArgsFunction: completeDirs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return exitWith(reportSaved(cmd, args[0], format.value))
		},
	}
	format = addEnumFlag(cmd, "format", "text", "what to print: text (the terminal report), html (the page) or json (the summary)", "text", "html", "json")
	return cmd
}

// reportSaved re-renders a saved run from its summary.json (and hlog/).
func reportSaved(cmd *cobra.Command, dir, format string) int {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	s, err := reports.ReadSummary(filepath.Join(dir, runner.SummaryFile))
	if err != nil {
		fmt.Fprintln(stderr, "stormcheck report:", err)
		return exitUsage
	}
	if s.Files == nil {
		s.Files = map[string]string{}
	}
	if format != "json" {
		s.Files["report"] = reports.HTMLFile // the page lists itself, as after a run
	}
	code := s.ExitCode
	if format == "json" {
		// The summary as saved: nothing in the folder is rewritten.
	} else if err := html.WriteHTMLReport(dir, s); err != nil {
		fmt.Fprintln(stderr, "stormcheck report:", err)
		code = exitHarness
	} else {
		fmt.Fprintln(stderr, "stormcheck report: wrote", filepath.Join(dir, reports.HTMLFile))
	}
	switch format {
	case "html":
		err = html.WriteHTML(stdout, s, html.HlogDirOf(dir, s))
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		err = enc.Encode(s)
	default:
		err = text.WriteText(stdout, s)
	}
	if err != nil {
		fmt.Fprintln(stderr, "stormcheck report:", err)
		return exitHarness
	}
	return code
}
