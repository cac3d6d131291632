package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/conformance/verdict"
	"github.com/stormcheck/stormcheck/internal/boundedread"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/scenarios"
	"github.com/stormcheck/stormcheck/scenarios/conformance"
)

// boundedMemory is the data limit (ulimit -d) the built binary runs under
// in these tests: three times the largest bound a reader holds whole, plus
// what the binary needs to start (its threads' stacks count against it:
// 200 MB was enough, 100 MB not). Pointed at /dev/zero, report and compare
// grew to 22 GB before the bounds; past this limit the Go runtime dies
// with "fatal error: out of memory" (exit 2 too, so the tests also read
// what it said).
const boundedMemory = 3*reports.MaxSummaryBytes + 256<<20

// runLimited runs the built binary with args under boundedMemory.
func runLimited(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("ulimit -d bounds what a process maps on Linux (4.7 and later)")
	}
	bin := buildBinary(t)
	script := fmt.Sprintf(`ulimit -d %d && exec "$0" "$@"`, boundedMemory>>10)
	cmd := exec.Command("sh", append([]string{"-c", script, bin}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	if s := errOut.String(); strings.Contains(s, "fatal error") || strings.Contains(s, "out of memory") {
		t.Fatalf("%v: ran out of its %d MiB:\n%.2000s", args, boundedMemory>>20, s)
	}
	return code, out.String(), errOut.String()
}

// oversize replaces path by a sparse file of n bytes (nothing written).
func oversize(t *testing.T, path string, n int64) string {
	t.Helper()
	os.Remove(path)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(n); err != nil {
		t.Fatal(err)
	}
	return path
}

// toZero replaces path by a link to /dev/zero: size 0 to stat, endless to
// read.
func toZero(t *testing.T, path string) string {
	t.Helper()
	os.Remove(path)
	if err := os.Symlink("/dev/zero", path); err != nil {
		t.Fatal(err)
	}
	return path
}

// refusal is what a refused file's message says of its bound.
func refusal(bound int64) string {
	return fmt.Sprintf("holds at most %d bytes (%s)", bound, boundedread.Bytes(bound))
}

// TestReadersRefuseFilesPastTheirBounds runs every command that reads a
// results folder, a baseline or a rules folder, as the built binary under
// a memory limit, with each file it reads whole made larger than its bound
// (a sparse file: refused from its size) or a link to /dev/zero (refused
// once read up to the bound): exit 2, the file and the bound named, and the
// folders as they were (report writes nothing, compare writes nothing,
// merge makes no OUT, conform no results folder). Streamed files (the
// history, the latency logs) are bounded per line.
func TestReadersRefuseFilesPastTheirBounds(t *testing.T) {
	good := earlierRun(t)
	type tc struct {
		name string
		// setup spoils a file of dir and returns the file the refusal
		// names, its bound, and the command's arguments.
		setup func(t *testing.T, dir string) (file string, bound int64, args []string)
	}
	var cases []tc
	past := func(name string, bound int64) func(*testing.T, string) string {
		return func(t *testing.T, dir string) string { return oversize(t, filepath.Join(dir, name), bound+1) }
	}
	zero := func(name string) func(*testing.T, string) string {
		return func(t *testing.T, dir string) string { return toZero(t, filepath.Join(dir, name)) }
	}
	for _, spoil := range []struct {
		how  string
		file func(*testing.T, string) string
	}{{"past its bound", past("summary.json", reports.MaxSummaryBytes)}, {"/dev/zero", zero("summary.json")}} {
		for _, cmd := range []string{"report", "report --format json", "compare GOOD", "check", "merge OUT"} {
			cases = append(cases, tc{fmt.Sprintf("%s: summary.json %s", cmd, spoil.how), func(t *testing.T, dir string) (string, int64, []string) {
				args := strings.Fields(cmd)
				for i, a := range args {
					switch a {
					case "GOOD":
						args[i] = good
					case "OUT":
						args[i] = filepath.Join(filepath.Dir(dir), "merged")
					}
				}
				return spoil.file(t, dir), reports.MaxSummaryBytes, append(args, dir)
			}})
		}
	}
	cases = append(cases,
		tc{"compare: NEW is /dev/zero", func(t *testing.T, dir string) (string, int64, []string) {
			return "/dev/zero", reports.MaxSummaryBytes, []string{"compare", dir, "/dev/zero"}
		}},
		tc{"compare: NEW's scenario.yaml past its bound", func(t *testing.T, dir string) (string, int64, []string) {
			return past("scenario.yaml", scenarios.MaxFileBytes)(t, dir), scenarios.MaxFileBytes, []string{"compare", good, dir}
		}},
		tc{"check: scenario.yaml is /dev/zero", func(t *testing.T, dir string) (string, int64, []string) {
			return zero("scenario.yaml")(t, dir), scenarios.MaxFileBytes, []string{"check", dir}
		}},
		tc{"check: history is /dev/zero", func(t *testing.T, dir string) (string, int64, []string) {
			return zero("history.jsonl.zst")(t, dir), checks.MaxRecordBytes, []string{"check", dir}
		}},
		tc{"merge: scenario.yaml is /dev/zero", func(t *testing.T, dir string) (string, int64, []string) {
			return zero("scenario.yaml")(t, dir), scenarios.MaxFileBytes, []string{"merge", filepath.Join(filepath.Dir(dir), "merged"), dir}
		}},
		tc{"merge: history is /dev/zero", func(t *testing.T, dir string) (string, int64, []string) {
			return zero("history.jsonl.zst")(t, dir), checks.MaxRecordBytes, []string{"merge", filepath.Join(filepath.Dir(dir), "merged"), dir}
		}},
		tc{"conform --baseline past its bound", func(t *testing.T, dir string) (string, int64, []string) {
			f := oversize(t, filepath.Join(dir, "baseline.json"), verdict.MaxBaselineBytes+1)
			return f, verdict.MaxBaselineBytes, []string{"conform", "--baseline", f, "--out", filepath.Join(dir, "conform")}
		}},
		tc{"conform --baseline /dev/zero", func(t *testing.T, dir string) (string, int64, []string) {
			return "/dev/zero", verdict.MaxBaselineBytes, []string{"conform", "--baseline", "/dev/zero", "--out", filepath.Join(dir, "conform")}
		}},
		tc{"conform --rules: a rule file is /dev/zero", func(t *testing.T, dir string) (string, int64, []string) {
			rules := filepath.Join(dir, "rules")
			if err := os.Mkdir(rules, 0o755); err != nil {
				t.Fatal(err)
			}
			return toZero(t, filepath.Join(rules, "a.yaml")), scenarios.MaxFileBytes, []string{"conform", "--rules", rules, "--out", filepath.Join(dir, "conform")}
		}},
		tc{"conform --diff --rules: the folder's files together past their bound", func(t *testing.T, dir string) (string, int64, []string) {
			rules := filepath.Join(dir, "rules")
			if err := os.Mkdir(rules, 0o755); err != nil {
				t.Fatal(err)
			}
			one := filepath.Join(dir, "one.yaml") // each at its own bound, one more than the folder's holds
			if err := os.WriteFile(one, []byte(strings.Repeat("# padding\n", scenarios.MaxFileBytes/10)), 0o644); err != nil {
				t.Fatal(err)
			}
			for i := range conformance.MaxRulesBytes/scenarios.MaxFileBytes + 1 {
				if err := os.Symlink(one, filepath.Join(rules, fmt.Sprintf("r%02d.yaml", i))); err != nil {
					t.Fatal(err)
				}
			}
			return rules, conformance.MaxRulesBytes, []string{"conform", "--diff", "azurite", "azurite", "--rules", rules, "--out", filepath.Join(dir, "conform")}
		}},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := earlierRun(t)
			file, bound, args := c.setup(t, dir)
			before, goodBefore := snapshot(t, dir), snapshot(t, good)
			code, stdout, stderr := runLimited(t, nil, args...)
			if code != exitUsage || !strings.Contains(stderr, file+": ") || !strings.Contains(stderr, refusal(bound)) {
				t.Errorf("%v: exit %d, want %d, naming %s and %q; stdout:\n%.1000s\nstderr:\n%.2000s", args, code, exitUsage, file, refusal(bound), stdout, stderr)
			}
			sameExcept(t, before, snapshot(t, dir))
			sameExcept(t, goodBefore, snapshot(t, good))
			for _, made := range []string{filepath.Join(filepath.Dir(dir), "merged"), filepath.Join(dir, "conform")} {
				if _, err := os.Lstat(made); err == nil {
					t.Errorf("%s was made", made)
				}
			}
		})
	}
}

