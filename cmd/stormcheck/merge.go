package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/stormcheck/stormcheck/internal/boundedread"
	"github.com/stormcheck/stormcheck/reports/merge"
	"github.com/stormcheck/stormcheck/reports/text"
	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/runner/shards"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios"
)

const mergeLong = `Merges the results directories of the shards of one run (stormcheck run
--shard I/N, or the pods of stormcheck kube) into OUT, a new results
directory that report, check and compare read as any run's:

- the latency histograms are the shards' latency logs (hlog/) added
  together, plain and corrected: the merged percentiles are those of one
  histogram of every recorded latency, never averaged;
- the per-second series and the per-unit figures (blob, partition, queue,
  account) are counted again from the merged history by wall-clock second,
  so a hot unit hit from several shards shows its true rate against its
  target; thresholds are judged on the merged figures;
- the merged history (history.jsonl.zst) has every shard's times moved to
  the earliest shard's start, and every operation's interval widened by
  the shard's clock-offset bound (the scenario's clock_offset_bound), so a
  clock offset can never make a false violation; the checks run over it.
  When the shards' Date-header estimates show two clocks further apart than
  the bound, the merge says which shard and by how much, and widens by what
  was measured instead.

The shards come from directories (every shard of the run, each once) or,
with --from, from the blob container the shards uploaded to (--upload):
they are downloaded into OUT/shards/ first. Shards of different runs,
scenarios or shard counts, a missing or a duplicate shard are refused,
named. OUT must be new or empty (as run --out).

Exit codes as run's: 1 a check failed on the merged history, 5 a
threshold failed, 4 undecided, 3 the merge itself failed, 2 bad usage.`

const mergeExample = `  # shards written to a shared volume (stormcheck kube --results-volume)
  stormcheck merge results/race-merged /mnt/results/c0ffee42/shard-*
  # shards uploaded to a container (stormcheck run --upload, stormcheck kube --upload)
  AZURE_STORAGE_CONNECTION_STRING=... stormcheck merge results/race-merged --from stormcheck-results --run-id c0ffee42 --target connection-string`

// mergeFlags are the merge command's flags.
type mergeFlags struct {
	from     string
	runID    string
	scenario string
	target   *enumFlag
	connStr  string
}

