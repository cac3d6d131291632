package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
)

// TestHelpOnEveryCommand: -h and --help exit 0 on every command, print to
// stdout, and teach with examples.
func TestHelpOnEveryCommand(t *testing.T) {
	root := newRootCmd(&bytes.Buffer{}, &bytes.Buffer{})
	var names []string
	for _, c := range root.Commands() {
		names = append(names, c.Name())
	}
	for _, want := range []string{"run", "validate", "check", "report", "conform", "compare", "kinds", "init", "schema", "version", "completion"} {
		if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+want+" ") {
			t.Errorf("no %s command among %v", want, names)
		}
	}
	for _, name := range names {
		for _, h := range []string{"-h", "--help"} {
			var out, errOut bytes.Buffer
			code := run([]string{name, h}, &out, &errOut)
			if code != exitOK || !strings.Contains(out.String(), "Usage:") {
				t.Errorf("%s %s: exit %d\n%s%s", name, h, code, out.String(), errOut.String())
			}
			if name != "help" && name != "completion" && !strings.Contains(out.String(), "Examples:") {
				t.Errorf("%s %s has no examples:\n%s", name, h, out.String())
			}
		}
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"--help"}, &out, &errOut); code != exitOK || !strings.Contains(out.String(), "Exit codes") {
		t.Errorf("--help: exit %d\n%s", code, out.String())
	}
}

// TestBadUsageSaysWhatWasWrong: every kind of bad usage exits 2 with a
// message naming what was wrong (and the allowed values), not the usage alone.
func TestBadUsageSaysWhatWasWrong(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"report", "--format", "xml", "x"}, `invalid argument "xml" for "--format" flag: allowed: text, html, json`},
		{[]string{"run", "--progress", "fancy", "../../scenarios/examples/quickstart.yaml"}, `"fancy" for "--progress" flag: allowed: auto, bars, lines, none`},
		{[]string{"run", "--duration", "soon", "../../scenarios/examples/quickstart.yaml"}, `"soon" for "--duration"`},
		{[]string{"run", "--duration", "-5s", "../../scenarios/examples/quickstart.yaml"}, `--duration -5s: must be above 0`},
		{[]string{"run", "--actors", "0", "../../scenarios/examples/quickstart.yaml"}, `--actors 0: must be above 0`},
		{[]string{"run", "../../scenarios/examples/quickstart.yaml", "--rate", "10"}, `--rate 10: no workload has executor: open`},
		{[]string{"run", "../../scenarios/examples/quickstart.yaml", "--set", "counter.payload_bytes=lots"}, `--set counter.payload_bytes=lots: workloads[0].params.payload_bytes: must be a whole number`},
		{[]string{"run", "../../scenarios/examples/quickstart.yaml", "--set", "countr.payload_bytes=1"}, `no workload named "countr" (did you mean "counter"?)`},
		{[]string{"run", "../../scenarios/examples/quickstart.yaml", "--actors", "20000"}, `--actors 20000: workloads[0].actors: must be`},
		{[]string{"run", "../../scenarios/examples/quickstart.yaml", "--unreachable-after", "0s"}, `--unreachable-after 0s: must be at least 1s`},
		{[]string{"run", "../../scenarios/examples/quickstart.yaml", "--unreachable-after", "-1s"}, `--unreachable-after -1s: must be at least 1s`},
		{[]string{"run", "../../scenarios/examples/quickstart.yaml", "--unreachable-after", "500ms"}, `--unreachable-after 500ms: must be at least 1s`},
		{[]string{"run", "../../scenarios/examples/quickstart.yaml", "--target", "azurite", "--connection-string", "AccountName=a;AccountKey=c2VjcmV0c2VjcmV0"}, `--connection-string and --target azurite disagree`},
		{[]string{"conform", "--target", "azurite", "--connection-string", "AccountName=a;AccountKey=c2VjcmV0c2VjcmV0"}, `--connection-string and --target azurite disagree`},
		{[]string{"cleanup", "--older-than", "0s", "--target", "connection-string"}, `--older-than 0s: must be above 0`},
		{[]string{"cleanup", "--older-than", "-1h", "--target", "connection-string"}, `--older-than -1h0m0s: must be above 0`},
		{[]string{"run"}, "want exactly one scenario file"},
		{[]string{"run", "a.yaml", "b.yaml"}, "want exactly one scenario file"},
		{[]string{"run", "--frobnicate", "a.yaml"}, "unknown flag: --frobnicate"},
		{[]string{"validate"}, "want one or more scenario files"},
		{[]string{"check"}, "want exactly one results directory"},
		{[]string{"check", "a", "b"}, "want exactly one results directory"},
		{[]string{"report"}, "want exactly one results directory"},
		{[]string{"compare", "a"}, "want two saved runs"},
		{[]string{"compare", "--tolerance", "lots", "a", "b"}, `"lots" for "--tolerance" flag: not a number`},
		{[]string{"compare", "--tolerance", "-1", "a", "b"}, "--tolerance -1: must be 0 or more"},
		{[]string{"conform", "--target", "moon"}, "allowed: azurite, connection-string"},
		{[]string{"conform", "--parallel", "0"}, "--parallel 0: must be 1 or more"},
		{[]string{"conform", "azurite"}, "targets as arguments only with --diff"},
		{[]string{"version", "extra"}, `unknown command "extra"`},
		{[]string{"completion", "tcsh"}, `"tcsh"`},
	}
	for _, c := range cases {
		var out, errOut bytes.Buffer
		code := run(c.args, &out, &errOut)
		if strings.Contains(errOut.String(), "c2VjcmV0c2VjcmV0") {
			t.Errorf("%v: the key is echoed:\n%s", c.args, errOut.String())
		}
		if code != exitUsage || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: exit %d, want %d and %q on stderr; got\n%s", c.args, code, exitUsage, c.want, errOut.String())
		}
		if code == exitUsage && strings.Contains(errOut.String(), "\nUsage:") {
			t.Errorf("%v: prints the whole usage instead of what was wrong:\n%s", c.args, errOut.String())
		}
	}
}

