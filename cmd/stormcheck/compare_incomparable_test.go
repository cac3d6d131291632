package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner"
)

// editSummary rewrites a results directory's summary.json.
func editSummary(t *testing.T, dir string, edit func(*reports.Summary)) {
	t.Helper()
	file := filepath.Join(dir, runner.SummaryFile)
	s, err := reports.ReadSummary(file)
	if err != nil {
		t.Fatal(err)
	}
	edit(s)
	if err := reports.WriteSummaryJSON(file, s); err != nil {
		t.Fatal(err)
	}
}

// TestCompareNeverCriesWolf: a run 10 times slower than its base is a
// regression (exit 6) only when the two runs are comparable. With the new
// run recorded as a client short of CPU, or beside other work (other_cpu,
// as a run beside a CPU-burning process records it), with an open loop that left arrivals
// unserved in one run only, with another target or another scenario file,
// compare gives no verdict (exit 4, never 6) and says why.
func TestCompareNeverCriesWolf(t *testing.T) {
	tmp := t.TempDir()
	base := syntheticRun(t, filepath.Join(tmp, "base"), 1, 200, 20)
	fresh := func(name string) string { return syntheticRun(t, filepath.Join(tmp, name), 3, 100, 220) }
	cmp := func(a, b string) (int, string) {
		var out, errOut bytes.Buffer
		code := run([]string{"compare", a, b}, &out, &errOut)
		return code, out.String() + errOut.String()
	}
	if code, out := cmp(base, fresh("slow")); code != exitRegression {
		t.Fatalf("comparable slowed run: exit %d, want %d\n%s", code, exitRegression, out)
	}
	cases := []struct {
		name string
		edit func(dir string)
		want string
	}{
		{"busy client", func(dir string) { editSummary(t, dir, func(s *reports.Summary) { s.ClientCPU = 0.97 }) },
			"the client was short of CPU in the new run only (the harness used 97.0% of the machine's CPU)"},
		{"open loop behind", func(dir string) {
			editSummary(t, dir, func(s *reports.Summary) {
				w := &s.Workloads[0]
				w.Executor, w.Arrivals, w.Dropped, w.Unserved = "open", 4000, 0, 574
			})
		}, "workload counter's open loop fell behind in the new run only (574 of 4000 arrivals not served (0 dropped, 574 never served))"},
		{"busy machine", func(dir string) {
			editSummary(t, dir, func(s *reports.Summary) { other := 0.48; s.OtherCPU = &other })
		}, "the machine was busy with other work during the new run (other processes used 48.0% of the machine's CPU during the load)"},
		{"other target", func(dir string) {
			editSummary(t, dir, func(s *reports.Summary) { s.Target = "connection string (AZURE_STORAGE_CONNECTION_STRING)" })
		},
			"different targets"},
		{"overrides", func(dir string) {
			if err := os.WriteFile(filepath.Join(dir, runner.ScenarioFile), []byte("name: bench\nduration: 20s\ncompare: {tolerance: 0.1}\nworkloads:\n  - {name: counter, kind: blob.lww, actors: 8, keys: 4}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, `the scenario files differ (the file or its --set overrides): line 5 is "- {name: counter, kind: blob.lww, actors: 4, keys: 4}" in the base run, "- {name: counter, kind: blob.lww, actors: 8, keys: 4}" in the new`},
	}
	for _, c := range cases {
		dir := fresh(strings.ReplaceAll(c.name, " ", "-"))
		c.edit(dir)
		code, out := cmp(base, dir)
		if code != exitUndecided || !strings.Contains(out, c.want) || strings.Contains(out, "REGRESSION") ||
			!strings.Contains(out, "result: no verdict (runs not comparable)") {
			t.Errorf("%s: exit %d, want %d (no verdict) saying %q\n%s", c.name, code, exitUndecided, c.want, out)
		}
		// Swapped: still no verdict, naming the base run.
		if code, out := cmp(dir, base); code != exitUndecided || !strings.Contains(out, "not comparable") {
			t.Errorf("%s swapped: exit %d\n%s", c.name, code, out)
		}
	}
	// Both runs short of CPU: comparable (the same conditions), judged.
	busyBase := syntheticRun(t, filepath.Join(tmp, "busy-base"), 1, 200, 20)
	busySlow := fresh("busy-slow")
	for _, d := range []string{busyBase, busySlow} {
		editSummary(t, d, func(s *reports.Summary) { s.ClientCPU = 0.95 })
	}
	if code, out := cmp(busyBase, busySlow); code != exitRegression || !strings.Contains(out, "figures judged") {
		t.Errorf("both runs busy: exit %d, want %d\n%s", code, exitRegression, out)
	}
}
