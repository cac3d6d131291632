package main

import (
	"context"
	"errors"
	"fmt"
	"os/signal"

	"github.com/spf13/cobra"

	"github.com/stormcheck/stormcheck/scenarios"
)

const cleanupLong = `Deletes what earlier runs left on a target: after a third Ctrl-C, or when
the target was unreachable or frozen at the end of a run (the run then
prints this command with its run id).

A run is recognised by its marker, the container sc<run id> that every run
creates first, stamped with the metadata stormcheck_run=<run id> and
stormcheck_created=<time>. Its containers and queues are named
sc<run id>-..., its tables sc<run id>... (no hyphens); the marker is deleted
last, once everything else is gone. Anything without a stamped marker is
not stormcheck's and is never touched, whatever its name.

Choose the runs with --run ID, or --older-than AGE (every marked run created
more than AGE ago). --dry-run lists what would be deleted and deletes
nothing.

The target: a scenario file or a results folder (its scenario.yaml names
the target), or a connection string (--connection-string, or --target
connection-string reading AZURE_STORAGE_CONNECTION_STRING). A managed
Azurite needs no cleanup: its data is deleted with it at the end of a run.
A managed Samba keeps its share in the run's results folder (samba/share):
given that folder, cleanup deletes the files and folders a run left there
(sc<run id>-...); there is nothing else of it to delete.

Exit codes: 0 done (or nothing to do), 2 bad usage, 3 something could not be
listed or deleted, or no run with that id is on the target.`

const cleanupExample = `  # what the run printed after it could not clean up
  stormcheck cleanup --run 1a2b3c4d results/quickstart-20261124-101500

  # first list, then delete, every run older than a day on an account
  AZURE_STORAGE_CONNECTION_STRING=... stormcheck cleanup --older-than 24h --dry-run --target connection-string
  AZURE_STORAGE_CONNECTION_STRING=... stormcheck cleanup --older-than 24h --target connection-string`

func newCleanupCmd() *cobra.Command {
	f := &cleanupFlags{}
	cmd := &cobra.Command{
		Use:     "cleanup (--run ID | --older-than AGE) [--dry-run] [SCENARIO.yaml | RESULTS_DIR]",
		Short:   "Delete what earlier runs left on a target (by run id, or older than an age), with a dry run",
		Long:    cleanupLong,
		Example: cleanupExample,
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Flags().Changed("older-than") && f.olderThan <= 0 {
				// It used to say "give either --run ID or --older-than AGE",
				// to a user who had given --older-than.
				return usageErr(cmd.CommandPath(), fmt.Errorf("stormcheck cleanup: --older-than %s: must be above 0, e.g. 1h: a run younger than that may still be running", f.olderThan))
			}
			if (f.runID == "") == (f.olderThan <= 0) {
				return usageErr(cmd.CommandPath(), errors.New("stormcheck cleanup: give either --run ID or --older-than AGE (e.g. 24h)"))
			}
			arg := ""
			if len(args) == 1 {
				arg = args[0]
			}
			if dir, ok := sambaResults(arg); ok {
				return exitWith(cleanupSamba(cmd.OutOrStdout(), cmd.ErrOrStderr(), dir, f))
			}
			st, to, err := cleanupTarget(arg, f)
			if err != nil {
				return usageErr(cmd.CommandPath(), errors.New("stormcheck cleanup: "+err.Error()))
			}
			ctx, stop := signal.NotifyContext(context.Background(), interruptSignals()...)
			defer stop()
			return exitWith(cleanupRuns(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), st, to, f))
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.runID, "run", "", "the run id a run printed (8 hex digits)")
	fl.DurationVar(&f.olderThan, "older-than", 0, "every marked run created more than this long ago, e.g. 24h")
	fl.BoolVar(&f.dryRun, "dry-run", false, "list what would be deleted, delete nothing")
	f.target = addEnumFlag(cmd, "target", "", "the target kind, instead of a scenario's: connection-string", scenarios.TargetConnectionString)
	fl.StringVar(&f.connStr, "connection-string", "", "storage connection string (never printed); implies --target connection-string")
	return cmd
}
