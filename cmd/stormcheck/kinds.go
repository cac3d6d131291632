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
		Use:   "kinds [KIND]",
		Short: "List the workload kinds; with KIND, its params with defaults and ranges",
		Long: `Without an argument, lists every workload kind a scenario can use
(workloads[].kind), with what it does, the params it accepts and the checks
that apply to it. With KIND, shows that kind in full: each param with what it
does, its allowed values and its default, the ops it records (the names
thresholds use) and its checks. An unknown KIND is
refused (exit 2) with the nearest kinds.`,
		Example: `  stormcheck kinds
  stormcheck kinds blob.lease-mutex
  stormcheck init blob.lease-mutex mutex.yaml   # a starter scenario for it`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usageErr(cmd.CommandPath(), fmt.Errorf("%s: want at most one kind, got %d", cmd.CommandPath(), len(args)))
			}
			return nil
		},
		ValidArgsFunction: completeKinds,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if _, ok := scenarios.Kinds[args[0]]; !ok {
					return usageErr(cmd.CommandPath(), fmt.Errorf("%s: %s", cmd.CommandPath(), scenarios.UnknownKind(args[0])))
				}
				showKind(cmd.OutOrStdout(), args[0])
				return nil
			}
			listKinds(cmd.OutOrStdout())
			return nil
		},
	}
}

func listKinds(stdout io.Writer) {
	for _, n := range scenarios.KindNames() {
		k := scenarios.Kinds[n]
		fmt.Fprintf(stdout, "%s\n  %s\n  params: %s\n  checks: %s\n", n, k.Summary, orNone(k.Params), orNone(k.Checks))
		if len(k.OptionalChecks) > 0 {
			fmt.Fprintf(stdout, "  optional checks (list them in checks:): %s\n", orNone(k.OptionalChecks))
		}
		fmt.Fprintln(stdout)
	}
	fmt.Fprintln(stdout, "'stormcheck kinds KIND' shows a kind's params with their defaults and allowed values.")
}

// showKind prints one kind: summary, params (what, allowed values,
// default), checks.
func showKind(w io.Writer, kind string) {
	k := scenarios.Kinds[kind]
	fmt.Fprintf(w, "%s\n  %s\n\n", kind, k.Summary)
	if len(k.Params) == 0 {
		fmt.Fprintln(w, "params: none")
	} else {
		fmt.Fprintln(w, "params (workloads[].params):")
		width := 0
		for _, n := range k.Params {
			width = max(width, len(n))
		}
		for _, n := range k.Params {
			p := scenarios.ParamSpecOf(n)
			fmt.Fprintf(w, "  %-*s  %s\n", width, n, p.Doc)
			fmt.Fprintf(w, "  %-*s  %s; default %s\n", width, "", p.RangeText(kind), p.DefaultTextFor(kind))
		}
	}
	fmt.Fprintf(w, "\nops it records (thresholds name them, e.g. p95(%s) < 50ms): %s\n", k.Ops[0], orNone(k.Ops))
	fmt.Fprintf(w, "checks (run by default): %s\n", orNone(k.Checks))
	if len(k.OptionalChecks) > 0 {
		fmt.Fprintf(w, "optional checks (list them in checks:): %s\n", orNone(k.OptionalChecks))
	}
	fmt.Fprintf(w, "\na starter scenario: stormcheck init %s %s.yaml\n", kind, strings.ReplaceAll(kind, ".", "-"))
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, ", ")
}

// completeKinds completes a workload kind.
func completeKinds(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	var out []string
	for _, n := range scenarios.KindNames() {
		out = append(out, n+"\t"+scenarios.Kinds[n].Summary)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
