// Command stormcheck runs Azure Storage concurrency scenarios against Azurite
// (started by itself) or a real account, checks the recorded history against
// the documented rules, and reports latency and throughput.
//
// The command line is built with spf13/cobra: one file per command
// (run.go, cleanup.go, validate.go, check.go, report.go, conform.go, compare.go,
// kinds.go, init.go, schema.go, version.go, completion.go); this file holds the root command and turns what a
// command returns into the documented exit code.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

const rootLong = `stormcheck: load tests and conformance checks for Azure Storage concurrency.

By default a run starts its own Azurite (installed with npm on first use into
the user cache directory), so nothing else is needed. Every command has
--help with examples; flags may come before or after the arguments.`

const exitCodesHelp = `
Exit codes:
  0  every check passed
  1  a check found a violation
  2  bad usage, an invalid scenario or connection string, or an --out folder already in use (left untouched)
  3  harness or target error (the target did not start, setup failed)
  4  no violation, but a check could not decide; compare: the runs are not comparable (no verdict)
  5  no violation, but a threshold of the scenario failed
  6  compare: a regression beyond the noise and the tolerance
  130 interrupted (results recorded so far are still written)
`

func main() {
	survivePipeClose()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command line args, writing to stdout and stderr, and returns
// the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(stdout, stderr)
	if len(args) == 0 {
		// No command: say what is missing (bad usage, exit 2).
		fmt.Fprintf(stderr, "stormcheck: a command is needed\n\n%s%s", root.UsageString(), exitCodesHelp)
		return exitUsage
	}
	root.SetArgs(args)
	err := root.Execute()
	if err == nil {
		return exitOK
	}
	var ex *exitError
	if errors.As(err, &ex) {
		if ex.err != nil {
			fmt.Fprintln(stderr, ex.err)
		}
		if ex.code == exitUsage && ex.hint != "" {
			fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", ex.hint)
		}
		return ex.code
	}
	// Errors from cobra itself: an unknown command or flag, a bad flag
	// value, the wrong number of arguments. All are bad usage.
	cmd, _, ferr := root.Find(args)
	name := "stormcheck"
	if ferr == nil && cmd != nil {
		name = cmd.CommandPath()
	}
	fmt.Fprintf(stderr, "%s: %s\n", name, err)
	if cmd == nil || cmd == root {
		if len(args) == 0 {
			fmt.Fprint(stderr, "\n", root.UsageString())
		} else {
			fmt.Fprintln(stderr, "Run 'stormcheck --help' for the commands.")
		}
	} else {
		fmt.Fprintf(stderr, "Run '%s --help' for usage.\n", name)
	}
	return exitUsage
}

// newRootCmd builds the whole command tree; a fresh one per call so that
// tests can run commands one after another without flags left over.
func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "stormcheck",
		Short: "Load tests and conformance checks for Azure Storage concurrency",
		Long:  rootLong,
		Example: `  stormcheck run quickstart
  stormcheck run quickstart --duration 5s --progress lines
  stormcheck init --example quickstart && stormcheck validate quickstart.yaml
  stormcheck kinds
  stormcheck compare results/base results/new
  source <(stormcheck completion bash)`,
		Version:       versionString(),
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetUsageTemplate(root.UsageTemplate())
	root.SetHelpTemplate(root.HelpTemplate() + "{{if not .HasParent}}" + exitCodesHelp + "{{end}}")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageErr(cmd.CommandPath(), fmt.Errorf("%s: %w", cmd.CommandPath(), err))
	})
	root.CompletionOptions.DisableDefaultCmd = true // ours, in completion.go, refuses an unknown shell
	root.AddCommand(
		newRunCmd(),
		newCleanupCmd(),
		newValidateCmd(),
		newCheckCmd(),
		newReportCmd(),
		newConformCmd(),
		newCompareCmd(),
		newMatrixCmd(),
		newKubeCmd(),
		newMergeCmd(),
		newKindsCmd(),
		newInitCmd(),
		newSchemaCmd(),
		newVersionCmd(),
		newCompletionCmd(),
	)
	return root
}

// exitError carries a command's exit code to run; err, when set, is printed
// on stderr (a command that already printed what went wrong leaves it nil).
type exitError struct {
	code int
	err  error
	hint string // for bad usage: the command whose --help to point at
}

func (e *exitError) Error() string {
	if e.err != nil {
		return e.err.Error()
	}
	return fmt.Sprintf("exit code %d", e.code)
}

// exitWith turns a command's exit code into what RunE returns.
func exitWith(code int) error {
	if code == exitOK {
		return nil
	}
	return &exitError{code: code}
}

// usageErr is bad usage (exit 2): err says what was wrong, and the user is
// pointed at the --help of command path cmdPath.
func usageErr(cmdPath string, err error) error {
	return &exitError{code: exitUsage, err: err, hint: cmdPath}
}

// enumFlag is a string flag that takes one of a fixed set of values; any
// other value is refused when the flags are parsed, naming the allowed ones.
type enumFlag struct {
	value   string
	allowed []string
}

func newEnumFlag(def string, allowed ...string) *enumFlag {
	return &enumFlag{value: def, allowed: allowed}
}

func (e *enumFlag) String() string { return e.value }
func (e *enumFlag) Type() string   { return strings.Join(e.allowed, "|") } // shown in --help
func (e *enumFlag) Set(v string) error {
	for _, a := range e.allowed {
		if v == a {
			e.value = v
			return nil
		}
	}
	return fmt.Errorf("allowed: %s", strings.Join(e.allowed, ", "))
}

// addEnumFlag defines an enumFlag on cmd, with shell completion of its
// values.
func addEnumFlag(cmd *cobra.Command, name, def, usage string, allowed ...string) *enumFlag {
	e := newEnumFlag(def, allowed...)
	cmd.Flags().Var(e, name, usage)
	_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(allowed, cobra.ShellCompDirectiveNoFileComp))
	return e
}

// completeYAML completes scenario files.
func completeYAML(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return []string{"yaml", "yml"}, cobra.ShellCompDirectiveFilterFileExt
}

// completeDirs completes directories (results directories).
func completeDirs(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return nil, cobra.ShellCompDirectiveFilterDirs
}
