package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stormcheck/stormcheck/conformance/verdict"
	"github.com/stormcheck/stormcheck/internal/boundedread"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/conformreport"
	"github.com/stormcheck/stormcheck/reports/text"
	"github.com/stormcheck/stormcheck/runner"
	scconform "github.com/stormcheck/stormcheck/runner/conform"
	scstage "github.com/stormcheck/stormcheck/runner/stage"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios"
	"github.com/stormcheck/stormcheck/scenarios/conformance"
)

const conformLong = `Runs the conformance rules (YAML step scripts compiled into stormcheck; --rules
DIR adds a folder of your own, whose rules replace built-in ones of the same id)
against a target: each rule in its own new container, table or queue,
independent rules in parallel, every step's status, x-ms-error-code, ETag (and
entity properties, messages, pop receipts) compared with what the Azure Storage
documentation says. Prints a table of rules per service and feature (pass,
diverge, known to the baseline, error), then only the rules to look at: each
divergence the baseline does not accept and each error in two lines of at
most 100 characters (rule id, step, reference; expected vs got). -v lists every
rule. --format json, junit or markdown prints that form instead. The results
directory gets conform.json and conform.junit.xml whatever --format says.
--evidence DIR writes one file per diverging step: the request and response
as sent and received (Authorization, SAS signatures and keys redacted), the
expectation and the reference's sentence, ready to paste into an upstream
issue. With --baseline, only the divergences it does not accept (unexpected
or changed); with --diff, only those new or changed on the second target.

With --coverage, prints instead the coverage map: for every operation of the
REST reference checklist, which condition headers (with their value classes),
resource states, error codes and precedence cases rules cover (+) and which
not (-), from the rules' covers: lists. It needs no target.

With --baseline FILE (or the name of a baseline shipped inside stormcheck,
e.g. azurite-3.37.0), the divergences listed there are known and accepted:
the exit code is 0 when the divergences are exactly the known ones (a known
divergence that now passes is reported so the baseline can be tightened).
Without a baseline, 0 means every rule passed.

With --diff TARGET1 TARGET2 (azurite, azurite:VERSION, or env:VAR naming a
variable that holds a connection string), runs the rules against both and
shows only where they differ.

Exit codes: 0 conforms (or matches the baseline), 1 unexpected divergence or
a rule that could not run, 2 bad usage or invalid rules, 3 target error,
130 interrupted (Ctrl-C, SIGTERM: the rules cut short are errors, results
written, --write-baseline not written).`

// conformFlags are conform's flags.
type conformFlags struct {
	rulesDir, tags, baseline, writeBaseline, out, connStr, evidence string
	target                                                          *enumFlag
	parallel                                                        int
	diff, coverage, verbose                                         bool
	format                                                          *enumFlag
}

