package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/scenarios"
	"github.com/stormcheck/stormcheck/scenarios/examples"
)

func newInitCmd() *cobra.Command {
	var force bool
	var example, out string
	cmd := &cobra.Command{
		Use:   "init KIND [FILE] | init --example NAME [--out FILE]",
		Short: "Write a commented starter scenario for a workload kind, or a built-in example",
		Long: `Writes a starter scenario for one workload of KIND: every param the kind takes
at its default, each explained with its allowed values, the checks that
apply, and the yaml-language-server line that lets an editor complete and
check the fields. It validates as written. Without FILE it goes to stdout; an
existing FILE is left alone unless --force.

With --example NAME it writes the built-in example NAME (one of: ` + strings.Join(examples.Names(), ", ") + `)
to --out FILE (default NAME.yaml).

Beside a FILE it writes the JSON Schema of scenarios as ` + examples.SchemaFile + `,
which the first line of the scenario names (an existing one is replaced
only when it differs and --force is given).`,
		Example: `  stormcheck init blob.etag-counter counter.yaml
  stormcheck validate counter.yaml && stormcheck run counter.yaml
  stormcheck init --example quickstart
  stormcheck init --example open-loop --out mine.yaml
  stormcheck init queue.work | less`,
		Args: func(cmd *cobra.Command, args []string) error {
			if example != "" {
				if len(args) > 0 {
					return usageErr(cmd.CommandPath(), fmt.Errorf("%s: --example takes no kind or file argument (use --out FILE), got %d argument(s)", cmd.CommandPath(), len(args)))
				}
				return nil
			}
			if cmd.Flags().Changed("out") {
				return usageErr(cmd.CommandPath(), fmt.Errorf("%s: --out goes with --example; for a starter, give FILE after KIND", cmd.CommandPath()))
			}
			if len(args) < 1 || len(args) > 2 {
				return usageErr(cmd.CommandPath(), fmt.Errorf("%s: want a kind and optionally a file (see 'stormcheck kinds'), or --example NAME, got %d argument(s)", cmd.CommandPath(), len(args)))
			}
			return nil
		},
		ValidArgsFunction: func(cmd *cobra.Command, args []string, s string) ([]string, cobra.ShellCompDirective) {
			if len(args) == 0 {
				return completeKinds(cmd, args, s)
			}
			return completeYAML(cmd, args, s)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if example != "" {
				src, ok := examples.Read(example)
				if !ok {
					return usageErr(cmd.CommandPath(), fmt.Errorf("%s: --example: %s", cmd.CommandPath(), scenarios.UnknownExample(example)))
				}
				file := out
				if file == "" {
					file = example + ".yaml"
				}
				if err := writeScenarioFile(cmd, file, src, force); err != nil {
					return err
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: the %s example; next: stormcheck validate %s && stormcheck run %s\n", file, example, file, file)
				return nil
			}
			src, err := scenarios.Starter(args[0], "")
			if err != nil {
				return usageErr(cmd.CommandPath(), fmt.Errorf("%s: %v", cmd.CommandPath(), err))
			}
			if len(args) == 1 {
				_, err := cmd.OutOrStdout().Write(src)
				return err
			}
			file := args[1]
			if err := writeScenarioFile(cmd, file, src, force); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: a %s scenario; next: stormcheck validate %s && stormcheck run %s\n", file, args[0], file, file)
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "replace FILE (and a differing schema beside it) if it exists")
	cmd.Flags().StringVar(&example, "example", "", "write the built-in example `NAME` instead of a starter (one of: "+strings.Join(examples.Names(), ", ")+")")
	cmd.Flags().StringVar(&out, "out", "", "with --example: the `FILE` to write (default NAME.yaml)")
	_ = cmd.RegisterFlagCompletionFunc("example", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return examples.Names(), cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// writeScenarioFile writes src to file (refused if it exists, unless
// force) and the scenario schema beside it, so that the file's
// yaml-language-server line resolves. An existing schema with the same
// bytes is left as it is; a differing one is replaced only with force.
func writeScenarioFile(cmd *cobra.Command, file string, src []byte, force bool) error {
	if err := refuseExisting(cmd, file, force); err != nil {
		return err
	}
	schemaFile := filepath.Join(filepath.Dir(file), examples.SchemaFile)
	schema := examples.Schema()
	writeSchema := true
	if old, err := os.ReadFile(schemaFile); err == nil {
		switch {
		case bytes.Equal(old, schema):
			writeSchema = false
		case !force:
			writeSchema = false
			fmt.Fprintf(cmd.ErrOrStderr(), "%s: note: %s differs from this binary's schema; left as it is (--force replaces it)\n", cmd.CommandPath(), schemaFile)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: %v", cmd.CommandPath(), err)}
	}
	if err := reports.WriteFileAtomic(file, func(w io.Writer) error { _, err := w.Write(src); return err }); err != nil {
		return &exitError{code: exitHarness, err: fmt.Errorf("%s: %v", cmd.CommandPath(), err)}
	}
	if writeSchema {
		if err := reports.WriteFileAtomic(schemaFile, func(w io.Writer) error { _, err := w.Write(schema); return err }); err != nil {
			return &exitError{code: exitHarness, err: fmt.Errorf("%s: %v", cmd.CommandPath(), err)}
		}
	}
	return nil
}

// refuseExisting refuses to replace file unless force.
func refuseExisting(cmd *cobra.Command, file string, force bool) error {
	if _, err := os.Stat(file); err == nil && !force {
		return usageErr(cmd.CommandPath(), fmt.Errorf("%s: %s exists; left as it is (--force replaces it)", cmd.CommandPath(), file))
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: %v", cmd.CommandPath(), err)}
	}
	return nil
}
