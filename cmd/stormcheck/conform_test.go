package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const wrongRuleFile = `rules:
  - id: test.wrong
    title: a rule whose expectation is wrong
    source: test
    tags: [blob, selftest]
    steps:
      - op: blob.put
        blob: b
        body: "v1"
        expect: {status: 201}
      - op: blob.lease.acquire
        blob: b
        duration: 15
        expect: {status: 201}
      - op: blob.put
        blob: b
        body: "v2"
        expect: {status: 201}
`

// TestConformCommand runs the shipped rules with the shipped Azurite
// baseline (what CI gates on), then a wrong rule with and without a
// baseline that accepts its divergence, and a baseline entry that is fixed.
func TestConformCommand(t *testing.T) {
	tmp := t.TempDir()
	runs := 0
	conform := func(args ...string) (int, string) {
		var out, errOut bytes.Buffer
		runs++
		code := run(append([]string{"conform", "--out", filepath.Join(tmp, fmt.Sprint("run", runs))}, args...), &out, &errOut)
		return code, out.String() + errOut.String()
	}
	// Built-in rules against the built-in baseline, by name (the runner's
	// TestConformanceAgainstAzurite runs all of them; the queue rules hold
	// known divergences, so the baseline is exercised).
	code, out := conform("--tags", "queue", "--baseline", "azurite-3.37.0")
	if code != exitOK || !strings.Contains(out, "0 unexpected") || !strings.Contains(out, ": OK") {
		t.Fatalf("shipped rules with the shipped baseline: exit %d\n%s", code, out)
	}
	rules := filepath.Join(tmp, "rules")
	_ = os.MkdirAll(rules, 0o755)
	_ = os.WriteFile(filepath.Join(rules, "wrong.yaml"), []byte(wrongRuleFile), 0o644)
	code, out = conform("--rules", rules, "--tags", "selftest", "--baseline", "azurite-3.37.0")
	if code != exitViolation || !strings.Contains(out, "DIVERGES") || !strings.Contains(out, "expected 201, got 412 LeaseIdMissing") ||
		!strings.Contains(out, "1 unexpected") || !strings.Contains(out, "1 new, 0 replacing") {
		t.Fatalf("a wrong rule must fail visibly, even with the shipped baseline: exit %d\n%s", code, out)
	}
	known := filepath.Join(tmp, "known.json")
	_ = os.WriteFile(known, []byte(`{"target":"azurite 3.37.0","divergences":[{"rule":"test.wrong","actual":"412 LeaseIdMissing","reason":"the rule is wrong on purpose"}]}`), 0o644)
	code, out = conform("--rules", rules, "--tags", "selftest", "--baseline", known)
	if code != exitOK || !strings.Contains(out, "known") {
		t.Errorf("a known divergence: exit %d\n%s", code, out)
	}
	// A user's rule replaces the built-in rule with its id: here with a
	// wrong expectation, which must show.
	replace := filepath.Join(tmp, "replace")
	_ = os.MkdirAll(replace, 0o755)
	_ = os.WriteFile(filepath.Join(replace, "mine.yaml"), []byte(strings.Replace(wrongRuleFile, "test.wrong", "blob.lease.bad-duration", 1)), 0o644)
	code, out = conform("--rules", replace, "--tags", "selftest", "--baseline", "azurite-3.37.0")
	if code != exitViolation || !strings.Contains(out, "1 replacing built-in rules (blob.lease.bad-duration)") || !strings.Contains(out, "got 412 LeaseIdMissing") {
		t.Errorf("a replacing rule: exit %d\n%s", code, out)
	}
	fixed := filepath.Join(tmp, "fixed.json")
	_ = os.WriteFile(fixed, []byte(`{"target":"azurite 3.37.0","divergences":[{"rule":"blob.lease.bad-duration","actual":"201","reason":"old Azurite accepted it"}]}`), 0o644)
	code, out = conform("--tags", "blob,lease,-slow,-reference,-raw", "--baseline", fixed)
	if code != exitOK || !strings.Contains(strings.ToLower(out), "fixed") {
		t.Errorf("a known divergence that now passes must be reported so the baseline can be tightened: exit %d\n%s", code, out)
	}
}

