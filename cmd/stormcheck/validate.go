package main

import (
	"fmt"
	"io"

	"github.com/stormcheck/stormcheck/scenarios"
)

func cmdValidate(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stderr, "usage: stormcheck validate SCENARIO.yaml...\n\nChecks each scenario file strictly (unknown fields, types, ranges) without running it.\nErrors name FILE:LINE:COL, the field and what is allowed. Exit code 2 if any file is invalid.")
		return exitUsage
	}
	code := exitOK
	for _, f := range args {
		sc, err := scenarios.Load(f)
		if err != nil {
			fmt.Fprintln(stderr, err)
			code = exitUsage
			continue
		}
		fmt.Fprintf(stdout, "%s: ok (%q, %d workload(s), checks %v)\n", f, sc.Name, len(sc.Workloads), sc.Checks)
	}
	return code
}