// TestReadersStreamLatencyLogsPastALine: a latency log is streamed and
// bounded per line; a log that is /dev/zero is left out and named (the
// report's page says which and why), and compare, which reads the logs
// for its noise, ends as without it; both within the memory limit.
func TestReadersStreamLatencyLogsPastALine(t *testing.T) {
	dir := earlierRun(t)
	logs, _ := filepath.Glob(filepath.Join(dir, "hlog", "*.hlog"))
	if len(logs) == 0 {
		t.Fatal("the saved run has no latency log")
	}
	toZero(t, logs[0])
	before := snapshot(t, dir)
	code, page, stderr := runLimited(t, nil, "report", "--format", "html", dir)
	if want := filepath.Base(logs[0]) + ": line 1 holds more than " + boundedread.Bytes(reports.MaxHlogLineBytes) + "; a line of a latency log " + refusal(reports.MaxHlogLineBytes); code != exitOK || !strings.Contains(page, want) {
		t.Errorf("report: exit %d, want %d and the page naming %q; stderr:\n%s", code, exitOK, want, stderr)
	}
	sameExcept(t, before, snapshot(t, dir), "report.html")

	before = snapshot(t, dir)
	if code, stdout, stderr := runLimited(t, nil, "compare", dir, dir); code != exitOK {
		t.Errorf("compare: exit %d, want %d\n%s\n%s", code, exitOK, stdout, stderr)
	}
	sameExcept(t, before, snapshot(t, dir))
}

