package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/text"
	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/runner/cleanup"
	"github.com/stormcheck/stormcheck/runner/shards"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios"
)

const runLong = `Runs the scenario's workloads against its target, records every attempt to
RESULTS/history.jsonl.zst, checks the history, prints a report and writes
RESULTS/summary.json, one HdrHistogram log per operation (RESULTS/hlog/),
RESULTS/report.html and, for a managed Azurite, its log.

SCENARIO.yaml is a file, or the name of an example built into the binary
(quickstart, open-loop, ...; 'stormcheck init --example NAME' writes one out):
a bare name with no .yaml that is not a file in the current directory.

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
so far are written and the exit code is 130. SIGTERM and SIGHUP (the
terminal closed) count as Ctrl-C; a closed stdout (| head) stops nothing.

A target that answers nothing at all (killed, frozen, unreachable) for
--unreachable-after (default 30s, or the scenario's unreachable_after) stops
the run: an ERROR line names the endpoint and since when, the final reads
are skipped, the cleanup gets 10s, the results are written, exit code 3.
A results folder that fills up stops the load at the first failed write;
the history keeps every whole record before it; exit code 3.

Shards: one run spread over N processes or machines against one target
(see the README's Shards section). --shard I/N runs shard I (0-based) of N;
on Kubernetes (an Indexed Job) give --shards N and the index comes from
JOB_COMPLETION_INDEX. Every shard takes the same --run-id, so they name the
same resources. Actors, open-loop rates and iteration bounds divide across
the shards (shard I gets floor(A/N) actors, one more if I < A mod N; a
shard with none skips the workload), and each workload's keys are divided
(shard_keys: divided, the default) or shared (every shard races on all).
Shard 0 sets the run up once; the others wait for it. Every shard starts
its load at --start-at, or without it 10s after shard 0's setup; a shard
that starts late says by how much. The last shard to finish does the final
reads and the cleanup. A shard's checks are left to 'stormcheck merge'.
--upload CONTAINER copies the results directory, once written, to that
container on the target as <run id>/shard-<I>-of-<N>/...`

const runExample = `  # the built-in quickstart, about 30 s against a managed Azurite
  stormcheck run quickstart

  # a 5-second smoke run, plain progress lines, results in a chosen folder
  stormcheck run quickstart --duration 5s --progress lines --out /tmp/smoke

  # overrides: 4 actors per workload, a 10 s load, a bigger payload for one workload
  stormcheck run quickstart --actors 4 --duration 10s --set counter.payload_bytes=1024

  # live metrics while it runs: a Prometheus endpoint and an OTLP collector
  stormcheck run quickstart --prometheus 127.0.0.1:9464 --otlp http://127.0.0.1:4318

  # against a real account (the connection string is never printed)
  AZURE_STORAGE_CONNECTION_STRING=... stormcheck run quickstart --target connection-string

  # shard 1 of 4 of run 1a2b3c4d, starting at a fixed instant, results uploaded
  AZURE_STORAGE_CONNECTION_STRING=... stormcheck run quickstart --target connection-string \
    --shard 1/4 --run-id 1a2b3c4d --start-at 2026-11-24T12:00:00Z --upload results

  # the same in a Kubernetes Indexed Job (JOB_COMPLETION_INDEX is set by Kubernetes)
  stormcheck run /scenario/scenario.yaml --target connection-string --shards 4 --run-id 1a2b3c4d --upload results`

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
	// sharding
	shard, runID, startAt, upload string
	shards                        int
	clockSkew                     time.Duration
}

