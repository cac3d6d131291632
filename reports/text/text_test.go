package text

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/reportstest"
)

// fieldsLines is fields line by line, with the continuation lines of a
// wrapped header line (indented under the header's value) joined to it.
func fieldsLines(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if len(out) > 0 && strings.HasPrefix(l, "          ") && !strings.HasPrefix(strings.TrimSpace(l), "#") {
			out[len(out)-1] += " " + reportstest.Fields(l)
			continue
		}
		out = append(out, reportstest.Fields(l))
	}
	return strings.Join(out, "\n") + "\n"
}

func TestWriteText(t *testing.T) {
	var b strings.Builder
	if err := WriteText(&b, reportstest.SampleSummary()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(out, "\n")
	norm := make([]string, len(lines))
	for i, l := range lines {
		norm[i] = reportstest.Fields(l)
	}
	has := func(want string) int {
		t.Helper()
		for i, l := range norm {
			if l == want {
				return i
			}
		}
		t.Errorf("no line %q in:\n%s", want, out)
		return -1
	}
	tests := []string{
		"scenario mixed (scenarios/examples/mixed.yaml, seed 42)",
		"target managed Azurite 3.37.0 (127.0.0.1)",
		"run started 2025-01-02 15:04:05 UTC, elapsed 1m0.2s",
		"INTERRUPTED: stopped before the end; the figures and checks cover what ran",
		"workload counter (blob.etag-counter, closed loop, 8 actors)",
		"op count ok conflict throttled error unknown rate/s",
		"blob.get 12000 12000 0 0 0 0 200.0",
		"blob.put 3000 2766 234 0 0 0 50.0",
		"latency ms p50 p90 p95 p99 p99.9 max mean",
		"blob.get 1.21 2.30 - 4.50 9.10 12.0 1.40",
		"blob.put 1.50 3.00 - 7.25 210 1450 3.00",
		"uncorrected 1.50 3.00 - 6.00 11.0 15.0 2.00",
		"workload create (blob.create-once, open loop, 64 actors)",
		"blob.create 80 16 63 0 0 1 16.0",
		"blob.create 0.600 1.10 - 1.50 1.50 1.50 0.700",
		"uncorrected 0.512 0.900 - 1.00 1.00 1.00 0.600",
		"late starts 12, dropped starts 3",
		"checks: 1 pass, 1 fail, 1 undecided",
		"- k1: two creates with If-None-Match: * succeeded",
		"#12 actor 0 blob.create k1 -> ok [10.000ms..12.000ms]",
		"- k3: third",
		"... and 2 more violations",
		"UNDECIDED linearizable create create: search budget exhausted",
		"history history.jsonl",
		"hlog counter blob.put hlog/counter.blob.put.hlog",
	}
	for _, want := range tests {
		has(want)
	}
	// Prose wraps at 80 columns; read as one text it says the same.
	for _, want := range []string{
		"harness (setup, final reads; not in the figures above): blob.get 16 (1 error), blob.put 16",
		"PASS no-lost-updates counter counter: 2766 acknowledged writes, final value 2766",
		"FAIL single-winner create create: 2 rounds with more than one winner",
	} {
		if !strings.Contains(reportstest.Fields(out), want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "k4") {
		t.Errorf("more than %d violations shown:\n%s", maxTextViolations, out)
	}
	// blob.get's corrected and uncorrected figures agree: no second row.
	if i := has("blob.get 1.21 2.30 - 4.50 9.10 12.0 1.40"); i >= 0 && strings.HasPrefix(norm[i+1], "uncorrected") {
		t.Errorf("uncorrected row for identical figures")
	}
	// A closed-loop workload without late/dropped has no late line.
	if strings.Count(out, "late starts") != 1 {
		t.Errorf("late line count %d", strings.Count(out, "late starts"))
	}
	// Columns line up: each header title ends where its figures end.
	hdr := lines[has("latency ms p50 p90 p95 p99 p99.9 max mean")]
	row := lines[has("blob.put 1.50 3.00 - 7.25 210 1450 3.00")]
	unc := lines[has("blob.put 1.50 3.00 - 7.25 210 1450 3.00")+1]
	if len(hdr) != len(row) || len(row) != len(unc) || !strings.HasPrefix(row, "  blob.put ") || !strings.HasPrefix(hdr, "  latency ms ") {
		t.Errorf("table not aligned:\n%q\n%q\n%q", hdr, row, unc)
	}
	for _, col := range []string{"p95", "p99.9", "mean"} {
		end := strings.Index(hdr, col) + len(col)
		if end > len(row) || row[end-1] == ' ' || (end < len(row) && row[end] != ' ') {
			t.Errorf("column %s does not end where its figure does:\n%s\n%s", col, hdr, row)
		}
	}
}

func TestWriteTextMinimal(t *testing.T) {
	tests := []struct {
		name   string
		s      *reports.Summary
		want   []string
		absent []string
	}{
		{
			name: "empty run",
			s:    &reports.Summary{Scenario: "s", Error: "target unreachable"},
			// Nothing ran: the error alone, no empty tables around it.
			want:   []string{"ERROR: target unreachable"},
			absent: []string{"INTERRUPTED", "latency in ms", "rate/s", "harness (", "files", "checks:", "no checks"},
		},
		{
			name: "workload without ops",
			s: &reports.Summary{Scenario: "s", Workloads: []reports.WorkloadSummary{{Name: "w", Executor: "open"}},
				Checks: []checks.Result{{Check: "c", Verdict: checks.Fail, Summary: "1 violation", Total: 1}}},
			want: []string{"workload w (open loop)", "no operations recorded", "late starts 0, dropped starts 0", "FAIL c 1 violation"},
		},
		{
			name: "op with no latencies",
			s: &reports.Summary{Workloads: []reports.WorkloadSummary{{Name: "w", Ops: []reports.OpSummary{{Op: "blob.get",
				Outcomes: map[string]int64{}}}}}},
			want: []string{"blob.get 0 0 0 0 0 0 0.0", "blob.get - - - - - - -"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if err := WriteText(&b, tc.s); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			norm := reportstest.Fields(strings.ReplaceAll(out, "\n", " | "))
			for _, w := range tc.want {
				if !strings.Contains(norm, w) {
					t.Errorf("lacks %q:\n%s", w, out)
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(out, a) {
					t.Errorf("has %q:\n%s", a, out)
				}
			}
		})
	}
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errors.New("disk full")
	}
	f.n--
	return len(p), nil
}

func TestWriteTextReportsWriteError(t *testing.T) {
	if err := WriteText(&failWriter{n: 3}, reportstest.SampleSummary()); err == nil || err.Error() != "disk full" {
		t.Errorf("err = %v", err)
	}
}

func TestMs(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0.000"}, {0.0414, "0.041"}, {0.999, "0.999"}, {1, "1.00"}, {9.994, "9.99"},
		{12.34, "12.3"}, {99.9, "99.9"}, {123.4, "123"}, {61234.5, "61234"},
	}
	for _, tc := range tests {
		if got := reports.Ms(tc.in); got != tc.want {
			t.Errorf("ms(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWriteTextNamesCheckPictures(t *testing.T) {
	s := &reports.Summary{Scenario: "s", Workloads: []reports.WorkloadSummary{{Name: "w", Ops: []reports.OpSummary{{Op: "blob.get", Count: 1}}}},
		Checks: []checks.Result{{Check: "linearizable", Workload: "w", Verdict: checks.Fail, Total: 1,
			Violations: []checks.Violation{{Key: "k0", Message: "not linearizable"}}, Files: []string{"checks/w.linearizable-k0.html"}}}}
	var b strings.Builder
	if err := WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "picture: checks/w.linearizable-k0.html") {
		t.Errorf("the picture's file is not named:\n%s", b.String())
	}
}

// TestTimeBaseShownApart: the run line says where the load starts on the
// run's clock and how long the target took to start before it.
func TestTimeBaseShownApart(t *testing.T) {
	s := reportstest.SampleSummary()
	s.Startup, s.LoadStart = 76900*time.Millisecond, 300*time.Millisecond
	var b strings.Builder
	if err := WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	// (the line wraps at 80 columns, under its value)
	want := "\nrun started 2025-01-02 15:04:05 UTC, elapsed 1m0.2s (load from +300ms; target start 1m16.9s before, not counted)\n"
	if !strings.Contains("\n"+fieldsLines(b.String()), want) {
		t.Errorf("no line %q in:\n%s", want, b.String())
	}
	// An account's client is ready in milliseconds: no "0s before".
	s.Startup, s.LoadStart = 20*time.Millisecond, 10*time.Millisecond
	if got := TimeBase(s); got != "" {
		t.Errorf("times that round to nothing shown: %q", got)
	}
}

// TestWriteTextShowsPeakMemory: the harness's own peak memory is said when
// measured, as the largest shard's on a merged run, and not at all when 0.
func TestWriteTextShowsPeakMemory(t *testing.T) {
	for _, c := range []struct {
		name   string
		peak   int64
		merged bool
		want   string
	}{
		{"measured", 63<<20 + 1<<19, false, "harness memory: peak 63.5 MiB resident"},
		{"merged", 71 << 20, true, "harness memory: the largest shard's peak 71.0 MiB resident"},
		{"unmeasured", 0, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := reportstest.SampleSummary()
			s.PeakRSS = c.peak
			if c.merged {
				s.MergedFrom = []reports.MergedShard{{}}
			}
			var b strings.Builder
			if err := WriteText(&b, s); err != nil {
				t.Fatal(err)
			}
			got := b.String()
			if c.want == "" {
				if strings.Contains(got, "harness memory") {
					t.Errorf("unmeasured memory shown:\n%s", got)
				}
				return
			}
			if !strings.Contains(got, c.want) {
				t.Errorf("want %q in:\n%s", c.want, got)
			}
		})
	}
}

// TestWriteTextSaysTheMachineWasBusy: a run beside other work says so in
// its header; a quiet or unmeasured one says nothing.
func TestWriteTextSaysTheMachineWasBusy(t *testing.T) {
	busy, quiet := 0.48, 0.02
	for _, c := range []struct {
		other *float64
		want  bool
	}{{&busy, true}, {&quiet, false}, {nil, false}} {
		s := reportstest.SampleSummary()
		s.OtherCPU = c.other
		var b strings.Builder
		if err := WriteText(&b, s); err != nil {
			t.Fatal(err)
		}
		got := strings.Contains(b.String(), "machine   busy: other processes used 48.0% of the machine's CPU during the load")
		if got != c.want {
			t.Errorf("other_cpu %v: machine line shown %v, want %v\n%s", c.other, got, c.want, b.String())
		}
	}
}
