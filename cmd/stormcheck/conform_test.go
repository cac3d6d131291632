package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const wrongRuleFile = `rules:
  - id: test.wrong
    title: a rule whose expectation is wrong
    source: test
    tags: [blob, lease]
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
	code, out := conform("--rules", "../../scenarios/conformance", "--baseline", "../../scenarios/conformance/baselines/azurite-3.37.0.json")
	if code != exitOK || !strings.Contains(out, "0 unexpected") || !strings.Contains(out, ": OK") {
		t.Fatalf("shipped rules with the shipped baseline: exit %d\n%s", code, out)
	}
	rules := filepath.Join(tmp, "rules")
	_ = os.MkdirAll(rules, 0o755)
	_ = os.WriteFile(filepath.Join(rules, "wrong.yaml"), []byte(wrongRuleFile), 0o644)
	code, out = conform("--rules", rules)
	if code != exitViolation || !strings.Contains(out, "DIVERGES") || !strings.Contains(out, "expected 201, got 412 LeaseIdMissing") {
		t.Fatalf("a wrong rule must fail visibly: exit %d\n%s", code, out)
	}
	known := filepath.Join(tmp, "known.json")
	_ = os.WriteFile(known, []byte(`{"target":"azurite 3.37.0","divergences":[{"rule":"test.wrong","actual":"412 LeaseIdMissing","reason":"the rule is wrong on purpose"}]}`), 0o644)
	code, out = conform("--rules", rules, "--baseline", known)
	if code != exitOK || !strings.Contains(out, "known") {
		t.Errorf("a known divergence: exit %d\n%s", code, out)
	}
	fixed := filepath.Join(tmp, "fixed.json")
	_ = os.WriteFile(fixed, []byte(`{"target":"azurite 3.37.0","divergences":[{"rule":"blob.lease.bad-duration","actual":"201","reason":"old Azurite accepted it"}]}`), 0o644)
	code, out = conform("--rules", "../../scenarios/conformance", "--tags", "blob,lease,-slow", "--baseline", fixed)
	if code != exitOK || !strings.Contains(strings.ToLower(out), "fixed") {
		t.Errorf("a known divergence that now passes must be reported so the baseline can be tightened: exit %d\n%s", code, out)
	}
}

func TestConformDiffSameTarget(t *testing.T) {
	var out, errOut bytes.Buffer
	// -slow: the rules that wait for a lease to expire add nothing here.
	code := run([]string{"conform", "--rules", "../../scenarios/conformance", "--tags", "blob,lease,-slow", "--out", t.TempDir(), "--diff", "azurite", "azurite:3.37.0"}, &out, &errOut)
	if code != exitOK || !strings.Contains(out.String(), "no differences") {
		t.Errorf("the same Azurite twice must not differ: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	code = run([]string{"conform", "--rules", "../../scenarios/conformance", "--out", t.TempDir(), "--diff", "azurite", "moon"}, &out, &errOut)
	if code != exitUsage || !strings.Contains(errOut.String(), "allowed: azurite") {
		t.Errorf("bad target spec: exit %d %s", code, errOut.String())
	}
}
