package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/scenarios"
)

const runLong = `Runs the scenario's workloads against its target, records every attempt to
RESULTS/history.jsonl.zst, checks the history, prints a report and writes
RESULTS/summary.json, one HdrHistogram log per operation (RESULTS/hlog/),
RESULTS/report.html and, for a managed Azurite, its log.

Targets: by default the scenario's target (normally a managed Azurite that
stormcheck starts on free loopback ports and stops at the end). To run
against another endpoint or a real account without editing the scenario:
  --target connection-string   reads AZURE_STORAGE_CONNECTION_STRING
  --connection-string STR      (implies --target connection-string)
Every resource a run creates is named sc<run id>-<workload>..., beside the
run's marker container sc<run id>, and deleted at the end within its own
bound (1m), even after Ctrl-C. Secrets are never printed or written.

Ctrl-C stops the load; final reads, cleanup and checks follow. A second
Ctrl-C skips the final reads; the cleanup still runs, for at most 10s. A
third stops the cleanup: what is left is listed with the 'stormcheck
cleanup --run ID' command that deletes it. Every time, the results recorded
so far are written and the exit code is 130.

A target that answers nothing at all (killed, frozen, unreachable) for
--unreachable-after (default 30s, or the scenario's unreachable_after) stops
the run: an ERROR line names the endpoint and since when, the final reads
are skipped, the cleanup gets 10s, the results are written, exit code 3.
A results folder that fills up stops the load at the first failed write;
the history keeps every whole record before it; exit code 3.`

const runExample = `  # the quickstart, about 30 s against a managed Azurite
  stormcheck run scenarios/quickstart.yaml

  # a 5-second smoke run, plain progress lines, results in a chosen folder
  stormcheck run scenarios/quickstart.yaml --duration 5s --progress lines --out /tmp/smoke

  # overrides: 4 actors per workload, a 10 s load, a bigger payload for one workload
  stormcheck run scenarios/quickstart.yaml --actors 4 --duration 10s --set counter.payload_bytes=1024

  # live metrics while it runs: a Prometheus endpoint and an OTLP collector
  stormcheck run scenarios/quickstart.yaml --prometheus 127.0.0.1:9464 --otlp http://127.0.0.1:4318

  # against a real account (the connection string is never printed)
  AZURE_STORAGE_CONNECTION_STRING=... stormcheck run scenarios/quickstart.yaml --target connection-string`

// runFlags are run's flags.
type runFlags struct {
	out, connStr     string
	target, progress *enumFlag
	duration         time.Duration
	actors           int
	rate             float64
	set              []string
	seed             int64
	export           *exportFlags
	unreachableAfter time.Duration
}

func newRunCmd() *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:               "run [flags] SCENARIO.yaml",
		Short:             "Run a scenario, check its history, print the report, write the results directory",
		Long:              runLong,
		Example:           runExample,
		Args:              exactArgs(1, "want exactly one scenario file (try scenarios/quickstart.yaml)"),
		ValidArgsFunction: completeYAML,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScenario(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "", "results directory, new or empty: one holding anything is refused and left as it was (default results/<scenario>-<date>-<time>)")
	f.target = addEnumFlag(cmd, "target", "", "override the scenario's target kind: azurite or connection-string", scenarios.TargetAzurite, scenarios.TargetConnectionString)
	fl.StringVar(&f.connStr, "connection-string", "", "storage connection string (never printed); implies --target connection-string")
	f.progress = addEnumFlag(cmd, "progress", "auto", "live progress: auto (bars on a terminal, lines otherwise), bars, lines or none", "auto", "bars", "lines", "none")
	fl.DurationVar(&f.duration, "duration", 0, "set the load phase of every workload, e.g. 5s; a workload's stages are scaled to last it in all, keeping their shape")
	fl.IntVar(&f.actors, "actors", 0, "set every workload's actors; closed-loop stage targets are scaled by the same factor")
	fl.Float64Var(&f.rate, "rate", 0, "set every open-loop workload's starting rate (arrivals/s); its stage targets are scaled by the same factor")
	fl.StringArrayVar(&f.set, "set", nil, "set WORKLOAD.FIELD=VALUE: a param of the workload's kind or actors, rate, keys, duration, iterations, executor; * for every workload; repeatable")
	fl.Int64Var(&f.seed, "seed", 0, "override the scenario's seed")
	f.export = addExportFlags(cmd)
	fl.DurationVar(&f.unreachableAfter, "unreachable-after", 0, "stop the run (exit 3) once the target has answered nothing at all for this long (default: the scenario's unreachable_after, 30s)")
	return cmd
}

