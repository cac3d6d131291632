package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
)

// savedRun writes a small results directory as a run leaves it: summary.json
// and hlog/ from three seconds of a counter workload.
func savedRun(t *testing.T, exitCode int) string {
	t.Helper()
	dir := t.TempDir()
	m := reports.NewMetrics(reports.MetricsOptions{HlogDir: filepath.Join(dir, "hlog")})
	for i := 0; i < 300; i++ {
		call := int64(i) * int64(10*time.Millisecond)
		out := checks.Conflict
		if i%5 == 0 {
			out = checks.OK
		}
		m.Record(&checks.Op{Actor: i % 4, Workload: "counter", Kind: "blob.get", Key: "k0", Attempt: 1, Intended: call, Call: call, Return: call + 2e6, Outcome: checks.OK})
		m.Record(&checks.Op{Actor: i % 4, Workload: "counter", Kind: "blob.put", Key: "k0", Attempt: 1, Intended: call, Call: call + 2e6, Return: call + 5e6, Outcome: out})
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	ws, harness := m.Summary(3 * time.Second)
	ws[0].Kind, ws[0].Executor, ws[0].Actors = "blob.etag-counter", "closed", 4
	s := &reports.Summary{
		Scenario: "saved", Seed: 1, Target: "managed Azurite 3.37.0 (127.0.0.1)", Started: time.Now(), Elapsed: 3 * time.Second,
		Workloads: ws, Harness: harness,
		Units:    m.Units(func(string) time.Duration { return 3 * time.Second }, nil, nil),
		Checks:   []checks.Result{{Check: "no-lost-updates", Workload: "counter", Verdict: checks.Pass, Summary: "no update lost"}},
		Files:    map[string]string{"hlog": "hlog/", "history": "history.jsonl"},
		ExitCode: exitCode,
	}
	if err := reports.WriteSummaryJSON(filepath.Join(dir, "summary.json"), s); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestReportCommandWritesHTMLAndPrints(t *testing.T) {
	dir := savedRun(t, exitOK)
	var out, errOut bytes.Buffer
	if code := run([]string{"report", dir}, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "workload counter (blob.etag-counter, closed loop, 4 actors)") || !strings.Contains(out.String(), "report.html") {
		t.Errorf("text report:\n%s", out.String())
	}
	if !strings.Contains(errOut.String(), "wrote "+filepath.Join(dir, "report.html")) {
		t.Errorf("stderr: %s", errOut.String())
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"<title>stormcheck report: saved</title>", `id="w1-throughput"`, `id="w1-latency-1"`, `id="w1-spectrum-2"`, `id="w1-units-1"`} {
		if !strings.Contains(string(page), w) {
			t.Errorf("report.html lacks %q", w)
		}
	}

	out.Reset()
	if code := run([]string{"report", "--format", "html", dir}, &out, &errOut); code != exitOK || !bytes.Equal(out.Bytes(), page) {
		t.Errorf("--format html: exit %d, same page %v", code, bytes.Equal(out.Bytes(), page))
	}
	out.Reset()
	// --format json prints the summary as saved and writes nothing: the
	// page removed before is not written again.
	_ = os.Remove(filepath.Join(dir, "report.html"))
	if code := run([]string{"report", "--format", "json", dir}, &out, &errOut); code != exitOK {
		t.Fatalf("--format json: exit %d", code)
	}
	var s reports.Summary
	if err := json.Unmarshal(out.Bytes(), &s); err != nil || s.Scenario != "saved" || len(s.Workloads) != 1 {
		t.Errorf("--format json: %v %+v", err, s)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err == nil {
		t.Error("report --format json wrote report.html")
	}

	for _, args := range [][]string{{"report"}, {"report", "--format", "pdf", dir}, {"report", dir, dir}, {"report", filepath.Join(dir, "nothing")}} {
		if code := run(args, &out, &errOut); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
}

func TestReportCommandKeepsTheRunsExitCode(t *testing.T) {
	dir := savedRun(t, exitViolation)
	os.RemoveAll(filepath.Join(dir, "hlog"))
	var out, errOut bytes.Buffer
	if code := run([]string{"report", dir}, &out, &errOut); code != exitViolation {
		t.Errorf("exit %d, want %d", code, exitViolation)
	}
	page, _ := os.ReadFile(filepath.Join(dir, "report.html"))
	if !strings.Contains(string(page), "hlog/ is missing") || !strings.Contains(string(page), "<strong>1</strong>: a check found a violation") {
		t.Error("report.html without hlog/ does not say so, or lacks the exit code")
	}
}

// TestReportHTMLAfterRun runs a 2-second scenario against a managed Azurite
// and finds report.html in its results, named in summary.json.
func TestReportHTMLAfterRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	scenario := filepath.Join(t.TempDir(), "short.yaml")
	yaml := "name: short\nduration: 2s\nworkloads:\n  - {name: counter, kind: blob.etag-counter, actors: 4}\n"
	if err := os.WriteFile(scenario, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"run", "--out", dir, "--progress", "none", scenario}, &out, &errOut); code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	s, err := reports.ReadSummary(filepath.Join(dir, "summary.json"))
	if err != nil || s.Files["report"] != "report.html" {
		t.Fatalf("summary: %v, files %v", err, s.Files)
	}
	page, err := os.ReadFile(filepath.Join(dir, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"managed Azurite 3.37.0", `id="w1-throughput"`, `id="w1-latency-1"`, "busiest blob k0", `<span class="badge pass">pass</span>`, "<strong>0</strong>: every check passed"} {
		if !strings.Contains(string(page), w) {
			t.Errorf("report.html lacks %q", w)
		}
	}
}