func newConformCmd() *cobra.Command {
	f := &conformFlags{}
	cmd := &cobra.Command{
		Use:   "conform [flags] [--diff TARGET1 TARGET2]",
		Short: "Run the conformance rules: where the target diverges from the docs",
		Long:  conformLong,
		Example: `  # every rule against a managed Azurite, gated on the shipped baseline (as CI does)
  stormcheck conform --baseline azurite-3.37.0

  # which headers, states and error paths of each operation have rules, and which not
  stormcheck conform --coverage

  # the built-in rules plus (or replaced by) your own
  stormcheck conform --rules ./my-rules

  # only the blob lease rules, leaving out the slow ones
  stormcheck conform --tags blob,lease,-slow

  # where does a real account differ from Azurite?
  stormcheck conform --diff azurite env:AZURE_STORAGE_CONNECTION_STRING`,
		Args: func(cmd *cobra.Command, args []string) error {
			if !f.diff && len(args) > 0 {
				return usageErr(cmd.CommandPath(), fmt.Errorf("%s: unexpected argument(s) %q (targets as arguments only with --diff)", cmd.CommandPath(), args))
			}
			return nil
		},
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return []string{"azurite", "azurite:" + scenarios.DefaultAzuriteVersion, "env:AZURE_STORAGE_CONNECTION_STRING"}, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return exitWith(conform(cmd, args, f))
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.rulesDir, "rules", "", "directory of your own rule files (*.yaml), added to the built-in rules; a rule with a built-in id replaces it")
	fl.StringVar(&f.tags, "tags", "", "run only rules carrying all these comma-separated tags (e.g. blob,lease); -TAG leaves out rules carrying TAG (e.g. blob,-slow)")
	fl.StringVar(&f.baseline, "baseline", "", "known divergences of this target: a JSON file, or the name of a shipped baseline ("+strings.Join(conformance.ShippedBaselines(), ", ")+"); exit 0 when exactly these diverge")
	fl.BoolVar(&f.coverage, "coverage", false, "print the coverage map of the rules against the REST reference checklist (per operation: headers, states, error codes, precedence; + covered, - hole) and exit")
	fl.StringVar(&f.writeBaseline, "write-baseline", "", "write the divergences found as a baseline file (reasons to be filled in)")
	fl.StringVar(&f.evidence, "evidence", "", "write one Markdown file per diverging step into this directory: the request and response as sent and received (secrets redacted), the expectation and the reference's sentence, ready for an upstream issue; with --baseline only the divergences it does not accept, with --diff only those new or changed on the second target")
	fl.StringVar(&f.out, "out", "", "results directory, new or empty: one holding anything is refused and left as it was (default results/conform-<date>-<time>, -2, -3... when a run started in the same second has it)")
	f.target = addEnumFlag(cmd, "target", scenarios.TargetAzurite, "azurite (managed) or connection-string (reads AZURE_STORAGE_CONNECTION_STRING)", scenarios.TargetAzurite, scenarios.TargetConnectionString)
	fl.StringVar(&f.connStr, "connection-string", "", "storage connection string (never printed); implies --target connection-string")
	fl.IntVar(&f.parallel, "parallel", 8, "rules run at once")
	fl.BoolVarP(&f.verbose, "verbose", "v", false, "list every rule, not only the divergences and errors")
	f.format = addEnumFlag(cmd, "format", "text", "what goes to stdout: text (the table and the rules to look at), json (conform.json), junit (conform.junit.xml) or markdown", "text", "json", "junit", "markdown")
	fl.BoolVar(&f.diff, "diff", false, "run the rules against two targets given as arguments (azurite, azurite:VERSION or env:VAR holding a connection string) and show only where they differ")
	_ = cmd.MarkFlagDirname("rules")
	_ = cmd.MarkFlagDirname("out")
	_ = cmd.MarkFlagFilename("baseline", "json")
	return cmd
}

