package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/stormcheck/stormcheck/scenarios"
)

func newValidateCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "validate SCENARIO.yaml...",
		Short: "Check scenario files strictly without running them",
		Long: `Checks each scenario file strictly (unknown fields, types, ranges) without
running it. A bare name that is not a file (quickstart) is the built-in
example of that name. Errors name FILE:LINE:COL, the field and what is allowed, one line
per invalid file (a YAML syntax error too, with its column; an unknown kind
with the nearest kinds). What the loader chose that the file did not say (a
workload without any duration runs for the default 30s) is printed as a
note. Exit code 2 if any file is invalid.`,
		Example: `  stormcheck validate quickstart
  stormcheck validate quickstart open-loop faults-demo
  stormcheck init --example lww && stormcheck validate *.yaml`,
		Args:              minArgs(1, "want one or more scenario files (try quickstart, a built-in example)"),
		ValidArgsFunction: completeYAML,
		RunE: func(cmd *cobra.Command, args []string) error {
			code := exitOK
			for _, f := range args {
				sc, err := scenarios.Load(f)
				if err != nil {
					fmt.Fprintln(cmd.ErrOrStderr(), err)
					code = exitUsage
					continue
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s: ok (%q, %d workload(s), checks %v%s)\n", f, sc.Name, len(sc.Workloads), sc.Checks, faultsText(sc))
				for _, n := range sc.Notes {
					fmt.Fprintf(cmd.OutOrStdout(), "%s: note: %s\n", f, n)
				}
			}
			return exitWith(code)
		},
	}
}

// faultsText names a scenario's faults for validate's line ("" if none).
func faultsText(sc *scenarios.Scenario) string {
	if len(sc.Faults) == 0 {
		return ""
	}
	names := make([]string, len(sc.Faults))
	for i, f := range sc.Faults {
		names[i] = f.Name
	}
	return fmt.Sprintf(", faults %v", names)
}
