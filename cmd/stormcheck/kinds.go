package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/stormcheck/stormcheck/scenarios"
)

func cmdKinds(stdout io.Writer) int {
	names := make([]string, 0, len(scenarios.Kinds))
	for k := range scenarios.Kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, n := range names {
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
