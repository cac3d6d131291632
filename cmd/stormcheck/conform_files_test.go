package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestConformFileRulesOnAzurite: on the managed Azurite (no File service)
// the File REST rules are not run and the output says so and why (-v and
// the error name them); the other selected rules run and are judged.
// Selecting only the file rules fails (exit 3) with the same reason.
func TestConformFileRulesOnAzurite(t *testing.T) {
	tmp := t.TempDir()
	var out, errOut bytes.Buffer
	code := run([]string{"conform", "--out", filepath.Join(tmp, "a"), "--tags", "lease,-slow,-reference,-raw", "--baseline", "azurite-3.37.0"}, &out, &errOut)
	text := strings.Join(strings.Fields(out.String()), " ") // the NOT RUN line is wrapped
	if code != exitOK || !strings.Contains(text, "NOT RUN: 3 rule(s) need an account and were not run (-v names them): Azurite has no File service") ||
		strings.Contains(text, "file.lease.write-needs-id") || !strings.Contains(text, "every rule passed") {
		t.Fatalf("exit %d\n%s\n%s", code, text, errOut.String())
	}
	out.Reset()
	errOut.Reset()
	// -v names them.
	code = run([]string{"conform", "-v", "--out", filepath.Join(tmp, "v"), "--tags", "file,lease"}, &out, &errOut)
	if text := strings.Join(strings.Fields(out.String()), " "); code != exitHarness || !strings.Contains(errOut.String()+text, "file.lease.write-needs-id") {
		t.Fatalf("-v: exit %d\n%s\n%s", code, text, errOut.String())
	}
	out.Reset()
	errOut.Reset()
	code = run([]string{"conform", "--out", filepath.Join(tmp, "b"), "--tags", "file"}, &out, &errOut)
	if code != exitHarness || !strings.Contains(errOut.String(), "no selected rule can run on managed Azurite") {
		t.Fatalf("file rules only: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
}