func newMergeCmd() *cobra.Command {
	f := &mergeFlags{}
	cmd := &cobra.Command{
		Use:               "merge OUT (SHARD_DIR... | --from CONTAINER [--run-id ID])",
		Short:             "Merge the results of a run's shards exactly: histograms, series, units, history and checks",
		Long:              mergeLong,
		Example:           mergeExample,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: completeDirs,
		RunE: func(cmd *cobra.Command, args []string) error {
			out, dirs := args[0], args[1:]
			switch {
			case f.from == "" && len(dirs) == 0:
				return usageErr(cmd.CommandPath(), errors.New("stormcheck merge: give the shards' results directories after OUT, or --from CONTAINER"))
			case f.from != "" && len(dirs) > 0:
				return usageErr(cmd.CommandPath(), errors.New("stormcheck merge: give either shard directories or --from CONTAINER, not both"))
			case f.from == "" && (f.runID != "" || f.scenario != "" || f.connStr != "" || f.target.value != ""):
				return usageErr(cmd.CommandPath(), errors.New("stormcheck merge: --run-id, --scenario, --target and --connection-string go with --from"))
			}
			return mergeRun(cmd, out, dirs, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.from, "from", "", "download the shards' results from this blob container (where run --upload put them)")
	fl.StringVar(&f.runID, "run-id", "", "with --from: the run whose shards to merge (needed when the container holds several)")
	fl.StringVar(&f.scenario, "scenario", "", "with --from: the scenario file whose target holds the container")
	f.target = addEnumFlag(cmd, "target", "", "with --from: the target kind, instead of a scenario's: connection-string", scenarios.TargetConnectionString)
	fl.StringVar(&f.connStr, "connection-string", "", "with --from: storage connection string (never printed); implies --target connection-string")
	return cmd
}

// mergeStopGrace is how long after a first Ctrl-C the merge may take to
// reach its next step before the process removes what it wrote and exits
// (a step can be long: a history of millions of records, a slow disk).
const mergeStopGrace = 2 * time.Second

// mergeRun merges and prints the merged run's report. OUT is written
// whole or not at all: into a temporary sibling, renamed to OUT at the
// end. Ctrl-C (SIGTERM, SIGHUP) stops the merge, removes what it wrote and
// exits 130 (at once on a second press, or when the merge does not reach
// its next step within mergeStopGrace).
func mergeRun(cmd *cobra.Command, out string, dirs []string, f *mergeFlags) error {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	logf := func(format string, a ...any) { fmt.Fprintf(stderr, "stormcheck merge: "+format+"\n", a...) }
	var staged atomic.Pointer[runner.StagedDir] // nil until OUT is staged
	var staging sync.Mutex                      // held while OUT is staged, and by the stop below
	ctxs, stopPresses := catchPresses(stderr, 2, func(press int) string {
		switch sd := staged.Load(); {
		case sd != nil && sd.Committed():
			return fmt.Sprintf("stormcheck merge: interrupted: %s is written; the report follows", out)
		case press == 1:
			return fmt.Sprintf("stormcheck merge: interrupted: stopping; %s is not written (Ctrl-C again to stop at once)", out)
		}
		return fmt.Sprintf("stormcheck merge: interrupted again: stopping at once; %s is not written", out)
	})
	defer stopPresses()
	ctx := ctxs[0]
	finished := make(chan struct{})
	defer close(finished)
	go func() { // a merge stuck in a step still stops
		select {
		case <-finished:
			return
		case <-ctx.Done():
		}
		select {
		case <-finished:
			return
		case <-ctxs[1].Done():
		case <-time.After(mergeStopGrace):
		}
		staging.Lock() // (never unlocked when it exits: nothing is staged after)
		if sd := staged.Load(); sd == nil || sd.Discard() {
			os.Exit(exitInterrupted)
		}
		staging.Unlock()
	}()
	interrupted := func() error {
		if sd := staged.Load(); sd != nil {
			sd.Discard()
		}
		return &exitError{code: exitInterrupted, err: fmt.Errorf("stormcheck merge: interrupted; %s not written", out)}
	}

	var shardsX []merge.ShardResults
	var st scenarios.Target
	var to target.Options
	if f.from == "" {
		var err error
		shardsX, err = shards.Read(dirs) // refused before OUT is touched
		switch {
		case ctx.Err() != nil:
			return interrupted()
		case err != nil:
			return &exitError{code: exitUsage, err: fmt.Errorf("stormcheck merge: %w", err)}
		}
	} else {
		var err error
		if st, to, err = cleanupTarget(f.scenario, &cleanupFlags{target: f.target, connStr: f.connStr}); err != nil {
			return usageErr(cmd.CommandPath(), errors.New("stormcheck merge: "+strings.Replace(err.Error(), "give a scenario file or a results folder", "give --scenario FILE", 1)))
		}
	}
	staging.Lock()
	sd, err := runner.StageResultsDir(out)
	if err == nil {
		staged.Store(sd)
	}
	staging.Unlock()
	if err != nil {
		return &exitError{code: exitUsage, err: fmt.Errorf("stormcheck merge: %w", err)}
	}
	if ctx.Err() != nil {
		return interrupted()
	}

	if f.from != "" {
		dest := filepath.Join(sd.Temp, "shards")
		dirs, runID, err := shards.Download(ctx, st, to, f.from, f.runID, dest)
		switch {
		case ctx.Err() != nil:
			return interrupted()
		case boundedread.As(err) != nil: // a shard's file past its bound, refused before anything is downloaded
			sd.Discard()
			return &exitError{code: exitUsage, err: fmt.Errorf("stormcheck merge: %s", target.Redact(err.Error()))}
		case err != nil:
			sd.Discard()
			return &exitError{code: exitHarness, err: fmt.Errorf("stormcheck merge: %s", target.Redact(err.Error()))}
		}
		logf("downloaded %d shard(s) of run %s from container %s into %s", len(dirs), runID, f.from, filepath.Join(out, "shards"))
		if shardsX, err = shards.Read(dirs); err != nil {
			if cerr := sd.Commit(); cerr != nil { // the downloaded shards are kept
				logf("%v", cerr)
			}
			return &exitError{code: exitUsage, err: fmt.Errorf("stormcheck merge: %w (the downloaded shards stay in %s)", err, filepath.Join(out, "shards"))}
		}
	}
	logf("merging %d shards of run %s into %s", len(shardsX), shardsX[0].Summary.Shard.RunID, out)
	sum, err := shards.Merge(ctx, sd.Temp, shardsX, logf)
	if ctx.Err() != nil {
		return interrupted()
	}
	if sum == nil {
		if cerr := sd.Commit(); cerr != nil {
			logf("%v", cerr)
		}
		return &exitError{code: exitHarness, err: fmt.Errorf("stormcheck merge: %w", err)}
	}
	code := exitCode(sum, err)
	sum.ExitCode = code
	sum.File = filepath.Join(out, runner.ScenarioFile) // named where they will be, not in the temporary folder
	for i, m := range sum.MergedFrom {
		if rel, rerr := filepath.Rel(sd.Temp, m.Dir); rerr == nil && !strings.HasPrefix(rel, "..") {
			sum.MergedFrom[i].Dir = filepath.Join(out, rel)
		}
	}
	if f.from != "" {
		sum.Files["shards"] = "shards" + string(os.PathSeparator) // what was downloaded, kept beside the merge
	}
	_ = runner.WriteResults(sd.Temp, sum)
	if ctx.Err() != nil {
		return interrupted()
	}
	if cerr := sd.Commit(); errors.Is(cerr, runner.ErrDiscarded) {
		return interrupted() // the stop came first
	} else if cerr != nil {
		return &exitError{code: exitHarness, err: fmt.Errorf("stormcheck merge: %w", cerr)}
	}
	text.WriteText(stdout, sum)
	if err != nil {
		fmt.Fprintf(stderr, "stormcheck merge: %s\n", strings.TrimSpace(target.Redact(err.Error())))
	}
	if ctx.Err() != nil { // pressed once OUT was whole: it stays
		code = exitInterrupted
	}
	return exitWith(code)
}
