package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stormcheck/stormcheck/scenarios"
)

func newKindsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "kinds",
		Short: "List the workload kinds, their params and the checks that apply",
		Long: `Lists every workload kind a scenario can use (workloads[].kind), with what it
does, the params it accepts and the checks that apply to it.`,
		Example: `  stormcheck kinds`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return exitWith(listKinds(cmd.OutOrStdout()))
		},
	}
}

func listKinds(stdout io.Writer) int {
	for _, n := range scenarios.KindNames() {
		k := scenarios.Kinds[n]
		fmt.Fprintf(stdout, "%s\n  %s\n  params: %s\n  checks: %s\n", n, k.Summary, orNone(k.Params), orNone(k.Checks))
		if len(k.OptionalChecks) > 0 {
			fmt.Fprintf(stdout, "  optional checks (list them in checks:): %s\n", orNone(k.OptionalChecks))
		}
		fmt.Fprintln(stdout)
	}
	return exitOK
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, ", ")
}
