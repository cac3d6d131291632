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

// Throttled answers a fault injected (the attempt's out.fault names it) are
// not the target's throttling: the tally counts them per workload and
// fault, the limits line names the fault, the text report and the HTML card
// split the throttled count, and what is left is the target's own.
func TestInjectedThrottlingIsNotTheTargets(t *testing.T) {
	s := time.Second
	ws := []FaultWindow{{Fault: "busy", Kind: "http.server-busy", From: 0, To: 5 * s}}
	tl := NewFaultTally(ws)
	busy := checks.Output{Status: 503, ErrorCode: "ServerBusy", Fault: "busy (http.server-busy)"}
	ops := []checks.Op{
		{Workload: "c", Actor: 0, Call: int64(s), Outcome: checks.Throttled, Attempt: 1, Out: busy},
		{Workload: "c", Actor: 1, Call: int64(s), Outcome: checks.Throttled, Attempt: 1, Out: busy},
		{Workload: "c", Actor: 1, Call: int64(2 * s), Outcome: checks.Throttled, Attempt: 2, Out: busy},
		{Workload: "c", Actor: 0, Call: int64(2 * s), Outcome: checks.Throttled, Attempt: 2, Out: checks.Output{Status: 503, ErrorCode: "ServerBusy"}}, // the target's own
		{Workload: "c", Actor: 0, Call: int64(3 * s), Outcome: checks.OK, Attempt: 3},
		{Workload: "c", Actor: checks.ActorFinal, Call: int64(4 * s), Outcome: checks.Throttled, Attempt: 1, Out: busy}, // not load
	}
	for i := range ops {
		tl.Observe(&ops[i])
	}
	w := WorkloadSummary{Name: "c", Executor: "closed", Actors: 2, Ops: []OpSummary{{Op: "blob.put", Count: 10, Outcomes: map[string]int64{"ok": 6, "throttled": 4}}}}
	sum := &Summary{Scenario: "s", Faults: ws, Workloads: []WorkloadSummary{w, {Name: "other"}}}
	tl.Apply(sum)
	if got := sum.Workloads[0].Injected; len(got) != 1 || got["busy (http.server-busy)"] != 3 {
		t.Fatalf("injected %v, want busy 3", got)
	}
	if sum.Workloads[1].Injected != nil {
		t.Errorf("other workload: %v", sum.Workloads[1].Injected)
	}
	units := []UnitSummary{{Workload: "c", Kind: UnitBlob, Name: "k", Throttled: 4, FirstThrottled: 1}}
	got := strings.Join(LimitedBy(sum.Workloads[0], units, 0), "; ")
	for _, want := range []string{
		"throttling injected by fault busy (http.server-busy): 30.0% of the attempts were answered 503/500 on purpose (3)",
		"the target's own throttling: 10.0% of the attempts were answered 503/500 (1)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("limits %q lack %q", got, want)
		}
	}
	if strings.Contains(got, "first at") {
		t.Errorf("the first throttled unit may be an injected answer: %q", got)
	}
	// Only injected: nothing is put on the target.
	only := sum.Workloads[0]
	only.Injected = map[string]int64{"busy (http.server-busy)": 4}
	if got := strings.Join(LimitedBy(only, units, 0), "; "); strings.Contains(got, "target's own throttling") || strings.Contains(got, "throttling:") {
		t.Errorf("every throttled answer injected, yet: %q", got)
	}
	sum.Units = append(units, UnitSummary{Kind: UnitAccount, Name: "account", Measure: "requests", Amount: 6, Throttled: 4})
	var b bytes.Buffer
	if err := WriteText(&b, sum); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"throttled: 3 injected on purpose (3 by fault busy (http.server-busy)), 1 the target's own",
		"4 throttled (3 injected on purpose by faults, 1 the target's own)",
		"the units' throttled counts include the 3 answers faults injected on purpose",
	} {
		if !strings.Contains(strings.Join(strings.Fields(b.String()), " "), want) {
			t.Errorf("text report lacks %q:\n%s", want, b.String())
		}
	}
	var h bytes.Buffer
	if err := WriteHTML(&h, sum, ""); err != nil {
		t.Fatal(err)
	}
	if want := "3 injected by faults, 1 the target&#39;s own"; !strings.Contains(h.String(), want) {
		t.Errorf("HTML lacks %q", want)
	}
	// Without faults, throttling is the target's as before.
	plain := WorkloadSummary{Name: "c", Executor: "closed", Actors: 2, Ops: w.Ops}
	if got := strings.Join(LimitedBy(plain, units, 0), "; "); !strings.Contains(got, "throttling: 40.0% of the attempts were answered 503/500 (4), first at 1.0s") {
		t.Errorf("no faults: %q", got)
	}
}
