package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// buildRelease builds stormcheck as a release is built, with its version
// set by -ldflags -X main.version, into dir.
func buildRelease(t *testing.T, dir, version string) string {
	t.Helper()
	bin := filepath.Join(dir, "stormcheck")
	cmd := exec.Command("go", "build", "-ldflags", "-X main.version="+version, "-o", bin, ".")
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// exampleSkips are the --help examples this test does not run, by the
// start of their command line, with the reason.
var exampleSkips = []struct{ prefix, why string }{
	{"stormcheck run /scenario/scenario.yaml", "runs inside a Kubernetes Job against an account"},
	{"stormcheck run quickstart --prometheus", "binds the fixed port 9464 and sends to an OTLP collector"},
	{"stormcheck conform --baseline", "every rule (20-40 s); TestConformCommand runs it"},
	{"stormcheck conform --rules ./my-rules", "needs a folder of the user's rules"},
	{"stormcheck conform --diff", "needs an account (env:AZURE_STORAGE_CONNECTION_STRING)"},
	{"stormcheck kube my-account.yaml", "needs the user's scenario for an entra-id account"},
	{"stormcheck merge", "needs the results of a sharded run"},
	{"stormcheck cleanup --run", "needs the target a run left objects on (a managed Azurite is gone when its run ends)"},
	{"stormcheck matrix", "every core scenario under every fault kind (minutes); the matrix tests run cells of it"},
}

// exampleExits are the examples that end with another exit code than 0,
// by the start of their command line.
var exampleExits = map[string]int{
	// Azurite diverges from the docs on some lease rules; without a
	// baseline to gate on, a divergence is exit 1.
	"stormcheck conform --tags blob,lease,-slow": exitViolation,
}

// helpExample is one command of a --help example.
type helpExample struct {
	from string // the command whose Example it is
	line string // as written, after continuation lines are joined
	args []string
	skip string // why it is not run ("" to run it)
}

// helpExamples parses every command's Example: comments and blank lines
// dropped, continuation lines joined, "a && b" as two commands, what a
// command is piped into dropped, "source <(X)" as X. Commands run with an
// account (an environment assignment first) or by kubectl are skipped with
// the reason, as are those in exampleSkips.
func helpExamples(t *testing.T, root *cobra.Command) []helpExample {
	var out []helpExample
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		text := strings.ReplaceAll(c.Example, "\\\n", " ")
		for _, l := range strings.Split(text, "\n") {
			if i := strings.Index(l, " # "); i >= 0 {
				l = l[:i]
			}
			l = strings.TrimSpace(l)
			if l == "" || strings.HasPrefix(l, "#") {
				continue
			}
			for _, part := range strings.Split(l, "&&") {
				part = strings.TrimSpace(part)
				if s, ok := strings.CutPrefix(part, "source <("); ok {
					part = strings.TrimSuffix(s, ")")
				}
				part, _, _ = strings.Cut(part, "|")
				part = strings.Join(strings.Fields(part), " ")
				e := helpExample{from: c.CommandPath(), line: part, args: strings.Fields(part)}
				switch {
				case strings.Contains(e.args[0], "="):
					e.skip = "needs an account (" + e.args[0] + ")"
				case e.args[0] == "kubectl":
					e.skip = "needs Kubernetes"
				case e.args[0] != "stormcheck":
					t.Errorf("%s: example %q runs %s, not stormcheck", e.from, l, e.args[0])
					continue
				}
				for _, s := range exampleSkips {
					if e.skip == "" && strings.HasPrefix(part, s.prefix) {
						e.skip = s.why
					}
				}
				out = append(out, e)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return out
}

// TestStandaloneBinary: a release build, alone in an empty directory, says
// its version, runs the built-in quickstart (exit 0), and runs every
// --help example that needs no account and no Kubernetes with the exit
// code it should have. Each command's examples run in order in a fresh
// empty directory; a results folder the examples name is the quickstart's
// run; runs are cut to 3 s.
func TestStandaloneBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs it against managed Azurites")
	}
	const release = "v0.0.0-standalone-test"
	bin := buildRelease(t, t.TempDir(), release)
	exec1 := func(dir string, args ...string) (int, string) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "AZURE_STORAGE_CONNECTION_STRING=")
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		switch {
		case err == nil:
			return 0, string(out)
		case errors.As(err, &ee):
			return ee.ExitCode(), string(out)
		}
		t.Fatalf("stormcheck %v: %v", args, err)
		return -1, ""
	}
	if code, out := exec1(t.TempDir(), "version"); code != 0 || !strings.HasPrefix(out, "stormcheck "+release+" ") {
		t.Errorf("version of a release build: exit %d %q", code, out)
	}

	work := t.TempDir()
	code, out := exec1(work, "run", "quickstart", "--duration", "3s", "--progress", "none")
	if code != exitOK {
		t.Fatalf("run quickstart from an empty directory: exit %d\n%s", code, out)
	}
	runs, _ := filepath.Glob(filepath.Join(work, "results", "quickstart-*"))
	if len(runs) != 1 {
		t.Fatalf("results folders: %v", runs)
	}
	runDir := runs[0]
	if b, err := os.ReadFile(filepath.Join(runDir, "scenario.yaml")); err != nil || !strings.Contains(string(b), "name: quickstart") {
		t.Errorf("the results folder does not keep the built-in scenario: %v", err)
	}

	// What the examples name that an empty directory lacks.
	smoke := t.TempDir()
	replace := strings.NewReplacer(
		"results/quickstart-20261122-091957", runDir,
		// several runs a side (compare BASE... -- NEW...): each the one run
		"results/base-1", runDir, "results/base-2", runDir, "results/base-3", runDir, "results/base-4", runDir,
		"results/new-1", runDir, "results/new-2", runDir, "results/new-3", runDir, "results/new-4", runDir,
		"results/base", runDir, "results/new", runDir,
		"/tmp/smoke", filepath.Join(smoke, "out"),
	)
	var ran, skipped int
	dirs := map[string]string{}
	for _, e := range helpExamples(t, newRootCmd(io.Discard, io.Discard)) {
		if e.skip != "" {
			t.Logf("skip %s: %q: %s", e.from, e.line, e.skip)
			skipped++
			continue
		}
		dir, ok := dirs[e.from]
		if !ok {
			dir = t.TempDir()
			dirs[e.from] = dir
		}
		args := make([]string, 0, len(e.args)+4)
		for _, a := range e.args[1:] {
			a = replace.Replace(a)
			if m, _ := filepath.Glob(filepath.Join(dir, a)); strings.Contains(a, "*") && len(m) > 0 {
				for _, f := range m { // as the shell expands it
					args = append(args, filepath.Base(f))
				}
				continue
			}
			args = append(args, a)
		}
		if args[0] == "run" {
			args = cutRun(args)
		}
		want := exitOK
		if c, ok := exampleExits[e.line]; ok {
			want = c
		}
		code, out := exec1(dir, args...)
		if code != want {
			t.Errorf("%s example %q (run as %v in an empty directory): exit %d, want %d\n%s", e.from, e.line, args, code, want, tail(out, 20))
		}
		ran++
	}
	if ran < 15 {
		t.Errorf("only %d examples ran (%d skipped)", ran, skipped)
	}
	t.Logf("%d examples ran, %d skipped", ran, skipped)
}

// cutRun makes a run example short: its --duration 3s, progress none.
func cutRun(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--duration", "--progress":
			i++
			continue
		}
		out = append(out, args[i])
	}
	return append(out, "--duration", "3s", "--progress", "none")
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	l := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}