func runScenario(cmd *cobra.Command, file string, f *runFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	fl := cmd.Flags()
	for name, bad := range map[string]bool{"duration": f.duration <= 0, "actors": f.actors <= 0, "rate": f.rate <= 0} {
		if fl.Changed(name) && bad {
			return usageErr(cmd.CommandPath(), fmt.Errorf("%s: --%s %s: must be above 0", cmd.CommandPath(), name, fl.Lookup(name).Value))
		}
	}
	sc, notes, err := scenarios.LoadWithOverrides(file, scenarios.Overrides{Actors: f.actors, Rate: f.rate, Duration: f.duration, Set: f.set})
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	for _, n := range append(notes, sc.Notes...) {
		fmt.Fprintln(stderr, "stormcheck: note:", n)
	}
	if f.seed != 0 {
		sc.Seed = f.seed
	}
	to := runner.TargetOptions{ConnectionString: f.connStr}
	switch f.target.value {
	case scenarios.TargetAzurite:
		sc.Target = scenarios.Target{Kind: scenarios.TargetAzurite, AzuriteVersion: scenarios.DefaultAzuriteVersion}
	case scenarios.TargetConnectionString: // (--connection-string alone: the runner lets it win)
		sc.Target.Kind = scenarios.TargetConnectionString
		if sc.Target.ConnectionStringEnv == "" {
			sc.Target.ConnectionStringEnv = "AZURE_STORAGE_CONNECTION_STRING"
		}
	}
	dir := f.out
	if dir == "" {
		dir = filepath.Join("results", fmt.Sprintf("%s-%s", sc.Name, time.Now().Format("20060102-150405")))
	}

	intr := catchInterrupts(stderr)
	defer intr.release()

	exporters, stopExport, err := f.export.start(sc.Name, stderr)
	if err != nil {
		return usageErr(cmd.CommandPath(), fmt.Errorf("stormcheck run: %w", err))
	}
	defer stopExport()
	disp := newDisplay(f.progress.value, stderr)
	opts := runner.Options{
		ResultsDir: dir, Target: to, Log: disp.logWriter(), Abort: intr.abort, Abandon: intr.abandon,
		UnreachableAfter: f.unreachableAfter,
		Progress:         disp.update, ProgressEvery: disp.every(), Exporters: exporters,
	}
	fmt.Fprintf(stderr, "stormcheck: running %s, results in %s\n", sc.File, dir)
	sum, runErr := runner.Run(intr.load, sc, opts)
	disp.close()
	if errors.Is(runErr, runner.ErrResultsDirRefused) { // nothing written there: keep it so
		return &exitError{code: exitUsage, err: fmt.Errorf("stormcheck run: %w", runErr)}
	}
	code := exitCode(sum, runErr)
	sum.ExitCode = code
	// Record the exit code in the summary and the page too (rewritten
	// atomically; what cannot be written is named in the report below).
	_ = runner.WriteResults(dir, sum)
	reports.WriteText(stdout, sum)
	if runErr != nil {
		fmt.Fprintf(stderr, "stormcheck: %s\n", strings.TrimSpace(runner.Redact(runErr.Error())))
	}
	if sum.CleanupError != "" && sum.RunID != "" {
		fmt.Fprintf(stderr, "stormcheck: run %s left resources on the target; delete them later with:\n  %s\n", sum.RunID, cleanupCommand(sum.RunID, dir, f))
	}
	fmt.Fprintf(stdout, "\nresults: %s (exit code %d)\n", dir, code)
	return exitWith(code)
}

// exactArgs wants n arguments, else bad usage saying msg.
func exactArgs(n int, msg string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErr(cmd.CommandPath(), fmt.Errorf("%s: %s (got %d argument(s))", cmd.CommandPath(), msg, len(args)))
		}
		return nil
	}
}

// minArgs wants at least n arguments, else bad usage saying msg.
func minArgs(n int, msg string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usageErr(cmd.CommandPath(), fmt.Errorf("%s: %s", cmd.CommandPath(), msg))
		}
		return nil
	}
}
