package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/scenarios"
)

func newInitCmd() *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "init KIND [FILE]",
		Short: "Write a commented starter scenario for a workload kind",
		Long: `Writes a starter scenario for one workload of KIND: every param the kind takes
at its default, each explained with its allowed values, the checks that
apply, and the yaml-language-server line that lets an editor complete and
check the fields. It validates as written. Without FILE it goes to stdout; an
existing FILE is left alone unless --force.`,
		Example: `  stormcheck init blob.etag-counter counter.yaml
  stormcheck validate counter.yaml && stormcheck run counter.yaml
  stormcheck init queue.work | less`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usageErr(cmd.CommandPath(), fmt.Errorf("%s: want a kind and optionally a file (see 'stormcheck kinds'), got %d argument(s)", cmd.CommandPath(), len(args)))
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
			src, err := scenarios.Starter(args[0], "")
			if err != nil {
				return usageErr(cmd.CommandPath(), fmt.Errorf("%s: %v", cmd.CommandPath(), err))
			}
			if len(args) == 1 {
				_, err := cmd.OutOrStdout().Write(src)
				return err
			}
			file := args[1]
			if _, err := os.Stat(file); err == nil && !force {
				return usageErr(cmd.CommandPath(), fmt.Errorf("%s: %s exists; left as it is (--force replaces it)", cmd.CommandPath(), file))
			} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return &exitError{code: exitUsage, err: fmt.Errorf("%s: %v", cmd.CommandPath(), err)}
			}
			if err := reports.WriteFileAtomic(file, func(w io.Writer) error { _, err := w.Write(src); return err }); err != nil {
				return &exitError{code: exitHarness, err: fmt.Errorf("%s: %v", cmd.CommandPath(), err)}
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: a %s scenario; next: stormcheck validate %s && stormcheck run %s\n", file, args[0], file, file)
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "replace FILE if it exists")
	return cmd
}