func conform(cmd *cobra.Command, args []string, f *conformFlags) int {
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if f.parallel < 1 {
		fmt.Fprintf(stderr, "stormcheck conform: --parallel %d: must be 1 or more\n", f.parallel)
		return exitUsage
	}
	if f.connStr != "" && cmd.Flags().Changed("target") && f.target.value == scenarios.TargetAzurite {
		fmt.Fprintln(stderr, errConnStrWithAzurite("stormcheck conform"))
		return exitUsage
	}
	rs, from, err := loadRules(f.rulesDir, stderr)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	var sel []string
	if f.tags != "" {
		sel = strings.Split(f.tags, ",")
	}
	rules := rs.Select(sel)
	if len(rules) == 0 {
		fmt.Fprintf(stderr, "stormcheck conform: no rule in %s carries tags %v\n", from, sel)
		return exitUsage
	}
	if f.coverage {
		if err := conformance.WriteCoverage(stdout, conformance.Coverage(rules)); err != nil {
			fmt.Fprintln(stderr, "stormcheck conform:", err)
			return exitHarness
		}
		return exitOK
	}
	var base *verdict.Baseline
	if f.baseline != "" {
		if base, err = readBaseline(f.baseline); boundedread.As(err) != nil {
			fmt.Fprintln(stderr, "stormcheck conform: --baseline", err) // it names the file
			return exitUsage
		} else if err != nil {
			fmt.Fprintf(stderr, "stormcheck conform: baseline %s: %v\n", f.baseline, err)
			return exitUsage
		}
	}
	st := scenarios.Target{Kind: scenarios.TargetAzurite, AzuriteVersion: scenarios.DefaultAzuriteVersion}
	if f.target.value == scenarios.TargetConnectionString || f.connStr != "" {
		st = scenarios.Target{Kind: scenarios.TargetConnectionString, ConnectionStringEnv: "AZURE_STORAGE_CONNECTION_STRING"}
	}
	uses := scconform.ConformServices(rules)
	if err := target.CheckConnectionString(st, target.Options{ConnectionString: f.connStr, Uses: uses}); err != nil && !f.diff {
		fmt.Fprintln(stderr, "stormcheck conform:", err) // before the results folder is made
		return exitUsage
	}
	dir := f.out
	if dir == "" {
		dir = claimNewDir(filepath.Join("results", "conform-"+time.Now().Format("20060102-150405")))
	}
	if err := runner.ClaimResultsDir(dir); err != nil { // never into an earlier run's folder
		fmt.Fprintln(stderr, "stormcheck conform:", err)
		return exitUsage
	}
	if f.diff {
		return conformDiff(args, rules, dir, f.parallel, f.evidence, stdout, stderr)
	}
	ctx, stopCleanup, stop := catchConformPresses(stderr)
	defer stop()
	fmt.Fprintf(stderr, "stormcheck: %d conformance rule(s) from %s, results in %s\n", len(rules), from, dir)
	t, err := target.Open(ctx, st, target.Options{ConnectionString: f.connStr, Uses: uses, WorkDir: dir, Progress: stderr, MaxConns: f.parallel * 2})
	if err != nil {
		fmt.Fprintln(stderr, "stormcheck conform: target:", target.Redact(err.Error()))
		if ctx.Err() != nil {
			return exitInterrupted
		}
		return exitHarness
	}
	runnable, notRun := scconform.Split(t, rules)
	if len(runnable) == 0 {
		_ = t.Close()
		fmt.Fprintf(stderr, "stormcheck conform: no selected rule can run on %s: %s\n", t.Desc, scconform.NotRunLine(notRun, true))
		return exitHarness
	}
	results := scconform.Run(ctx, stopCleanup, t, rules, f.parallel)
	_ = t.Close()
	if line := scconform.NotRunLine(notRun, f.verbose || f.format.value != "text"); line != "" {
		w := stdout
		if f.format.value != "text" { // stdout holds one document
			w = stderr
		}
		fmt.Fprint(w, text.Wrapped("NOT RUN: ", "  ", line)+"\n")
	}
	// Interrupted: the rules that did not finish are errors ("interrupted");
	// the matrix and files say so, but a baseline written from them would
	// list every one as a divergence, over the file it replaces.
	interrupted := ctx.Err() != nil
	var rep *verdict.BaselineReport
	if base != nil {
		r := verdict.CompareBaseline(results, base)
		rep = &r
	}
	if err := writeConformStdout(stdout, f, results, rep); err != nil {
		fmt.Fprintln(stderr, "stormcheck conform:", err)
	}
	if err := conformreport.WriteConformJSON(filepath.Join(dir, "conform.json"), results, rep); err != nil {
		fmt.Fprintln(stderr, "stormcheck conform:", err)
	}
	if err := conformreport.WriteConformJUnit(filepath.Join(dir, "conform.junit.xml"), results, rep); err != nil {
		fmt.Fprintln(stderr, "stormcheck conform:", err)
	}
	if f.evidence != "" {
		files, err := conformreport.WriteEvidenceFor(f.evidence, results, newToBaseline(rep))
		if err != nil {
			fmt.Fprintln(stderr, "stormcheck conform: --evidence:", err)
		}
		fmt.Fprintf(stderr, "stormcheck conform: %d evidence file(s) in %s\n", len(files), f.evidence)
	}
	if f.writeBaseline != "" && interrupted {
		fmt.Fprintf(stderr, "stormcheck conform: interrupted: baseline %s not written (the rules cut short would be in it as divergences)\n", f.writeBaseline)
	} else if f.writeBaseline != "" {
		err := reports.WriteFileAtomic(f.writeBaseline, func(w io.Writer) error {
			return verdict.WriteBaseline(w, verdict.BaselineFrom(results, baselineTarget(st, t)))
		})
		if err != nil {
			fmt.Fprintln(stderr, "stormcheck conform:", err)
		}
	}
	resultsLine := stdout
	if f.format.value != "text" { // stdout holds one document
		resultsLine = stderr
	}
	fmt.Fprintf(resultsLine, "\nresults: %s\n", dir)
	if interrupted {
		fmt.Fprintln(stderr, "stormcheck conform: interrupted: the rules that did not finish are errors (\"interrupted\") in the matrix and the files")
		return exitInterrupted
	}
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

// writeConformStdout prints the run in the form --format names.
func writeConformStdout(w io.Writer, f *conformFlags, results []verdict.RuleResult, rep *verdict.BaselineReport) error {
	switch f.format.value {
	case "json":
		return conformreport.EncodeConformJSON(w, results, rep)
	case "junit":
		return conformreport.EncodeConformJUnit(w, results, rep)
	case "markdown":
		return conformreport.WriteConformMarkdown(w, results, rep, f.verbose)
	}
	return conformreport.WriteConformSummary(w, results, rep, f.verbose)
}

// loadRules loads the built-in rules and, if dir is set, overlays the rules
// of dir (a rule with a built-in id replaces it); from says where they came
// from, for messages.
func loadRules(dir string, stderr io.Writer) (rs *conformance.RuleSet, from string, err error) {
	rs, err = conformance.Shipped()
	if err != nil {
		return nil, "", fmt.Errorf("stormcheck conform: the built-in rules do not load (a broken build): %w", err)
	}
	if dir == "" {
		return rs, "the built-in rules", nil
	}
	user, err := conformance.LoadDir(dir)
	if err != nil {
		return nil, "", err
	}
	replaced := rs.Overlay(user)
	fmt.Fprintf(stderr, "stormcheck: %d rule(s) from %s: %d new, %d replacing built-in rules%s\n", len(user.Rules), dir,
		len(user.Rules)-len(replaced), len(replaced), listed(replaced))
	return rs, "the built-in rules and " + dir, nil
}

// listed is " (a, b)" for a non-empty list.
func listed(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return " (" + strings.Join(ids, ", ") + ")"
}

// readBaseline reads a baseline file, or the shipped baseline of that name
// when no such file exists.
func readBaseline(name string) (*verdict.Baseline, error) {
	b, err := verdict.ReadBaselineFile(name)
	if !os.IsNotExist(err) {
		return b, err
	}
	if data, ok := conformance.ShippedBaseline(name); ok {
		return verdict.ReadBaseline(bytes.NewReader(data))
	}
	return nil, fmt.Errorf("no such file, and no shipped baseline of that name (shipped: %s)", strings.Join(conformance.ShippedBaselines(), ", "))
}

// baselineTarget names the target in a baseline file: stable from run to
// run (no ephemeral port), so the file can be shipped and diffed.
func baselineTarget(st scenarios.Target, t *target.Target) string {
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

// catchConformPresses: the first Ctrl-C stops the rules (ctx), the second
// the cleanup after them (stopCleanup).
func catchConformPresses(stderr io.Writer) (ctx, stopCleanup context.Context, stop func()) {
	ctxs, stop := catchPresses(stderr, 2, func(press int) string {
		switch press {
		case 1:
			return fmt.Sprintf("stormcheck conform: interrupted: stopping the rules; their cleanup follows, for at most %s (Ctrl-C again to stop it)", scstage.CleanupAfterAbort)
		case 2:
			return "stormcheck conform: interrupted again: stopping the cleanup"
		}
		return "stormcheck conform: interrupted: the cleanup is stopping; the results follow (Ctrl-C changes nothing more)"
	})
	return ctxs[0], ctxs[1], stop
}

// newToBaseline picks the divergences --evidence writes: every one without
// a baseline; with one, those it does not accept (unexpected, or listed
// but now diverging otherwise).
func newToBaseline(rep *verdict.BaselineReport) func(*verdict.RuleResult, *verdict.StepVerdict) (bool, string) {
	return func(r *verdict.RuleResult, _ *verdict.StepVerdict) (bool, string) {
		if rep == nil {
			return true, ""
		}
		for _, it := range rep.Changed {
			if it.Rule == r.ID && it.Accepted != nil {
				return true, fmt.Sprintf("- Baseline %s accepts: %s (the answer changed)", rep.Target, it.Accepted.Actual)
			}
		}
		return !rep.IsKnown(r.ID), ""
	}
}

// conformDiff runs the rules against two targets and prints only where
// they differ (status, error code, ETag behaviour).
func conformDiff(args []string, rules []conformance.Rule, dir string, parallel int, evidence string, stdout, stderr io.Writer) int {
	if len(args) != 2 {
		fmt.Fprintln(stderr, "stormcheck conform --diff: want two targets, e.g. --diff azurite env:AZURE_STORAGE_CONNECTION_STRING")
		return exitUsage
	}
	ctx, stopCleanup, stop := catchConformPresses(stderr)
	defer stop()
	var targets [2]scenarios.Target
	for i, spec := range args { // both, before either starts
		st, err := targetSpec(spec)
		if err != nil {
			fmt.Fprintln(stderr, "stormcheck conform --diff:", err)
			return exitUsage
		}
		if err := target.CheckConnectionString(st, target.Options{Uses: scconform.ConformServices(rules)}); err != nil {
			fmt.Fprintf(stderr, "stormcheck conform --diff: %s: %v\n", spec, err)
			return exitUsage
		}
		targets[i] = st
	}
	var sides [2][]verdict.RuleResult
	for i, spec := range args {
		st := targets[i]
		t, err := target.Open(ctx, st, target.Options{Uses: scconform.ConformServices(rules), WorkDir: filepath.Join(dir, fmt.Sprint("target", i+1)), Progress: stderr, MaxConns: parallel * 2})
		if err != nil {
			fmt.Fprintf(stderr, "stormcheck conform --diff: %s: %s\n", spec, target.Redact(err.Error()))
			return exitHarness
		}
		if _, nr := scconform.Split(t, rules); len(nr) > 0 {
			fmt.Fprintf(stderr, "stormcheck conform --diff: %s: %s\n", spec, scconform.NotRunLine(nr, true))
		}
		sides[i] = scconform.Run(ctx, stopCleanup, t, rules, parallel)
		_ = t.Close()
	}
	diffs := verdict.DiffTargets(sides[0], sides[1])
	_ = conformreport.WriteConformDiff(stdout, diffs, args[0], args[1])
	if evidence != "" {
		files, err := conformreport.DiffEvidence(evidence, diffs, args[0], args[1])
		if err != nil {
			fmt.Fprintln(stderr, "stormcheck conform: --evidence:", err)
		}
		fmt.Fprintf(stderr, "stormcheck conform: %d evidence file(s) of divergences new or changed on %s in %s\n", len(files), args[1], evidence)
	}
	if len(diffs) > 0 {
		return exitViolation
	}
	return exitOK
}
