package main

import (
	"bytes"
	"strings"
	"testing"
)

// validate names a malformed fault by file:line:col and accepts a good one,
// listing its faults.
func TestValidateFaults(t *testing.T) {
	var out, errOut bytes.Buffer
	bad := "../../scenarios/testdata/invalid/fault-kind-unknown.yaml"
	if code := run([]string{"validate", bad}, &out, &errOut); code != exitUsage {
		t.Fatalf("exit %d, want %d; stderr %s", code, exitUsage, errOut.String())
	}
	if want := bad + ":7:11: faults[0].kind: must be one of"; !strings.Contains(errOut.String(), want) {
		t.Fatalf("stderr %q lacks %q", errOut.String(), want)
	}
	out.Reset()
	errOut.Reset()
	good := "../../scenarios/faults-demo.yaml"
	if code := run([]string{"validate", good}, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d; stderr %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "faults [") {
		t.Fatalf("validate does not list the faults: %q", out.String())
	}
}