// TestMergeFromRefusesBlobsPastTheirBounds: merge --from judges the listed
// size of a shard's summary.json and scenario.yaml before it downloads
// anything: one past its bound is refused (exit 2, the blob and the bound
// named) and nothing is downloaded. The blobs are page blobs, whose size is
// declared, not written.
func TestMergeFromRefusesBlobsPastTheirBounds(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Azurite")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	inst, err := azurite.Start(ctx, azurite.Options{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Stop()
	svc, err := service.NewClientFromConnectionString(inst.ConnectionString(), nil)
	if err != nil {
		t.Fatal(err)
	}
	const name = "bounds-results"
	c := svc.NewContainerClient(name)
	if _, err := c.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		runID, file string
		bound       int64
	}{{"b0b0b0b0", "summary.json", reports.MaxSummaryBytes}, {"b0b0b0b1", "scenario.yaml", scenarios.MaxFileBytes}} {
		t.Run(tc.file, func(t *testing.T) {
			small := tc.runID + "/shard-0-of-1/history.jsonl.zst" // listed first, and not downloaded either
			if _, err := c.NewBlockBlobClient(small).UploadBuffer(ctx, []byte("history"), nil); err != nil {
				t.Fatal(err)
			}
			big := tc.runID + "/shard-0-of-1/" + tc.file
			if _, err := c.NewPageBlobClient(big).Create(ctx, tc.bound+512, nil); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "merged")
			code, stdout, stderr := runLimited(t, []string{"AZURE_STORAGE_CONNECTION_STRING=" + inst.ConnectionString()},
				"merge", out, "--from", name, "--run-id", tc.runID, "--target", "connection-string")
			want := fmt.Sprintf("container %s: blob %s: the file holds %d bytes; ", name, big, tc.bound+512)
			if code != exitUsage || !strings.Contains(stderr, want) || !strings.Contains(stderr, refusal(tc.bound)) {
				t.Errorf("exit %d, want %d, saying %q and %q\n%s\n%s", code, exitUsage, want, refusal(tc.bound), stdout, stderr)
			}
			if _, err := os.Stat(filepath.Join(out, "shards")); err == nil {
				t.Errorf("something was downloaded into %s", filepath.Join(out, "shards"))
			}
		})
	}
}

// TestREADMEBoundsAreTheConstants: the README's paragraph on what
// stormcheck reads gives each bound as its constant says, and no other.
func TestREADMEBoundsAreTheConstants(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	const head = "**What stormcheck reads is bounded.**"
	i := strings.Index(string(b), head)
	if i < 0 {
		t.Fatalf("README has no paragraph %q", head)
	}
	para, _, _ := strings.Cut(string(b[i:]), "\n\n")
	para = strings.Join(strings.Fields(para), " ")
	said := map[string]int64{
		"`summary.json` %s":                            reports.MaxSummaryBytes,
		"rule file %s":                                 scenarios.MaxFileBytes,
		"`--rules` folder together %s":                 conformance.MaxRulesBytes,
		"`--baseline` file %s":                         verdict.MaxBaselineBytes,
		"history record (one line) is refused over %s": checks.MaxRecordBytes,
		"latency-log line over %s":                     reports.MaxHlogLineBytes,
	}
	for phrase, bound := range said {
		if want := fmt.Sprintf(phrase, boundedread.Bytes(bound)); !strings.Contains(para, want) {
			t.Errorf("the README does not say %q:\n%s", want, para)
		}
	}
	if n := len(regexp.MustCompile(`\d+ [KMG]iB`).FindAllString(para, -1)); n != len(said) {
		t.Errorf("the README's paragraph gives %d sizes, the test knows %d: add the new bound here", n, len(said))
	}
}