// TestFlagsAfterArguments: flags may follow the positional arguments, as
// with kubectl or k6 (the standard flag package stopped at the first one).
func TestFlagsAfterArguments(t *testing.T) {
	dir := savedRun(t, exitOK)
	var out, errOut bytes.Buffer
	if code := run([]string{"report", dir, "--format", "json"}, &out, &errOut); code != exitOK || !strings.HasPrefix(out.String(), "{") {
		t.Errorf("report DIR --format json: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	out.Reset()
	if code := run([]string{"compare", dir, "--tolerance", "50", dir}, &out, &errOut); code != exitOK || !strings.Contains(out.String(), "no regression") {
		t.Errorf("compare A --tolerance 50 B: exit %d\n%s%s", code, out.String(), errOut.String())
	}
	// run FILE --flag parses the flag: an invalid value proves it was read.
	errOut.Reset()
	if code := run([]string{"run", "../../scenarios/examples/quickstart.yaml", "--progress", "fancy"}, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), "--progress") {
		t.Errorf("run FILE --progress fancy: exit %d\n%s", code, errOut.String())
	}
}

func TestCompletionScripts(t *testing.T) {
	for shell, want := range map[string]string{"bash": "__start_stormcheck", "zsh": "#compdef stormcheck", "fish": "complete -c stormcheck", "powershell": "Register-ArgumentCompleter"} {
		var out, errOut bytes.Buffer
		if code := run([]string{"completion", shell}, &out, &errOut); code != exitOK || !strings.Contains(out.String(), want) {
			t.Errorf("completion %s: exit %d, lacks %q", shell, code, want)
		}
	}
	// The values of an enum flag complete, and scenario files by extension.
	var out, errOut bytes.Buffer
	run([]string{"__complete", "run", "--progress", ""}, &out, &errOut)
	for _, want := range []string{"auto\n", "bars\n", "lines\n", "none\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("--progress completion lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	run([]string{"__complete", "run", ""}, &out, &errOut)
	if !strings.Contains(out.String(), "yaml\n") {
		t.Errorf("run completes no yaml files:\n%s", out.String())
	}
}

func TestDescribeBuild(t *testing.T) {
	bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/stormcheck/stormcheck", Version: "v0.3.1"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.time", Value: "2026-11-24T06:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	got := describeBuild(bi, "")
	for _, want := range []string{"stormcheck v0.3.1", "revision 0123abcd", "committed 2026-11-24T06:00:00Z", "modified", "go1.26.8"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	if got := describeBuild(bi, "v9.9.9"); !strings.HasPrefix(got, "stormcheck v9.9.9 ") {
		t.Errorf("-X main.version does not win: %q", got)
	}
	got = describeBuild(&debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}}, "")
	if strings.Contains(got, "dev ") || !strings.Contains(got, "no VCS revision recorded") {
		t.Errorf("without VCS: %q", got)
	}
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
	binOut  []byte
)

// buildBinary builds stormcheck once per test process, with VCS stamping
// on (whatever GOFLAGS says), into a directory removed at the end.
func buildBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "stormcheck-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "stormcheck")
		cmd := exec.Command("go", "build", "-buildvcs=auto", "-o", binPath, ".")
		cmd.Env = append(os.Environ(), "GOFLAGS=")
		binOut, binErr = cmd.CombinedOutput()
	})
	if binErr != nil {
		t.Fatalf("build: %v\n%s", binErr, binOut)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// TestVersionFromBuildInfo: the built binary's version is what the Go
// toolchain recorded in it (go version -m), not a fixed "dev".
func TestVersionFromBuildInfo(t *testing.T) {
	bin := buildBinary(t)
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	meta, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.TrimSpace(string(out))
	var rev, modVersion string
	for _, l := range strings.Split(string(meta), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) >= 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs.revision="):
			rev = strings.TrimPrefix(f[1], "vcs.revision=")
		case len(f) >= 3 && f[0] == "mod" && f[1] == "github.com/stormcheck/stormcheck":
			modVersion = f[2]
		}
	}
	if modVersion == "" || !strings.HasPrefix(got, "stormcheck "+modVersion+" ") {
		t.Errorf("version %q does not carry the module version %q", got, modVersion)
	}
	if rev != "" && !strings.Contains(got, "revision "+rev) {
		t.Errorf("version %q lacks the recorded revision %s", got, rev)
	}
	if rev == "" && !strings.Contains(got, "no VCS revision recorded") {
		t.Errorf("version %q does not say that no revision was recorded", got)
	}
	flag, _ := exec.Command(bin, "--version").Output()
	if strings.TrimSpace(string(flag)) != got {
		t.Errorf("--version %q differs from version %q", flag, got)
	}
}

