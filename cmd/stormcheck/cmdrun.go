package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/scenarios"
)

const runHelp = `usage: stormcheck run [flags] SCENARIO.yaml

Runs the scenario's workloads against its target, records every attempt to
RESULTS/history.jsonl.zst, checks the history, prints a report and writes
RESULTS/summary.json, one HdrHistogram log per operation (RESULTS/hlog/) and,
for a managed Azurite, its log.

Targets: by default the scenario's target (normally a managed Azurite that
stormcheck starts on free loopback ports and stops at the end). To run
against another endpoint or a real account without editing the scenario:
  --target connection-string   reads AZURE_STORAGE_CONNECTION_STRING
  --connection-string STR      (implies --target connection-string)
Every resource a run creates is named sc<run id>-<workload>... and deleted
at the end, even after Ctrl-C. Secrets are never printed or written.

Ctrl-C stops the load, then does the final reads and checks; a second
Ctrl-C skips those. Either way the results recorded so far are written.

Flags:
`

func cmdRun(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, runHelp); fs.PrintDefaults() }
	out := fs.String("out", "", "results directory (default results/<scenario>-<date>-<time>)")
	target := fs.String("target", "", "override the scenario's target kind: azurite or connection-string")
	connStr := fs.String("connection-string", "", "storage connection string (never printed); implies --target connection-string")
	progress := fs.String("progress", "auto", "live progress: auto (bars on a terminal, lines otherwise), bars, lines or none")
	duration := fs.Duration("duration", 0, "override every workload's load duration (workloads with stages keep them)")
	seed := fs.Int64("seed", 0, "override the scenario's seed")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "stormcheck run: want exactly one scenario file (try scenarios/quickstart.yaml)")
		return exitUsage
	}
	sc, err := scenarios.Load(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	if *seed != 0 {
		sc.Seed = *seed
	}
	if *duration > 0 {
		sc.Duration = *duration
		for i := range sc.Workloads {
			sc.Workloads[i].Duration = *duration
		}
	}
	to := runner.TargetOptions{ConnectionString: *connStr}
	switch *target {
	case "", scenarios.TargetAzurite:
		if *target == scenarios.TargetAzurite {
			sc.Target = scenarios.Target{Kind: scenarios.TargetAzurite, AzuriteVersion: scenarios.DefaultAzuriteVersion}
		}
	case scenarios.TargetConnectionString:
		sc.Target.Kind = scenarios.TargetConnectionString
		if sc.Target.ConnectionStringEnv == "" {
			sc.Target.ConnectionStringEnv = "AZURE_STORAGE_CONNECTION_STRING"
		}
	default:
		fmt.Fprintf(stderr, "stormcheck run: --target %q: allowed: azurite, connection-string (other targets: set target: in the scenario)\n", *target)
		return exitUsage
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("results", fmt.Sprintf("%s-%s", sc.Name, time.Now().Format("20060102-150405")))
	}

	// First Ctrl-C: stop the load. Second: skip final reads and cleanup waits.
	ctx, stop := context.WithCancel(context.Background())
	abort, abortNow := context.WithCancel(context.Background())
	defer stop()
	defer abortNow()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		<-sigs
		stop()
		<-sigs
		abortNow()
	}()

	disp := newDisplay(*progress, stderr)
	opts := runner.Options{
		ResultsDir: dir, Target: to, Log: disp.logWriter(), Abort: abort,
		Progress: disp.update, ProgressEvery: disp.every(),
	}
	fmt.Fprintf(stderr, "stormcheck: running %s, results in %s\n", sc.File, dir)
	sum, runErr := runner.Run(ctx, sc, opts)
	disp.close()
	code := exitCode(sum, runErr)
	sum.ExitCode = code
	// Record the exit code in the summary too (rewritten atomically; fails
	// only if the results directory could not be made, as already said).
	_ = reports.WriteSummaryJSON(filepath.Join(dir, runner.SummaryFile), sum)
	_ = reports.WriteHTMLReport(dir, sum) // the page too, now with the exit code (the runner wrote it once already)
	reports.WriteText(stdout, sum)
	if runErr != nil {
		fmt.Fprintf(stderr, "stormcheck: %s\n", strings.TrimSpace(runner.Redact(runErr.Error())))
	}
	fmt.Fprintf(stdout, "\nresults: %s (exit code %d)\n", dir, code)
	return code
}