func TestConformDiffSameTarget(t *testing.T) {
	var out, errOut bytes.Buffer
	// -slow: the rules that wait for a lease to expire add nothing here.
	code := run([]string{"conform", "--tags", "container,lease", "--out", t.TempDir(), "--diff", "azurite", "azurite:3.37.0"}, &out, &errOut)
	if code != exitOK || !strings.Contains(out.String(), "no differences") {
		t.Errorf("the same Azurite twice must not differ: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	code = run([]string{"conform", "--out", t.TempDir(), "--diff", "azurite", "moon"}, &out, &errOut)
	if code != exitUsage || !strings.Contains(errOut.String(), "allowed: azurite") {
		t.Errorf("bad target spec: exit %d %s", code, errOut.String())
	}
}

// TestConformFromAnywhere builds the binary and runs it in a temporary
// directory that is not the checkout: the rules and the baseline come from
// inside the binary.
func TestConformFromAnywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and starts Azurite")
	}
	bin := filepath.Join(t.TempDir(), "stormcheck")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	elsewhere := t.TempDir()
	runBin := func(args ...string) (int, string) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = elsewhere
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, string(out)
	}
	code, out := runBin("conform", "--coverage")
	if code != exitOK || !strings.Contains(out, "Put Blob (blob.put)") || !strings.Contains(out, "Delete Message (queue.delete)") ||
		!strings.Contains(out, "points covered") {
		t.Fatalf("--coverage from %s: exit %d\n%s", elsewhere, code, out)
	}
	code, out = runBin("conform", "--tags", "container", "--baseline", "azurite-3.37.0", "--out", "res")
	if code != exitOK || !strings.Contains(out, "baseline (azurite 3.37.0)") || !strings.Contains(out, ": OK") {
		t.Fatalf("conform from %s: exit %d\n%s", elsewhere, code, out)
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "res", "conform.json")); err != nil {
		t.Errorf("results not written where asked: %v", err)
	}
	code, out = runBin("conform", "--rules", "nowhere", "--coverage")
	if code != exitUsage || !strings.Contains(out, "nowhere") {
		t.Errorf("a missing --rules folder: exit %d\n%s", code, out)
	}
}

// TestConformInterruptedKeepsTheBaseline: Ctrl-C (here SIGTERM, as a CI
// job cancelled sends) during conform exits 130 and says so, and leaves the
// --write-baseline file as it was: the rules cut short are errors, and a
// baseline written from them listed each as a divergence. It used to die
// at once on SIGTERM (Azurite's data left in the folder) and, on Ctrl-C,
// exit 1 and write that baseline. The rules chosen wait for 15 s leases to
// expire, so they are still running when the signal comes, whenever that is.
func TestConformInterruptedKeepsTheBaseline(t *testing.T) {
	bin := buildBinary(t)
	tmp := t.TempDir()
	baseline := filepath.Join(tmp, "baseline.json")
	if err := os.WriteFile(baseline, []byte("the baseline kept before"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "conform", "--tags", "blob,lease,expired", "--out", filepath.Join(tmp, "out"), "--write-baseline", baseline)
	stdout, stderr := &syncBuffer{}, &syncBuffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitForStderr(t, cmd, stderr, "results in")
	time.Sleep(3 * time.Second) // mostly into the rules; either way the assertions hold
	_ = cmd.Process.Signal(syscall.SIGTERM)
	_ = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted || !strings.Contains(stderr.String(), "interrupted") {
		t.Fatalf("exit %d (%v), want %d saying interrupted\nstdout:\n%s\nstderr:\n%s", code, cmd.ProcessState, exitInterrupted, stdout.String(), stderr.String())
	}
	if b, _ := os.ReadFile(baseline); string(b) != "the baseline kept before" {
		t.Errorf("the baseline was replaced by an interrupted run's:\n%s", b)
	}
	if m, _ := filepath.Glob(filepath.Join(tmp, "out", "data-*")); len(m) > 0 {
		t.Errorf("Azurite's workspace left: %v", m)
	}
}