// TestValidateMessages: a YAML syntax error has its line and column, an
// unknown kind is one short line with the nearest kinds, a scenario with
// no duration validates and says which default it gets.
func TestValidateMessages(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	syntax := write("syntax.yaml", "name: x\nduration: 5s\nworkloads:\n  - name: a\n    kind: blob.lww\n   actors: 3\n")
	kind := write("kind.yaml", "name: x\nduration: 5s\nworkloads:\n  - {name: a, kind: blob.etag-countr}\n")
	bare := write("bare.yaml", "name: bare\nworkloads:\n  - {name: counter, kind: blob.etag-counter}\n")
	var out, errOut bytes.Buffer
	if code := run([]string{"validate", syntax, kind, bare}, &out, &errOut); code != exitUsage {
		t.Errorf("exit %d", code)
	}
	for _, want := range []string{
		syntax + ":6:4: YAML syntax: did not find expected '-' indicator",
		kind + `:4:21: workloads[0].kind: unknown kind "blob.etag-countr"; nearest: blob.etag-counter, table.etag-counter; 'stormcheck kinds' lists all`,
	} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
	for _, l := range strings.Split(errOut.String(), "\n") {
		if len(l) > 250 {
			t.Errorf("a %d-character line: %q", len(l), l)
		}
	}
	if !strings.Contains(out.String(), bare+": ok") || !strings.Contains(out.String(), bare+": note: no duration: counter (no duration, stages or iterations of its own) runs for the default 30s") {
		t.Errorf("stdout:\n%s", out.String())
	}
}

