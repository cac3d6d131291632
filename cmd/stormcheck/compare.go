package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stormcheck/stormcheck/internal/boundedread"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/compare"
	"github.com/stormcheck/stormcheck/reports/text"
	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/scenarios"
)

const compareLong = `Compares saved runs (results directories, or their summary.json files) of
the same scenario: BASE NEW, or several runs a side, BASE... -- NEW...: per workload and operation, the change in throughput
and in latency (p50, p90, p99, p99.9 from each run's whole HdrHistogram,
corrected; the Kolmogorov-Smirnov distance between the distributions), each
with a noise estimate from the runs' per-second variation (the latency noise
needs the runs' hlog directories, so give directories where you can).

A change is flagged as a regression (or an improvement) only when it is
larger than both the noise and the tolerance: --tolerance, else the NEW
run's scenario (compare: {tolerance: 0.1}), else 10 %.

With several runs a side, each figure is the median of its runs and a change
is flagged when it exceeds the tolerance and the Mann-Whitney U test (as
benchstat) gives p < 0.05; it takes 4 runs a side to reach that. With one run
a side, the report says the verdict is weak and on what it rests.

Runs that are not comparable get no verdict, and the report says why: a
different scenario, scenario file (--set overrides) or target, the client
short of CPU in one run only, an open loop that left arrivals unserved in
one run only, or the machine busy with other work during either run (the
figures would then measure the client, the backlog or the neighbours, not
the target). The last line counts the figures judged and those too noisy or
too thin to judge.

Exit codes: 0 no regression, 6 a regression, 4 no verdict (the runs are not
comparable), 2 bad usage or unreadable runs.`

func newCompareCmd() *cobra.Command {
	tolerance := &optionalFloat{}
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "compare [flags] BASE NEW | BASE... -- NEW...",
		Short: "Compare two saved runs: throughput and latency changes beyond the noise",
		Long:  compareLong,
		Example: `  stormcheck compare results/base results/new
  stormcheck compare results/base results/new --tolerance 0.2
  stormcheck compare --json results/base/summary.json results/new/summary.json
  stormcheck compare results/base-1 results/base-2 results/base-3 results/base-4 -- results/new-1 results/new-2 results/new-3 results/new-4`,
		Args: func(cmd *cobra.Command, args []string) error {
			if _, _, err := compareSides(cmd, args); err != nil {
				return usageErr(cmd.CommandPath(), fmt.Errorf("%s: %v", cmd.CommandPath(), err))
			}
			return nil
		},
		ValidArgsFunction: completeDirs,
		RunE: func(cmd *cobra.Command, args []string) error {
			bases, news, _ := compareSides(cmd, args)
			return exitWith(compareRuns(cmd, bases, news, tolerance, asJSON))
		},
	}
	cmd.Flags().Var(tolerance, "tolerance", "relative change never flagged, e.g. 0.1 for 10 % (default: the NEW run's scenario's compare.tolerance, else 0.1)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the comparison as JSON")
	return cmd
}

// compareSides splits the arguments into base and new runs: BASE NEW, or
// BASE... -- NEW....
func compareSides(cmd *cobra.Command, args []string) (bases, news []string, err error) {
	dash := cmd.ArgsLenAtDash()
	switch {
	case dash < 0 && len(args) == 2:
		return args[:1], args[1:], nil
	case dash < 0:
		return nil, nil, fmt.Errorf("want two saved runs, BASE and NEW, or several a side, BASE... -- NEW... (results directories or summary.json files); got %d arguments", len(args))
	case dash == 0 || dash == len(args):
		return nil, nil, fmt.Errorf("want at least one run on each side of --, BASE... -- NEW...")
	}
	return args[:dash], args[dash:], nil
}

// compareRuns compares saved runs, one or several a side.
func compareRuns(cmd *cobra.Command, basePaths, newPaths []string, tolerance *optionalFloat, asJSON bool) int {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if tolerance.set && tolerance.v < 0 {
		fmt.Fprintf(stderr, "stormcheck compare: --tolerance %g: must be 0 or more (0.1 is 10 %%)\n", tolerance.v)
		return exitUsage
	}
	load := func(paths []string) ([]compare.Run, []string, bool) {
		var runs []compare.Run
		var hlogs []string
		for _, p := range paths {
			s, hlog, sc, err := loadRun(p)
			if err != nil {
				fmt.Fprintln(stderr, "stormcheck compare:", err)
				return nil, nil, false
			}
			runs, hlogs = append(runs, compare.Run{Summary: s, Scenario: sc}), append(hlogs, hlog)
		}
		return runs, hlogs, true
	}
	bases, baseHlogs, ok := load(basePaths)
	if !ok {
		return exitUsage
	}
	news, newHlogs, ok := load(newPaths)
	if !ok {
		return exitUsage
	}
	tol := tolerance.v
	if !tolerance.set {
		var err error
		if tol, err = scenarioTolerance(newPaths[0]); err != nil {
			fmt.Fprintln(stderr, "stormcheck compare:", err)
			return exitUsage
		}
	}
	c := compare.Many(bases, news, compare.Options{Tolerance: tol, BaseHlog: baseHlogs[0], NewHlog: newHlogs[0]})
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(c); err != nil {
			return exitHarness
		}
	} else if err := text.WriteComparison(stdout, c, strings.Join(basePaths, " "), strings.Join(newPaths, " ")); err != nil {
		return exitHarness
	}
	switch {
	case len(c.Incomparable) > 0:
		return exitUndecided
	case c.Regressions > 0:
		return exitRegression
	}
	return exitOK
}

// optionalFloat is a float flag that knows whether it was given; unset, it
// shows no default of its own in --help (the usage text says what applies).
type optionalFloat struct {
	v   float64
	set bool
}

func (o *optionalFloat) String() string {
	if !o.set {
		return ""
	}
	return strconv.FormatFloat(o.v, 'g', -1, 64)
}
func (o *optionalFloat) Type() string { return "float" }
func (o *optionalFloat) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return fmt.Errorf("not a number (e.g. 0.1 for 10 %%)")
	}
	o.v, o.set = v, true
	return nil
}

// loadRun reads a run's summary from a results directory or a summary.json
// path, names its hlog directory when there is one, and returns the
// scenario kept beside it (nil when there is none).
func loadRun(path string) (*reports.Summary, string, []byte, error) {
	dir, file := path, filepath.Join(path, runner.SummaryFile)
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		dir, file = filepath.Dir(path), path
	}
	s, err := reports.ReadSummary(file)
	if err != nil {
		return nil, "", nil, err
	}
	hlog := filepath.Join(dir, runner.HlogDir)
	if st, err := os.Stat(hlog); err != nil || !st.IsDir() {
		hlog = ""
	}
	var sc []byte
	if loaded, err := scenarios.ReadFile(filepath.Join(dir, runner.ScenarioFile)); err == nil {
		sc = loaded
	}
	return s, hlog, sc, nil
}

// scenarioTolerance is the compare tolerance of the run's saved scenario,
// or 0.1 when it has none that loads; a scenario past its size bound is an
// error.
func scenarioTolerance(path string) (float64, error) {
	dir := path
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		dir = filepath.Dir(path)
	}
	sc, err := scenarios.Load(filepath.Join(dir, runner.ScenarioFile))
	if err == nil {
		return sc.Compare.Tolerance, nil
	}
	if big := boundedread.As(err); big != nil {
		return 0, big
	}
	return 0.1, nil
}