func newRunCmd() *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:               "run [flags] SCENARIO.yaml",
		Short:             "Run a scenario, check its history, print the report, write the results directory",
		Long:              runLong,
		Example:           runExample,
		Args:              exactArgs(1, "want exactly one scenario file (try quickstart, a built-in example)"),
		ValidArgsFunction: completeYAML,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScenario(cmd, args[0], f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.out, "out", "", "results directory, new or empty: one holding anything is refused and left as it was (default results/<scenario>-<date>-<time>, with -shard-<I>-of-<N> for a shard, and -2, -3... when a run started in the same second has it)")
	f.target = addEnumFlag(cmd, "target", "", "override the scenario's target kind: azurite or connection-string", scenarios.TargetAzurite, scenarios.TargetConnectionString)
	fl.StringVar(&f.connStr, "connection-string", "", "storage connection string (never printed); implies --target connection-string")
	f.progress = addEnumFlag(cmd, "progress", "auto", "live progress: auto (bars on a terminal, lines otherwise), bars, lines or none", "auto", "bars", "lines", "none")
	fl.DurationVar(&f.duration, "duration", 0, "set the load phase of every workload, e.g. 5s; a workload's stages are scaled to last it in all, keeping their shape")
	fl.IntVar(&f.actors, "actors", 0, "set every workload's actors; closed-loop stage targets are scaled by the same factor")
	fl.Float64Var(&f.rate, "rate", 0, "set every open-loop workload's starting rate (arrivals/s); its stage targets are scaled by the same factor")
	fl.StringArrayVar(&f.set, "set", nil, "set WORKLOAD.FIELD=VALUE: a param of the workload's kind or actors, rate, keys, duration, iterations, executor, shard_keys; * for every workload; repeatable")
	fl.Int64Var(&f.seed, "seed", 0, "override the scenario's seed")
	f.export = addExportFlags(cmd)
	fl.DurationVar(&f.unreachableAfter, "unreachable-after", 0, "stop the run (exit 3) once the target has answered nothing at all for this long (default: the scenario's unreachable_after, 30s)")
	fl.StringVar(&f.shard, "shard", "", "run shard I (0-based) of N of a sharded run, e.g. 1/4; needs --run-id when N > 1")
	fl.IntVar(&f.shards, "shards", 0, "the run's shard count N; the index comes from env JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) unless --shard gives it")
	fl.StringVar(&f.runID, "run-id", "", "the run id every shard of a run shares (8 lower-case hex digits, e.g. 1a2b3c4d); it names the run's resources sc<ID>...")
	fl.StringVar(&f.startAt, "start-at", "", "RFC 3339 instant when every shard's load starts, e.g. 2026-11-24T12:00:00Z (default: 10s after shard 0's setup)")
	fl.StringVar(&f.upload, "upload", "", "when the run ends, copy its results directory to this blob container on the target, as <run id>/shard-<I>-of-<N>/...")
	fl.DurationVar(&f.clockSkew, "clock-skew", 0, "tests only: pretend this machine's wall clock is off by this much")
	_ = fl.MarkHidden("clock-skew")
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
	if f.connStr != "" && f.target.value == scenarios.TargetAzurite {
		return usageErr(cmd.CommandPath(), errConnStrWithAzurite(cmd.CommandPath()))
	}
	if fl.Changed("unreachable-after") && f.unreachableAfter < time.Second {
		// As unreachable_after in a scenario; 0 and below used to mean the
		// default, silently.
		return usageErr(cmd.CommandPath(), fmt.Errorf("%s: --unreachable-after %s: must be at least 1s (as the scenario's unreachable_after); leave it out for the scenario's value", cmd.CommandPath(), f.unreachableAfter))
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
	to := target.Options{ConnectionString: f.connStr, Uses: target.ScenarioServices(sc)}
	switch f.target.value {
	case scenarios.TargetAzurite:
		sc.Target = scenarios.Target{Kind: scenarios.TargetAzurite, AzuriteVersion: scenarios.DefaultAzuriteVersion}
	case scenarios.TargetConnectionString: // (--connection-string alone: the runner lets it win)
		sc.Target.Kind = scenarios.TargetConnectionString
		if sc.Target.ConnectionStringEnv == "" {
			sc.Target.ConnectionStringEnv = "AZURE_STORAGE_CONNECTION_STRING"
		}
	}
	if err := target.CheckConnectionString(sc.Target, to); err != nil { // before the results folder is made
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: %w", cmd.CommandPath(), err)}
	}
	shard, err := f.shardOf(cmd)
	if err != nil {
		return usageErr(cmd.CommandPath(), err)
	}
	managed := sc.Target.Kind == scenarios.TargetAzurite && f.connStr == ""
	if shard != nil && shard.Count > 1 && managed {
		return usageErr(cmd.CommandPath(), fmt.Errorf("%s: shard %d/%d: the shards of a run share one target, and a managed Azurite belongs to one process: add --target connection-string (AZURE_STORAGE_CONNECTION_STRING), or use a scenario target of kind connection-string, account-key or entra-id", cmd.CommandPath(), shard.Index, shard.Count))
	}
	if f.upload != "" {
		if !shards.ValidContainerName(f.upload) {
			return usageErr(cmd.CommandPath(), fmt.Errorf("%s: --upload %q: a blob container name is 3 to 63 lower-case letters, digits and single hyphens", cmd.CommandPath(), f.upload))
		}
		if managed {
			return usageErr(cmd.CommandPath(), fmt.Errorf("%s: --upload %s: the results go to a container on the run's target, and a managed Azurite is deleted when the run ends: use --target connection-string (or a scenario target of another kind)", cmd.CommandPath(), f.upload))
		}
	}
	if shard != nil && shard.Count > 1 {
		// Checked before anything opens: a cut that cannot be made would
		// otherwise show only after the target (or Azurite) started.
		if err := runner.CheckShardCut(sc, shard.Count); err != nil {
			return usageErr(cmd.CommandPath(), fmt.Errorf("%s: %s: shard %d/%d: %w", cmd.CommandPath(), sc.File, shard.Index, shard.Count, err))
		}
	}
	intr := catchInterrupts(stderr)
	defer intr.release()
	intr.upload.Store(f.upload != "")

	exporters, stopExport, err := f.export.start(sc.Name, stderr)
	if err != nil {
		return usageErr(cmd.CommandPath(), fmt.Errorf("stormcheck run: %w", err))
	}
	defer stopExport()
	dir := f.out
	if dir == "" {
		dir = claimNewDir(defaultResultsDir(sc.Name, time.Now(), shard))
	}
	disp := newDisplay(f.progress.value, stderr)
	opts := runner.Options{
		ResultsDir: dir, Target: to, Log: disp.logWriter(), Abort: intr.abort, Abandon: intr.abandon,
		UnreachableAfter: f.unreachableAfter, Shard: shard,
		Progress: disp.update, ProgressEvery: disp.every(), Exporters: exporters, Stage: intr.setStage,
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
	text.WriteText(stdout, sum)
	if runErr != nil {
		fmt.Fprintf(stderr, "stormcheck: %s\n", strings.TrimSpace(target.Redact(runErr.Error())))
	}
	if sum.CleanupError != "" && sum.RunID != "" {
		fmt.Fprintf(stderr, "stormcheck: run %s left resources on the target; delete them later with:\n  %s\n", sum.RunID, cleanupCommand(sum.RunID, dir, f))
	}
	if f.upload != "" {
		intr.setStage(stageUpload)
		code = uploadResults(intr, sc, to, f.upload, sum, dir, stderr, code)
	}
	fmt.Fprintf(stdout, "\nresults: %s (exit code %d)\n", dir, code)
	return exitWith(code)
}

// uploadResults copies the results directory, already written, to the
// upload container, within uploadBound (a third Ctrl-C stops it). A
// failure is said, and turns a clean exit code into 3; the local results
// are only read.
func uploadResults(intr *interrupts, sc *scenarios.Scenario, to target.Options, container string, sum *reports.Summary, dir string, stderr io.Writer, code int) int {
	index, count := 0, 1
	if sum.Shard != nil {
		index, count = sum.Shard.Index, sum.Shard.Count
	}
	if sum.RunID == "" {
		fmt.Fprintf(stderr, "stormcheck: upload to %s skipped: the run ended before it had a run id\n", container)
		return max(code, exitHarness)
	}
	prefix := shards.Prefix(sum.RunID, index, count)
	ctx, cancel := context.WithTimeout(intr.abandon, uploadBound)
	defer cancel()
	n, err := shards.Upload(ctx, sc.Target, to, container, prefix, dir)
	if err != nil {
		fmt.Fprintf(stderr, "stormcheck: %s\n", target.Redact(err.Error()))
		if code == exitOK {
			code = exitHarness
		}
		return code
	}
	fmt.Fprintf(stderr, "stormcheck: uploaded %d file(s) to container %s as %s/\n", n, container, prefix)
	return code
}

// defaultResultsDir is results/<scenario>-<date>-<time>, and for a shard
// of N > 1 -shard-<I>-of-<N> after it: shards started together on one
// machine get a folder each.
func defaultResultsDir(name string, now time.Time, shard *runner.Shard) string {
	dir := filepath.Join("results", fmt.Sprintf("%s-%s", name, now.Format("20060102-150405")))
	if shard != nil && shard.Count > 1 {
		dir += fmt.Sprintf("-shard-%d-of-%d", shard.Index, shard.Count)
	}
	return dir
}

// errConnStrWithAzurite refuses --connection-string beside --target
// azurite: the connection string used to win silently, so a run meant for
// a local Azurite went to the account it named.
func errConnStrWithAzurite(cmd string) error {
	return fmt.Errorf("%s: --connection-string and --target azurite disagree: a connection string means --target connection-string; give one of them", cmd)
}

// claimNewDir makes the default results folder base, or base-2, base-3,
// ... when a run started in the same second has made it already (runs in
// parallel, or one after a run refused at once): the default name used to
// send the second run away with exit 2 as if the user had chosen a used
// --out. A folder that cannot be made is left to ClaimResultsDir to name.
func claimNewDir(base string) string {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return base
	}
	for i := 1; i <= 1000; i++ {
		dir := base
		if i > 1 {
			dir = fmt.Sprintf("%s-%d", base, i)
		}
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			return dir
		}
		if !errors.Is(err, fs.ErrExist) {
			return base
		}
	}
	return base
}

