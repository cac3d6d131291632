package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner"
)

func TestValidatePrintsOnePreciseErrorPerFile(t *testing.T) {
	files, _ := filepath.Glob("../../scenarios/testdata/invalid/*.yaml")
	if len(files) < 10 {
		t.Fatalf("want at least 10 malformed scenarios, found %d", len(files))
	}
	var out, errOut bytes.Buffer
	code := run(append([]string{"validate"}, files...), &out, &errOut)
	if code != exitUsage {
		t.Errorf("exit code %d, want %d", code, exitUsage)
	}
	lines := strings.Split(strings.TrimSpace(errOut.String()), "\n")
	if len(lines) != len(files) {
		t.Fatalf("%d files, %d error lines:\n%s", len(files), len(lines), errOut.String())
	}
	for i, l := range lines {
		// FILE:LINE[:COL]: ... naming the file it is about.
		if !strings.HasPrefix(l, files[i]+":") {
			t.Errorf("line %d does not start with its file %s: %q", i, files[i], l)
		}
	}
	out.Reset()
	errOut.Reset()
	if code := run([]string{"validate", "../../scenarios/examples/quickstart.yaml"}, &out, &errOut); code != exitOK || !strings.Contains(out.String(), "ok") {
		t.Errorf("quickstart: exit %d, %q %q", code, out.String(), errOut.String())
	}
}

func TestUsageAndUnknownCommand(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(nil, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), "Exit codes") || !strings.Contains(errOut.String(), "a command is needed") {
		t.Errorf("no args: exit %d, %q", code, errOut.String())
	}
	errOut.Reset()
	if code := run([]string{"frobnicate"}, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), `unknown command "frobnicate"`) {
		t.Errorf("unknown command: exit %d, %q", code, errOut.String())
	}
	out.Reset()
	if code := run([]string{"run", "-h"}, &out, &errOut); code != exitOK || !strings.Contains(out.String(), "--connection-string") {
		t.Errorf("run -h: exit %d, %q", code, out.String())
	}
	errOut.Reset()
	if code := run([]string{"run", "--target", "moon", "../../scenarios/examples/quickstart.yaml"}, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), "allowed: azurite, connection-string") {
		t.Errorf("bad --target: exit %d %q", code, errOut.String())
	}
}

func TestExitCodes(t *testing.T) {
	pass := checks.Result{Verdict: checks.Pass}
	fail := checks.Result{Verdict: checks.Fail}
	und := checks.Result{Verdict: checks.Undecided}
	cases := []struct {
		s    reports.Summary
		err  error
		want int
	}{
		{reports.Summary{Checks: []checks.Result{pass}}, nil, exitOK},
		{reports.Summary{Checks: []checks.Result{pass, fail}}, nil, exitViolation},
		{reports.Summary{Checks: []checks.Result{fail}, Interrupted: true}, os.ErrClosed, exitViolation},
		{reports.Summary{Checks: []checks.Result{pass}}, os.ErrClosed, exitHarness},
		{reports.Summary{Checks: []checks.Result{pass}, Interrupted: true}, nil, exitInterrupted},
		{reports.Summary{Interrupted: true}, os.ErrClosed, exitInterrupted}, // Ctrl-C while Azurite started
		{reports.Summary{Checks: []checks.Result{pass, und}}, nil, exitUndecided},
	}
	for i, c := range cases {
		if got := exitCode(&c.s, c.err); got != c.want {
			t.Errorf("case %d: exit %d, want %d", i, got, c.want)
		}
	}
}

// TestCheckCommandFindsViolation re-checks a saved results directory whose
// history holds a lost update: two writes succeeded on the same ETag. The
// history is read compressed (as runs write it now), plain (as older runs
// wrote it), and compressed but cut short after the violation (a killed run):
// the last is checked up to its last whole record and says so.
func TestCheckCommandFindsViolation(t *testing.T) {
	ops := []checks.Op{
		{Actor: checks.ActorSetup, Kind: "blob.put", Key: "k0", In: checks.Input{Value: "0 setup-1"}, Out: checks.Output{Status: 201, ETag: `"e0"`}, Call: 1, Return: 2},
		{Actor: 0, Kind: "blob.get", Key: "k0", Out: checks.Output{Status: 200, ETag: `"e0"`, Value: "0 setup-1"}, Call: 3, Return: 4},
		{Actor: 1, Kind: "blob.get", Key: "k0", Out: checks.Output{Status: 200, ETag: `"e0"`, Value: "0 setup-1"}, Call: 3, Return: 4},
		{Actor: 0, Kind: "blob.put", Key: "k0", In: checks.Input{IfMatch: `"e0"`, Value: "1 a0-1"}, Out: checks.Output{Status: 201, ETag: `"e1"`}, Call: 5, Return: 6},
		{Actor: 1, Kind: "blob.put", Key: "k0", In: checks.Input{IfMatch: `"e0"`, Value: "1 a1-1"}, Out: checks.Output{Status: 201, ETag: `"e2"`}, Call: 7, Return: 8},
		{Actor: checks.ActorFinal, Kind: "blob.get", Key: "k0", Out: checks.Output{Status: 200, ETag: `"e2"`, Value: "1 a1-1"}, Call: 9, Return: 10},
	}
	var plain bytes.Buffer
	for i := range ops {
		ops[i].Seq, ops[i].Workload, ops[i].Attempt = uint64(i+1), "counter", 1
		line, _ := ops[i].MarshalJSONLine()
		plain.Write(line)
	}
	var zst bytes.Buffer // flushed after every record, as the recorder flushes every second
	w, _ := checks.NewHistoryWriter(&zst)
	for i := range ops {
		line, _ := ops[i].MarshalJSONLine()
		_, _ = w.Write(line)
		_ = w.Flush()
	}
	_ = w.Close()
	for _, c := range []struct {
		name, file string
		data       []byte
		truncated  bool
	}{
		{"compressed", runner.HistoryFile, zst.Bytes(), false},
		{"plain (older runs)", runner.LegacyHistoryFile, plain.Bytes(), false},
		{"compressed, cut short", runner.HistoryFile, zst.Bytes()[:zst.Len()-12], true},
	} {
		dir := t.TempDir()
		scenario := "name: saved\nduration: 1s\nworkloads:\n  - {name: counter, kind: blob.etag-counter, actors: 2}\n"
		if err := os.WriteFile(filepath.Join(dir, "scenario.yaml"), []byte(scenario), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, c.file), c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errOut bytes.Buffer
		code := run([]string{"check", dir}, &out, &errOut)
		if code != exitViolation {
			t.Fatalf("%s: exit %d, want %d; %s %s", c.name, code, exitViolation, out.String(), errOut.String())
		}
		if !strings.Contains(out.String(), "FAIL") || !strings.Contains(out.String(), "no-lost-updates") {
			t.Errorf("%s: report does not show the failure:\n%s", c.name, out.String())
		}
		if said := strings.Contains(errOut.String(), "truncated"); said != c.truncated {
			t.Errorf("%s: stderr says truncated=%v, want %v: %s", c.name, said, c.truncated, errOut.String())
		}
	}
}
