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
	good := "../../scenarios/examples/faults-demo.yaml"
	if code := run([]string{"validate", good}, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d; stderr %s", code, errOut.String())
	}
	if !strings.Contains(out.String(), "faults [") {
		t.Fatalf("validate does not list the faults: %q", out.String())
	}
}

// matrix names an unknown kind or scenario with what is allowed.
func TestMatrixUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"matrix", "--kinds", "http.nope"}, `--kinds: unknown "http.nope"; allowed: http.server-busy`},
		{[]string{"matrix", "--scenarios", "etag"}, `--scenarios: unknown "etag"; allowed: etag-counter`},
		{[]string{"matrix", "extra"}, "matrix takes no arguments"},
	} {
		var out, errOut bytes.Buffer
		if code := run(c.args, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut.String(), c.want)
		}
	}
}
