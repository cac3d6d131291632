package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/runner/cleanup"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios"
)

// cleanupFlags are the cleanup command's flags.
type cleanupFlags struct {
	runID     string
	olderThan time.Duration
	dryRun    bool
	target    *enumFlag
	connStr   string
}

// cleanupTarget is the target a cleanup works on: the scenario's (a
// scenario file, or a results folder's scenario.yaml), or a connection
// string (--connection-string, or --target connection-string reading
// AZURE_STORAGE_CONNECTION_STRING or the scenario's variable).
func cleanupTarget(arg string, f *cleanupFlags) (scenarios.Target, target.Options, error) {
	st := scenarios.Target{}
	if arg != "" {
		file := arg
		if fi, err := os.Stat(arg); err == nil && fi.IsDir() {
			file = filepath.Join(arg, runner.ScenarioFile)
		}
		sc, err := scenarios.Load(file)
		if err != nil {
			return st, target.Options{}, err
		}
		st = sc.Target
	}
	to := target.Options{ConnectionString: f.connStr}
	if f.connStr != "" || f.target.value == scenarios.TargetConnectionString {
		env := st.ConnectionStringEnv
		st = scenarios.Target{Kind: scenarios.TargetConnectionString, ConnectionStringEnv: env}
		if st.ConnectionStringEnv == "" {
			st.ConnectionStringEnv = "AZURE_STORAGE_CONNECTION_STRING"
		}
	}
	switch {
	case st.Kind == "":
		return st, to, errors.New("which target? give a scenario file or a results folder (its scenario names the target), --connection-string, or --target connection-string")
	case st.Kind == scenarios.TargetSamba:
		return st, to, errors.New("the target is a managed Samba: its share is in each run's results folder (samba/share); give the results folder of the run to clean up")
	case st.Kind == scenarios.TargetAzurite:
		return st, to, errors.New("the target is a managed Azurite: stormcheck starts it for one run and deletes its data with it, so nothing of a run outlives it; give --target connection-string for an Azurite you started yourself")
	}
	return st, to, target.CheckConnectionString(st, to)
}

// cleanupRuns opens the target and deletes (or, in a dry run, lists) the
// chosen runs' resources, printing one line per resource; the exit code is
// exitHarness when something could not be listed or deleted.
func cleanupRuns(ctx context.Context, stdout, stderr io.Writer, st scenarios.Target, to target.Options, f *cleanupFlags) int {
	t, err := target.Open(ctx, st, to)
	if err != nil {
		fmt.Fprintf(stderr, "stormcheck cleanup: %s\n", target.Redact(err.Error()))
		return exitHarness
	}
	defer t.Close()
	runs, err := cleanup.Runs(ctx, t, cleanup.Options{RunID: f.runID, OlderThan: f.olderThan, DryRun: f.dryRun})
	if err != nil {
		fmt.Fprintf(stderr, "stormcheck %s\n", target.Redact(err.Error()))
		return exitHarness
	}
	verb := "deleted"
	if f.dryRun {
		verb = "would delete"
	}
	if len(runs) == 0 {
		fmt.Fprintf(stdout, "no stormcheck run older than %s on %s: nothing to delete\n", f.olderThan, t.Desc)
	}
	code := exitOK
	for _, r := range runs {
		age := "unknown age"
		if !r.Mark.Created.IsZero() {
			age = "created " + r.Mark.Created.UTC().Format("2006-01-02 15:04:05 UTC") + ", " + runAge(time.Since(r.Mark.Created)) + " ago"
		}
		fmt.Fprintf(stdout, "run %s (%s): %s %d resource(s) and its marker container sc%s\n", r.Mark.ID, age, verb, len(r.Resources), r.Mark.ID)
		for _, res := range r.Resources {
			fmt.Fprintf(stdout, "  %s %s\n", verb, res)
		}
		if r.Err != nil {
			code = exitHarness
			fmt.Fprintf(stderr, "stormcheck cleanup: run %s: %s (left: %s)\n", r.Mark.ID,
				strings.ReplaceAll(target.Redact(r.Err.Error()), "\n", "; "), strings.Join(r.Left, ", "))
		}
	}
	return code
}

// cleanupCommand is the command that deletes what run id left, as the run
// prints it: the results folder names the target through its scenario, and
// a target given on the command line is given again (the connection string
// through its variable: it is never printed).
func cleanupCommand(id, dir string, f *runFlags) string {
	cmd := "stormcheck cleanup --run " + id
	switch {
	case f.connStr != "":
		cmd += ` --connection-string "$AZURE_STORAGE_CONNECTION_STRING"  # the connection string this run was given`
		return cmd
	case f.target.value == scenarios.TargetConnectionString:
		cmd += " --target connection-string"
	}
	return cmd + " " + shellQuote(dir)
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// runAge says how long ago a run was created, to the second under an hour and
// to the minute past it ("15s", "4m10s", "26h3m"); never "0s" for a run
// seconds old.
func runAge(d time.Duration) string {
	switch {
	case d < 0:
		return "0s"
	case d < time.Hour:
		return d.Round(time.Second).String()
	default:
		return strings.TrimSuffix(d.Round(time.Minute).String(), "0s")
	}
}

// sambaResults reports whether arg is the results folder of a run against
// the managed Samba (its scenario's target kind samba), and its path.
func sambaResults(arg string) (string, bool) {
	if fi, err := os.Stat(arg); arg == "" || err != nil || !fi.IsDir() {
		return "", false
	}
	sc, err := scenarios.Load(filepath.Join(arg, runner.ScenarioFile))
	return arg, err == nil && sc.Target.Kind == scenarios.TargetSamba
}

// cleanupSamba deletes (or lists) what runs left in the managed Samba's
// share of results folder dir, one line per entry.
func cleanupSamba(stdout, stderr io.Writer, dir string, f *cleanupFlags) int {
	share := cleanup.SambaShareDir(dir)
	found, left, err := cleanup.SambaShare(share, f.runID, f.olderThan, f.dryRun)
	verb := "deleted"
	if f.dryRun {
		verb = "would delete"
	}
	if len(found) == 0 && err == nil {
		fmt.Fprintf(stdout, "nothing of that run in the managed Samba's share %s: nothing to delete\n", share)
		return exitOK
	}
	fmt.Fprintf(stdout, "managed Samba share %s: %s %d entr%s\n", share, verb, len(found), map[bool]string{true: "y", false: "ies"}[len(found) == 1])
	for _, e := range found {
		fmt.Fprintf(stdout, "  %s %s\n", verb, e)
	}
	if err != nil {
		fmt.Fprintf(stderr, "stormcheck cleanup: %s (left: %s)\n", err, strings.Join(left, ", "))
		return exitHarness
	}
	return exitOK
}
