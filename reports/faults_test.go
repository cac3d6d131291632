package reports

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
)

// The tally counts each attempt in the windows it started in, by outcome,
// with retries and the attempts the fault itself touched.
func TestFaultTally(t *testing.T) {
	s := time.Second
	ws := []FaultWindow{{Fault: "drop", Kind: "http.drop-response", From: 1 * s, To: 3 * s}, {Fault: "crash", Kind: "target.crash", From: 2 * s, To: 4 * s}}
	tl := NewFaultTally(ws)
	for _, op := range []checks.Op{
		{Actor: 0, Call: int64(500 * time.Millisecond), Outcome: checks.OK, Attempt: 1}, // before both
		{Actor: 0, Call: int64(1500 * time.Millisecond), Outcome: checks.Unknown, Attempt: 1, Out: checks.Output{Fault: "drop (http.drop-response): forwarded"}},
		{Actor: 1, Call: int64(2500 * time.Millisecond), Outcome: checks.Error, Attempt: 2}, // in both
		{Actor: 1, Call: int64(3500 * time.Millisecond), Outcome: checks.Throttled, Attempt: 1},
		{Actor: checks.ActorFinal, Call: int64(3500 * time.Millisecond), Outcome: checks.OK, Attempt: 1}, // not load
	} {
		tl.Observe(&op)
	}
	if w := ws[0]; w.Attempts != 2 || w.Unknown != 1 || w.Error != 1 || w.Retries != 1 || w.Touched != 1 {
		t.Errorf("drop window %+v", w)
	}
	if w := ws[1]; w.Attempts != 2 || w.Error != 1 || w.Throttled != 1 || w.Touched != 0 {
		t.Errorf("crash window %+v", w)
	}
	sum := &Summary{Scenario: "s", Faults: ws, Checks: []checks.Result{{Check: "no-lost-updates", Workload: "c", Verdict: checks.Fail}},
		Workloads: []WorkloadSummary{{Name: "c", Ops: []OpSummary{{Op: "blob.put", Count: 1, Outcomes: map[string]int64{"ok": 1}}}}}}
	var b bytes.Buffer
	if err := WriteText(&b, sum); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"faults injected on purpose", "http.drop-response", "+1.0s..+3.0s", "after crash crash (+2.0s)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, b.String())
		}
	}
	if strings.HasPrefix(b.String(), "THIS RUN BREAKS") {
		t.Error("no broken promise here")
	}
}

// A run that breaks a promise on purpose says so on its first line, in
// the text report and on the HTML page; time charts shade the windows.
func TestBrokenPromiseFirstLineAndBands(t *testing.T) {
	sum := &Summary{Scenario: "s", Faults: []FaultWindow{{Fault: "nomatch", Kind: "broken.strip-if-match", From: time.Second, To: 2 * time.Second}},
		Workloads: []WorkloadSummary{{Name: "c", Ops: []OpSummary{{Op: "blob.put", Count: 1, Outcomes: map[string]int64{"ok": 1}, PerSecond: []Counts{{1}, {1}, {1}}}}}}}
	var b bytes.Buffer
	if err := WriteText(&b, sum); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(b.String(), "\n"); !strings.HasPrefix(first, "THIS RUN BREAKS THE SERVICE ON PURPOSE: nomatch (broken.strip-if-match)") {
		t.Errorf("first line %q", first)
	}
	var h bytes.Buffer
	if err := WriteHTML(&h, sum, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.String(), "THIS RUN BREAKS THE SERVICE ON PURPOSE") || !strings.Contains(h.String(), `<g class="faults"><rect`) ||
		!strings.Contains(h.String(), "fault nomatch (broken.strip-if-match) +1.0s..+2.0s") {
		t.Error("the HTML page neither says the run breaks the service nor shades the window")
	}
}