// uploadBound bounds the upload of a results directory.
const uploadBound = 5 * time.Minute

// shardOf reads the shard flags (and env JOB_COMPLETION_INDEX): nil when
// the run is not sharded and names no run id or start.
func (f *runFlags) shardOf(cmd *cobra.Command) (*runner.Shard, error) {
	fl, name := cmd.Flags(), cmd.CommandPath()
	env, envSet := os.LookupEnv("JOB_COMPLETION_INDEX")
	s := &runner.Shard{Count: 1, RunID: f.runID, ClockSkew: f.clockSkew}
	switch {
	case fl.Changed("shard"):
		i, n, ok := parseShard(f.shard)
		if !ok {
			return nil, fmt.Errorf("%s: --shard %q: want I/N, the shard's index I (0 to N-1) and the shard count N, e.g. --shard 0/4", name, f.shard)
		}
		if fl.Changed("shards") && f.shards != n {
			return nil, fmt.Errorf("%s: --shard %s and --shards %d disagree on the shard count: give one of them (or the same N)", name, f.shard, f.shards)
		}
		s.Index, s.Count = i, n
	case fl.Changed("shards") && f.shards < 1:
		return nil, fmt.Errorf("%s: --shards %d: the shard count is at least 1", name, f.shards)
	case fl.Changed("shards") && !envSet:
		return nil, fmt.Errorf("%s: --shards %d needs this shard's index: set env JOB_COMPLETION_INDEX (a Kubernetes Indexed Job does), or give --shard I/%d", name, f.shards, f.shards)
	case fl.Changed("shards"):
		i, err := strconv.Atoi(strings.TrimSpace(env))
		if err != nil || i < 0 || i >= f.shards {
			return nil, fmt.Errorf("%s: env JOB_COMPLETION_INDEX=%q: want the shard's index, 0 to %d (--shards %d)", name, env, f.shards-1, f.shards)
		}
		s.Index, s.Count = i, f.shards
	case envSet:
		return nil, fmt.Errorf("%s: env JOB_COMPLETION_INDEX=%s is set (a Kubernetes Indexed Job) but not the shard count: give --shards N", name, env)
	}
	if f.runID != "" && !cleanup.ValidRunID(f.runID) {
		return nil, fmt.Errorf("%s: --run-id %q: a run id is 8 lower-case hex digits, e.g. 1a2b3c4d", name, f.runID)
	}
	if s.Count > 1 && f.runID == "" {
		return nil, fmt.Errorf("%s: shard %d/%d: --run-id is required: the shards of a run must share one run id to name (and set up, and clean up) the same resources; pick one, e.g. --run-id %s", name, s.Index, s.Count, exampleRunID())
	}
	if f.startAt != "" {
		at, err := time.Parse(time.RFC3339Nano, f.startAt)
		if err != nil {
			return nil, fmt.Errorf("%s: --start-at %q: want an RFC 3339 instant, e.g. 2026-11-24T12:00:00Z", name, f.startAt)
		}
		s.StartAt = at
	}
	if !fl.Changed("shard") && !fl.Changed("shards") && f.runID == "" && f.startAt == "" && f.clockSkew == 0 {
		return nil, nil
	}
	return s, nil
}

// parseShard reads I/N with 0 ≤ I < N.
func parseShard(v string) (i, n int, ok bool) {
	a, b, found := strings.Cut(v, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !found || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, false
	}
	return i, n, true
}

// exampleRunID is a fresh run id for a message.
func exampleRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
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
