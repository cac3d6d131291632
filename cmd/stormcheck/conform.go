package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/stormcheck/stormcheck/conformance/verdict"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/scenarios"
	"github.com/stormcheck/stormcheck/scenarios/conformance"
)

const conformHelp = `usage: stormcheck conform [flags]

Runs the conformance rules (YAML step scripts, default scenarios/conformance/)
against a target: each rule in its own new container, table or queue,
independent rules in parallel, every step's status, x-ms-error-code, ETag (and
entity properties, messages, pop receipts) compared with what the Azure Storage
documentation says. Prints a matrix grouped by service and
feature (pass / diverges / error, with expected vs actual) and writes
conform.json and conform.junit.xml.

With --baseline FILE, the divergences listed there are known and accepted:
the exit code is 0 when the divergences are exactly the known ones (a known
divergence that now passes is reported so the baseline can be tightened).
Without a baseline, 0 means every rule passed.

Exit codes: 0 conforms (or matches the baseline), 1 unexpected divergence or
a rule that could not run, 2 bad usage or invalid rules, 3 target error.

Flags:
`

func cmdConform(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("conform", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, conformHelp); fs.PrintDefaults() }
	rulesDir := fs.String("rules", filepath.Join("scenarios", "conformance"), "directory of rule files (*.yaml)")
	tags := fs.String("tags", "", "run only rules carrying all these comma-separated tags (e.g. blob,lease); -TAG leaves out rules carrying TAG (e.g. blob,-slow)")
	baseline := fs.String("baseline", "", "known divergences of this target (JSON); exit 0 when exactly these diverge")
	writeBaseline := fs.String("write-baseline", "", "write the divergences found as a baseline file (reasons to be filled in)")
	out := fs.String("out", "", "results directory (default results/conform-<date>-<time>)")
	target := fs.String("target", "azurite", "azurite (managed) or connection-string (reads AZURE_STORAGE_CONNECTION_STRING)")
	connStr := fs.String("connection-string", "", "storage connection string (never printed); implies --target connection-string")
	parallel := fs.Int("parallel", 8, "rules run at once")
	diff := fs.Bool("diff", false, "run the rules against two targets given as arguments (azurite, azurite:VERSION or env:VAR holding a connection string) and show only where they differ")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return exitOK
		}
		return exitUsage
	}
	rs, err := conformance.LoadDir(*rulesDir)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	var sel []string
	if *tags != "" {
		sel = strings.Split(*tags, ",")
	}
	rules := rs.Select(sel)
	if len(rules) == 0 {
		fmt.Fprintf(stderr, "stormcheck conform: no rule in %s carries tags %v\n", *rulesDir, sel)
		return exitUsage
	}
	var base *verdict.Baseline
	if *baseline != "" {
		f, err := os.Open(*baseline)
		if err == nil {
			base, err = verdict.ReadBaseline(f)
			f.Close()
		}
		if err != nil {
			fmt.Fprintf(stderr, "stormcheck conform: baseline %s: %v\n", *baseline, err)
			return exitUsage
		}
	}
	dir := *out
	if dir == "" {
		dir = filepath.Join("results", "conform-"+time.Now().Format("20060102-150405"))
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintln(stderr, "stormcheck conform:", err)
		return exitUsage
	}
	if *diff {
		return conformDiff(fs.Args(), rules, dir, *parallel, stdout, stderr)
	}
	st := scenarios.Target{Kind: scenarios.TargetAzurite, AzuriteVersion: scenarios.DefaultAzuriteVersion}
	if *target == scenarios.TargetConnectionString || *connStr != "" {
		st = scenarios.Target{Kind: scenarios.TargetConnectionString, ConnectionStringEnv: "AZURE_STORAGE_CONNECTION_STRING"}
	} else if *target != scenarios.TargetAzurite {
		fmt.Fprintf(stderr, "stormcheck conform: --target %q: allowed: azurite, connection-string\n", *target)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	fmt.Fprintf(stderr, "stormcheck: %d conformance rule(s) from %s, results in %s\n", len(rules), *rulesDir, dir)
	t, err := runner.OpenTarget(ctx, st, runner.TargetOptions{ConnectionString: *connStr, WorkDir: dir, Progress: stderr, MaxConns: *parallel * 2})
	if err != nil {
		fmt.Fprintln(stderr, "stormcheck conform: target:", runner.Redact(err.Error()))
		return exitHarness
	}
	results := runner.Conformance(ctx, t, rules, *parallel)
	_ = t.Close()
	var rep *verdict.BaselineReport
	if base != nil {
		r := verdict.CompareBaseline(results, base)
		rep = &r
	}
	_ = reports.WriteConformMatrix(stdout, results, rep)
	if err := reports.WriteConformJSON(filepath.Join(dir, "conform.json"), results, rep); err != nil {
		fmt.Fprintln(stderr, "stormcheck conform:", err)
	}
	if err := reports.WriteConformJUnit(filepath.Join(dir, "conform.junit.xml"), results, rep); err != nil {
		fmt.Fprintln(stderr, "stormcheck conform:", err)
	}
	if *writeBaseline != "" {
		err := reports.WriteFileAtomic(*writeBaseline, func(w io.Writer) error {
			return verdict.WriteBaseline(w, verdict.BaselineFrom(results, baselineTarget(st, t)))
		})
		if err != nil {
			fmt.Fprintln(stderr, "stormcheck conform:", err)
		}
	}
	fmt.Fprintf(stdout, "\nresults: %s\n", dir)
	if rep != nil {
		if rep.OK() {
			return exitOK
		}
		return exitViolation
	}
	for _, r := range results {
		if r.Status != verdict.ConformPass {
			return exitViolation
		}
	}
	return exitOK
}

