package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/reports"
)

// An existing results folder is never damaged: a refusal leaves it byte for
// byte as it was, a failure leaves the old files, and a command that
// rewrites a file of it (report) touches nothing else.

// snapshot hashes every file under dir (streaming: a file may be large)
// and records every directory, and every symbolic link by its target (one
// may point at /dev/zero).
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		switch {
		case d.IsDir():
			got[rel] = "dir"
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(path)
			got[rel] = "-> " + target
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return err
		}
		got[rel] = hex.EncodeToString(h.Sum(nil))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// sameExcept fails the test if before and after differ in any file but those
// in allowed.
func sameExcept(t *testing.T, before, after map[string]string, allowed ...string) {
	t.Helper()
	for path, h := range before {
		if after[path] != h && !contains(allowed, path) {
			t.Errorf("%s changed (was %s, now %q)", path, h, after[path])
		}
	}
	for path := range after {
		if _, ok := before[path]; !ok && !contains(allowed, path) {
			t.Errorf("%s appeared", path)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// earlierRun is a results folder as a run leaves it, with every kind of file.
func earlierRun(t *testing.T) string {
	dir := savedRun(t, exitOK)
	for name, body := range map[string]string{
		"report.html":          "<html>the earlier run's page</html>",
		"history.jsonl.zst":    "not really zstd, but bytes to keep",
		"scenario.yaml":        "name: saved\nduration: 1s\nworkloads:\n  - {name: counter, kind: blob.etag-counter, actors: 2}\n",
		"checks/counter.chain": "an artifact",
	} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestOutIntoAnEarlierRunIsRefusedUntouched(t *testing.T) {
	dir := earlierRun(t)
	scenario := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(scenario, []byte("name: again\nduration: 1s\nworkloads:\n  - {name: counter, kind: blob.etag-counter, actors: 2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	var out, errOut bytes.Buffer
	code := run([]string{"run", "--progress", "none", "--out", dir, scenario}, &out, &errOut)
	if code != exitUsage {
		t.Errorf("exit %d, want %d (bad usage)", code, exitUsage)
	}
	if want := fmt.Sprintf("results directory %s already holds 6 entries", dir); !strings.Contains(errOut.String(), want) ||
		!strings.Contains(errOut.String(), "nothing was written there") {
		t.Errorf("stderr does not say %q and that nothing was written:\n%s", want, errOut.String())
	}
	if strings.Contains(out.String(), "checks:") {
		t.Errorf("a refused run printed a report:\n%s", out.String())
	}
	sameExcept(t, before, snapshot(t, dir))

	// A file where the folder should be is refused too, and kept.
	file := filepath.Join(t.TempDir(), "taken")
	if err := os.WriteFile(file, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	errOut.Reset()
	if code := run([]string{"run", "--progress", "none", "--out", file, scenario}, &out, &errOut); code != exitUsage {
		t.Errorf("--out FILE: exit %d, want %d\n%s", code, exitUsage, errOut.String())
	}
	if data, _ := os.ReadFile(file); string(data) != "mine" {
		t.Errorf("the file --out named was changed: %q", data)
	}
}

func TestConformOutIntoAnEarlierRunIsRefusedUntouched(t *testing.T) {
	dir := earlierRun(t)
	before := snapshot(t, dir)
	var out, errOut bytes.Buffer
	code := run([]string{"conform", "--rules", "../../scenarios/conformance/rules", "--out", dir}, &out, &errOut)
	if code != exitUsage || !strings.Contains(errOut.String(), "already holds 6 entries") {
		t.Errorf("exit %d, want %d; stderr:\n%s", code, exitUsage, errOut.String())
	}
	sameExcept(t, before, snapshot(t, dir))
}

func TestReportNeverDamagesTheFolder(t *testing.T) {
	// A report rewrites report.html and nothing else.
	dir := earlierRun(t)
	before := snapshot(t, dir)
	var out, errOut bytes.Buffer
	if code := run([]string{"report", dir}, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d\n%s", code, errOut.String())
	}
	after := snapshot(t, dir)
	sameExcept(t, before, after, "report.html")
	if after["report.html"] == before["report.html"] {
		t.Error("report.html was not rewritten")
	}

	// A summary that cannot be read: refused, nothing written.
	dir = earlierRun(t)
	if err := os.WriteFile(filepath.Join(dir, "summary.json"), []byte(`{"scenario": "cut mid`), 0o644); err != nil {
		t.Fatal(err)
	}
	before = snapshot(t, dir)
	if code := run([]string{"report", dir}, &out, &errOut); code != exitUsage {
		t.Errorf("unreadable summary: exit %d, want %d", code, exitUsage)
	}
	sameExcept(t, before, snapshot(t, dir))

	// Writing the page fails (report.html is in the way as a folder): the
	// failure is said, and every file is as it was.
	dir = earlierRun(t)
	page := filepath.Join(dir, "report.html")
	if err := os.Remove(page); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(page, "inside"), 0o755); err != nil {
		t.Fatal(err)
	}
	before = snapshot(t, dir)
	errOut.Reset()
	if code := run([]string{"report", dir}, &out, &errOut); code != exitHarness || !strings.Contains(errOut.String(), "report.html") {
		t.Errorf("page not writable: exit %d, want %d; stderr:\n%s", code, exitHarness, errOut.String())
	}
	sameExcept(t, before, snapshot(t, dir))
}

func TestCheckRefusesAHostileSavedScenario(t *testing.T) {
	// check reloads RESULTS/scenario.yaml with the loader's bounds: a merge
	// bomb put there is refused at its alias, and the folder is untouched.
	// check writes only the pictures of violations (checks/), atomically.
	dir := earlierRun(t)
	var b strings.Builder
	b.WriteString("name: bomb\nduration: 1s\nworkloads:\n  - &a0 {name: w, kind: blob.lww}\n")
	for i := 1; i <= 10; i++ {
		fmt.Fprintf(&b, "  - &a%d {<<: [%s]}\n", i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d,", i-1), 8), ","))
	}
	if err := os.WriteFile(filepath.Join(dir, "scenario.yaml"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, dir)
	var out, errOut bytes.Buffer
	if code := run([]string{"check", dir}, &out, &errOut); code != exitUsage {
		t.Errorf("exit %d, want %d", code, exitUsage)
	}
	if want := filepath.Join(dir, "scenario.yaml") + ":"; !strings.Contains(errOut.String(), want) || !strings.Contains(errOut.String(), "aliases expand this file beyond") {
		t.Errorf("stderr:\n%s", errOut.String())
	}
	sameExcept(t, before, snapshot(t, dir))

	// A damaged history (these bytes are not zstd, and have no whole line)
	// is judged as far as it goes, said so, and the folder is untouched.
	dir = earlierRun(t)
	before = snapshot(t, dir)
	errOut.Reset()
	if code := run([]string{"check", dir}, &out, &errOut); code != exitUndecided || !strings.Contains(errOut.String(), "history truncated") {
		t.Errorf("damaged history: exit %d, want %d; stderr:\n%s", code, exitUndecided, errOut.String())
	}
	sameExcept(t, before, snapshot(t, dir))
}

// TestForeignOrCutSummaryIsRefused: a summary.json that is empty, cut
// short, or another tool's JSON is refused by report and compare (exit 2,
// named), and the folder stays as it was. report used to rewrite
// report.html from another tool's summary.json as an empty run, exit 0,
// and compare said "no regression" against it.
func TestForeignOrCutSummaryIsRefused(t *testing.T) {
	good := earlierRun(t)
	for name, tc := range map[string]struct{ body, says string }{
		"foreign": {`{"name": "package", "version": "1.0.0", "dependencies": {}}`, `no "scenario" or "started" field: not a stormcheck summary`},
		"empty":   {"\n", "empty file: not a stormcheck summary"},
		"cut":     {`{"scenario": "saved", "seed": 1, "started": "2026-`, "cut short after 50 bytes (not valid JSON to its end)"},
		"array":   {`[1, 2, 3]`, "a JSON array, not an object"},
		"typed":   {`{"scenario": 5}`, `field "scenario": a JSON number where stormcheck writes string`},
	} {
		t.Run(name, func(t *testing.T) {
			dir := earlierRun(t)
			summary := filepath.Join(dir, "summary.json")
			if err := os.WriteFile(summary, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			before := snapshot(t, dir)
			for _, args := range [][]string{{"report", dir}, {"report", "--format", "json", dir}, {"compare", good, dir}, {"compare", summary, good}} {
				var out, errOut bytes.Buffer
				if code := run(args, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), summary+": "+tc.says) {
					t.Errorf("%v: exit %d, want %d and %q; stdout:\n%s\nstderr:\n%s", args, code, exitUsage, tc.says, out.String(), errOut.String())
				}
			}
			sameExcept(t, before, snapshot(t, dir))
		})
	}
}

// TestDefaultFolderTakenInTheSameSecond: a run without --out whose default
// folder (results/NAME-DATE-TIME) a run started in the same second holds
// already writes to NAME-DATE-TIME-2 and leaves the other as it was; it
// used to be refused with exit 2, as if the user had chosen a used --out.
// The target is a closed loopback port, so the run ends at once (exit 3),
// results written.
func TestDefaultFolderTakenInTheSameSecond(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("same.yaml", []byte("name: same\nduration: 1s\nworkloads:\n  - {name: counter, kind: blob.etag-counter, actors: 2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AZURE_STORAGE_CONNECTION_STRING", "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=a2V5;BlobEndpoint=http://127.0.0.1:1/devstoreaccount1;")
	// Every second the run may start in, held by an earlier run.
	now := time.Now()
	taken := map[string]map[string]string{}
	for s := range 120 {
		dir := defaultResultsDir("same", now.Add(time.Duration(s)*time.Second), nil)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "summary.json"), []byte("the earlier run's"), 0o644); err != nil {
			t.Fatal(err)
		}
		taken[dir] = snapshot(t, dir)
	}
	var out, errOut bytes.Buffer
	code := run([]string{"run", "--progress", "none", "--target", "connection-string", "same.yaml"}, &out, &errOut)
	if code != exitHarness {
		t.Fatalf("exit %d, want %d (the closed port)\nstderr:\n%s", code, exitHarness, errOut.String())
	}
	for dir, before := range taken {
		sameExcept(t, before, snapshot(t, dir))
	}
	got, _ := filepath.Glob(filepath.Join("results", "same-*-2", "summary.json"))
	if len(got) != 1 || !strings.Contains(out.String(), "results: "+filepath.Dir(got[0])+" (exit code 3)") {
		t.Fatalf("want one results/same-DATE-TIME-2 named in the report, got %v\nstdout:\n%s\nstderr:\n%s", got, out.String(), errOut.String())
	}
	if _, err := reports.ReadSummary(got[0]); err != nil {
		t.Error(err)
	}
}
