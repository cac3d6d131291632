package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/scenarios"
)

const compareUsage = `usage: stormcheck compare [flags] BASE NEW

Compares two saved runs (results directories, or their summary.json files)
of the same scenario: per workload and operation, the change in throughput
and in latency (p50, p90, p99, p99.9 from each run's whole HdrHistogram,
corrected; the Kolmogorov-Smirnov distance between the distributions), each
with a noise estimate from the runs' per-second variation (the latency noise
needs the runs' hlog directories, so give directories where you can).

A change is flagged as a regression (or an improvement) only when it is
larger than both the noise and the tolerance: --tolerance, else the NEW
run's scenario (compare: {tolerance: 0.1}), else 10 %.

Exit codes: 0 no regression, 6 a regression, 2 bad usage or unreadable runs.

Flags:
`

// cmdCompare compares two saved runs.
func cmdCompare(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, compareUsage); fs.PrintDefaults() }
	tolerance := fs.Float64("tolerance", -1, "relative change never flagged, e.g. 0.1 for 10 % (default: the scenario's, else 0.1)")
	asJSON := fs.Bool("json", false, "print the comparison as JSON")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 2 {
		fs.Usage()
		return exitUsage
	}
	base, baseHlog, err := loadRun(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, "stormcheck compare:", err)
		return exitUsage
	}
	cur, curHlog, err := loadRun(fs.Arg(1))
	if err != nil {
		fmt.Fprintln(stderr, "stormcheck compare:", err)
		return exitUsage
	}
	if base.Scenario != cur.Scenario {
		fmt.Fprintf(stderr, "stormcheck compare: warning: comparing different scenarios (%q and %q)\n", base.Scenario, cur.Scenario)
	}
	tol := *tolerance
	if tol < 0 {
		tol = scenarioTolerance(fs.Arg(1))
	}
	c := reports.CompareRuns(base, cur, reports.CompareOptions{Tolerance: tol, BaseHlog: baseHlog, NewHlog: curHlog})
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(c); err != nil {
			return exitHarness
		}
	} else if err := reports.WriteComparison(stdout, c, fs.Arg(0), fs.Arg(1)); err != nil {
		return exitHarness
	}
	if c.Regressions > 0 {
		return exitRegression
	}
	return exitOK
}

// loadRun reads a run's summary from a results directory or a summary.json
// path, and names its hlog directory when there is one.
func loadRun(path string) (*reports.Summary, string, error) {
	dir, file := path, filepath.Join(path, runner.SummaryFile)
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		dir, file = filepath.Dir(path), path
	}
	s, err := reports.ReadSummary(file)
	if err != nil {
		return nil, "", err
	}
	hlog := filepath.Join(dir, runner.HlogDir)
	if st, err := os.Stat(hlog); err != nil || !st.IsDir() {
		hlog = ""
	}
	return s, hlog, nil
}

// scenarioTolerance is the compare tolerance of the run's saved scenario,
// or 0.1.
func scenarioTolerance(path string) float64 {
	dir := path
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		dir = filepath.Dir(path)
	}
	if sc, err := scenarios.Load(filepath.Join(dir, runner.ScenarioFile)); err == nil {
		return sc.Compare.Tolerance
	}
	return 0.1
}