// TestToleranceHasOneDefault: --tolerance's help names its default once
// (it used to add "(default -1)" after the real one).
func TestToleranceHasOneDefault(t *testing.T) {
	var out, errOut bytes.Buffer
	run([]string{"compare", "--help"}, &out, &errOut)
	for _, l := range strings.Split(out.String(), "\n") {
		if strings.Contains(l, "--tolerance float") {
			if strings.Count(l, "default") != 1 || strings.Contains(l, "-1") {
				t.Errorf("--tolerance help: %q", l)
			}
			return
		}
	}
	t.Errorf("no --tolerance in compare --help:\n%s", out.String())
}

// TestWrongKindOfPathSaysSo: a directory given as a scenario, and a folder
// that is not a results directory given to check, are named as such (they
// said "read DIR: is a directory" and "open DIR/scenario.yaml: no such
// file or directory"), exit 2.
func TestWrongKindOfPathSaysSo(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"validate", dir}, dir + ": a directory, not a YAML file: name the file (e.g. " + filepath.Join(dir, "*.yaml") + ")"},
		{[]string{"run", dir}, dir + ": a directory, not a YAML file"},
		{[]string{"check", dir}, "stormcheck check: " + dir + " is not a results directory: it holds no scenario.yaml"},
		{[]string{"check", filepath.Join(dir, "nope")}, "stormcheck check: no results directory " + filepath.Join(dir, "nope") + ": "},
	} {
		var out, errOut bytes.Buffer
		if code := run(c.args, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: exit %d, want %d and %q; stderr:\n%s", c.args, code, exitUsage, c.want, errOut.String())
		}
	}
}

// TestMalformedConnectionStringSaidOnce: a connection string the SDK
// cannot parse, or whose AccountKey is not base64, is bad input: exit 2
// (it was 3, a harness error), one "target:" line naming where the string
// came from, never echoing the key, and no results folder made. Every
// command that takes --connection-string, and the environment variable.
func TestMalformedConnectionStringSaidOnce(t *testing.T) {
	const secret = "c2VjcmV0c2VjcmV0"
	for _, c := range []struct{ cs, want string }{
		{"garbage;AccountKey=" + secret, "cannot be parsed: part 1 is not Name=value"},
		{"DefaultEndpointsProtocol=http;AccountName=a;AccountKey=" + secret + "*;BlobEndpoint=http://127.0.0.1:1/a", "has an AccountKey that is not valid base64"},
	} {
		t.Setenv("EDGES_BAD_CS", c.cs)
		dir := t.TempDir()
		out := filepath.Join(dir, "r")
		for _, args := range [][]string{
			{"run", "../../scenarios/examples/quickstart.yaml", "--progress", "none", "--out", out, "--connection-string", c.cs},
			{"conform", "--out", out, "--connection-string", c.cs},
			{"cleanup", "--older-than", "1h", "--dry-run", "--connection-string", c.cs},
			{"merge", out, "--from", "results", "--connection-string", c.cs},
		} {
			var stdout, stderr bytes.Buffer
			code := run(args, &stdout, &stderr)
			all := stdout.String() + stderr.String()
			want := args[0] + ": target: the connection string in --connection-string " + c.want
			if code != exitUsage || !strings.Contains(stderr.String(), want) || strings.Contains(all, "target: target:") || strings.Contains(all, secret) {
				t.Errorf("%s: exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", args[0], code, exitUsage, want, stdout.String(), stderr.String())
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s: a bad connection string made %s", args[0], out)
			}
		}
		t.Setenv("AZURE_STORAGE_CONNECTION_STRING", c.cs)
		for _, args := range [][]string{
			{"run", "../../scenarios/examples/quickstart.yaml", "--progress", "none", "--out", out, "--target", "connection-string"},
			{"conform", "--out", out, "--target", "connection-string"},
			{"conform", "--out", out, "--diff", "env:EDGES_BAD_CS", "azurite"},
		} {
			var stdout, stderr bytes.Buffer
			code := run(args, &stdout, &stderr)
			all := stdout.String() + stderr.String()
			if code != exitUsage || !strings.Contains(stderr.String(), "target: the connection string in environment variable ") || !strings.Contains(stderr.String(), c.want) || strings.Contains(all, secret) {
				t.Errorf("%v: exit %d, want %d and %q\nstdout:\n%s\nstderr:\n%s", args, code, exitUsage, c.want, stdout.String(), stderr.String())
			}
			_ = os.RemoveAll(out) // (conform --diff makes its folder before it reads the targets)
		}
	}
}
