// Command stormcheck runs Azure Storage concurrency scenarios against Azurite
// (started by itself) or a real account, checks the recorded history against
// the documented rules, and reports latency and throughput.
package main

import (
	"fmt"
	"io"
	"os"
)

const usage = `stormcheck: load tests and conformance checks for Azure Storage concurrency.

Usage:
  stormcheck run [flags] SCENARIO.yaml     run a scenario and check its history
  stormcheck validate SCENARIO.yaml...     check scenario files without running them
  stormcheck check RESULTS_DIR             re-run the checks over a saved run's history
  stormcheck report RESULTS_DIR            print a saved run's report again
  stormcheck conform [flags]               run the conformance rules: where the target diverges from the docs
  stormcheck compare [flags] BASE NEW      compare two saved runs: throughput and latency changes beyond the noise
  stormcheck kinds                         list workload kinds, their params and checks
  stormcheck version                       print the version

By default a run starts its own Azurite (installed with npm on first use into
the user cache directory), so nothing else is needed. 'stormcheck run -h'
lists the flags.

Exit codes:
  0  every check passed
  1  a check found a violation
  2  bad usage or an invalid scenario
  3  harness or target error (the target did not start, setup failed)
  4  no violation, but a check could not decide
  5  no violation, but a threshold of the scenario failed
  6  compare: a regression beyond the noise and the tolerance
  130 interrupted (results recorded so far are still written)
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "run":
		return cmdRun(args[1:], stdout, stderr)
	case "validate":
		return cmdValidate(args[1:], stdout, stderr)
	case "check":
		return cmdCheck(args[1:], stdout, stderr)
	case "report":
		return cmdReport(args[1:], stdout, stderr)
	case "kinds":
		return cmdKinds(stdout)
	case "conform":
		return cmdConform(args[1:], stdout, stderr)
	case "compare":
		return cmdCompare(args[1:], stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "stormcheck", version)
		return exitOK
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "stormcheck: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"