// baselineTarget names the target in a baseline file: stable from run to
// run (no ephemeral port), so the file can be shipped and diffed.
func baselineTarget(st scenarios.Target, t *runner.Target) string {
	if st.Kind == scenarios.TargetAzurite {
		return "azurite " + st.AzuriteVersion
	}
	return t.Desc
}

// targetSpec reads a --diff target: azurite, azurite:VERSION, or env:VAR
// (a connection string in the environment variable VAR, never printed).
func targetSpec(spec string) (scenarios.Target, error) {
	switch {
	case spec == "azurite":
		return scenarios.Target{Kind: scenarios.TargetAzurite, AzuriteVersion: scenarios.DefaultAzuriteVersion}, nil
	case strings.HasPrefix(spec, "azurite:"):
		return scenarios.Target{Kind: scenarios.TargetAzurite, AzuriteVersion: strings.TrimPrefix(spec, "azurite:")}, nil
	case strings.HasPrefix(spec, "env:") && len(spec) > 4:
		return scenarios.Target{Kind: scenarios.TargetConnectionString, ConnectionStringEnv: strings.TrimPrefix(spec, "env:")}, nil
	}
	return scenarios.Target{}, fmt.Errorf("target %q: allowed: azurite, azurite:VERSION, env:VAR (a variable holding a connection string)", spec)
}

// conformDiff runs the rules against two targets and prints only where
// they differ (status, error code, ETag behaviour).
func conformDiff(args []string, rules []conformance.Rule, dir string, parallel int, stdout, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintln(stderr, "stormcheck conform --diff: want two targets, e.g. --diff azurite env:AZURE_STORAGE_CONNECTION_STRING")
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	var sides [2][]verdict.RuleResult
	for i, spec := range args {
		st, err := targetSpec(spec)
		if err != nil {
			fmt.Fprintln(stderr, "stormcheck conform --diff:", err)
			return exitUsage
		}
		t, err := runner.OpenTarget(ctx, st, runner.TargetOptions{WorkDir: filepath.Join(dir, fmt.Sprint("target", i+1)), Progress: stderr, MaxConns: parallel * 2})
		if err != nil {
			fmt.Fprintf(stderr, "stormcheck conform --diff: %s: %s\n", spec, runner.Redact(err.Error()))
			return exitHarness
		}
		sides[i] = runner.Conformance(ctx, t, rules, parallel)
		_ = t.Close()
	}
	diffs := verdict.DiffTargets(sides[0], sides[1])
	_ = reports.WriteConformDiff(stdout, diffs, args[0], args[1])
	if len(diffs) > 0 {
		return exitViolation
	}
	return exitOK
}
