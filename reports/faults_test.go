package reports_test

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
	"github.com/stormcheck/stormcheck/reports/html"
	"github.com/stormcheck/stormcheck/reports/merge"
	"github.com/stormcheck/stormcheck/reports/reportstest"
	"github.com/stormcheck/stormcheck/reports/text"
)

// The tally counts each attempt in the windows it started in, by outcome,
// with retries and the attempts the fault itself touched.
func TestFaultTally(t *testing.T) {
	s := time.Second
	ws := []reports.FaultWindow{{Fault: "drop", Kind: "http.drop-response", From: 1 * s, To: 3 * s}, {Fault: "crash", Kind: "target.crash", From: 2 * s, To: 4 * s}}
	tl := reports.NewFaultTally(ws)
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
	sum := &reports.Summary{Scenario: "s", Faults: ws, Checks: []checks.Result{{Check: "no-lost-updates", Workload: "c", Verdict: checks.Fail}},
		Workloads: []reports.WorkloadSummary{{Name: "c", Ops: []reports.OpSummary{{Op: "blob.put", Count: 1, Outcomes: map[string]int64{"ok": 1}}}}}}
	var b bytes.Buffer
	if err := text.WriteText(&b, sum); err != nil {
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
	sum := &reports.Summary{Scenario: "s", Faults: []reports.FaultWindow{{Fault: "nomatch", Kind: "broken.strip-if-match", From: time.Second, To: 2 * time.Second}},
		Workloads: []reports.WorkloadSummary{{Name: "c", Ops: []reports.OpSummary{{Op: "blob.put", Count: 1, Outcomes: map[string]int64{"ok": 1}, PerSecond: []reports.Counts{{1}, {1}, {1}}}}}}}
	var b bytes.Buffer
	if err := text.WriteText(&b, sum); err != nil {
		t.Fatal(err)
	}
	if first, _, _ := strings.Cut(b.String(), "\n"); !strings.HasPrefix(first, "THIS RUN BREAKS THE SERVICE ON PURPOSE: nomatch (broken.strip-if-match)") {
		t.Errorf("first line %q", first)
	}
	var h bytes.Buffer
	if err := html.WriteHTML(&h, sum, ""); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.String(), "THIS RUN BREAKS THE SERVICE ON PURPOSE") || !strings.Contains(h.String(), `<g class="faults"><rect`) ||
		!strings.Contains(h.String(), "fault nomatch (broken.strip-if-match) +1.0s..+2.0s") {
		t.Error("the HTML page neither says the run breaks the service nor shades the window")
	}
}

// Throttled answers a fault injected (the attempt's out.fault names it) are
// not the target's throttling. The ops go through Metrics and the fault
// tally as in a run: the tally counts them per workload and fault; each
// unit (and the account) counts them apart from the target's own, in the
// JSON too; the text and HTML unit tables show them in a column of their
// own; the limits line names the fault, and the first unit the TARGET
// throttled, though a fault answered 503 earlier on another unit.
func TestInjectedThrottlingIsNotTheTargets(t *testing.T) {
	s := time.Second
	const fault = "busy (http.server-busy)"
	ws := []reports.FaultWindow{{Fault: "busy", Kind: "http.server-busy", From: 0, To: 5 * s}}
	busy := checks.Output{Status: 503, ErrorCode: "ServerBusy", Fault: fault}
	own := checks.Output{Status: 503, ErrorCode: "ServerBusy"}
	at := func(key string, actor int, sec float64, oc checks.Outcome, out checks.Output) *checks.Op {
		op := unitOp("c", "blob.put", key, sec, oc)
		op.Actor, op.Out = actor, out
		op.Return = op.Call + int64(time.Millisecond)
		return op
	}
	ops := []*checks.Op{
		at("k1", 0, 0.5, checks.Throttled, busy), // the first 503 of the run: injected
		at("k1", 1, 1, checks.Throttled, busy),
		at("k2", 1, 2, checks.Throttled, busy),
		at("k2", 0, 2.5, checks.Throttled, own), // the target's first
		at("k1", 0, 3, checks.OK, checks.Output{Status: 201}),
		at("k2", 1, 3.2, checks.OK, checks.Output{Status: 201}),
		at("k1", checks.ActorFinal, 4, checks.Throttled, busy), // not load
	}
	run := func(ops []*checks.Op, ws []reports.FaultWindow) *reports.Summary {
		t.Helper()
		m := reports.NewMetrics(reports.MetricsOptions{})
		tl := reports.NewFaultTally(append([]reports.FaultWindow(nil), ws...))
		for _, op := range ops {
			m.Record(op)
			tl.Observe(op)
		}
		wss, harness := m.Summary(5 * s)
		sum := &reports.Summary{Scenario: "s", Elapsed: 5 * s, Workloads: wss, Harness: harness}
		if tl != nil {
			sum.Faults = tl.Ws
		}
		sum.Units = m.Units(merge.ActivePeriods(wss, sum.Elapsed), nil, nil)
		tl.Apply(sum)
		return sum
	}
	unit := func(sum *reports.Summary, kind reports.UnitKind, name string) reports.UnitSummary {
		t.Helper()
		for _, u := range sum.Units {
			if u.Kind == kind && u.Name == name {
				return u
			}
		}
		t.Fatalf("no %s %s in %+v", kind, name, sum.Units)
		return reports.UnitSummary{}
	}
	sum := run(ops, ws)
	if got := sum.Workloads[0].Injected; len(got) != 1 || got[fault] != 3 {
		t.Fatalf("injected %v, want busy 3", got)
	}

	// The units: the target throttled k2 once (at 2.5s); faults answered
	// k1 twice and k2 once; the account sums both apart.
	k1, k2, acct := unit(sum, reports.UnitBlob, "k1"), unit(sum, reports.UnitBlob, "k2"), unit(sum, reports.UnitAccount, "account")
	if k1.Throttled != 0 || k1.InjectedThrottled != 2 || k1.FirstThrottled != 0 || k1.Amount != 1 {
		t.Errorf("k1: throttled %d injected %d first %v amount %d, want 0 2 0 1", k1.Throttled, k1.InjectedThrottled, k1.FirstThrottled, k1.Amount)
	}
	if k2.Throttled != 1 || k2.InjectedThrottled != 1 || k2.FirstThrottled != 2.501 || k2.Amount != 1 {
		t.Errorf("k2: throttled %d injected %d first %v amount %d, want 1 1 2.501 1", k2.Throttled, k2.InjectedThrottled, k2.FirstThrottled, k2.Amount)
	}
	if acct.Throttled != 1 || acct.InjectedThrottled != 3 || acct.FirstThrottled != 2.501 || acct.Amount != 2 {
		t.Errorf("account: throttled %d injected %d first %v amount %d, want 1 3 2.501 2", acct.Throttled, acct.InjectedThrottled, acct.FirstThrottled, acct.Amount)
	}

	// summary.json: throttled is the target's own, injected_throttled apart,
	// and both read back.
	path := filepath.Join(t.TempDir(), "summary.json")
	sum.Scenario, sum.Started = "faults", time.Unix(0, 0).UTC() // as a run's has: ReadSummary refuses a file without them
	if err := reports.WriteSummaryJSON(path, sum); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Units []map[string]any `json:"units"`
	}
	if b, err := os.ReadFile(path); err != nil {
		t.Fatal(err)
	} else if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	want := map[string][2]float64{"k1": {0, 2}, "k2": {1, 1}, "account": {1, 3}}
	for _, u := range raw.Units {
		name, _ := u["name"].(string)
		w, ok := want[name]
		if !ok {
			continue
		}
		delete(want, name)
		if u["throttled"] != w[0] || u["injected_throttled"] != w[1] {
			t.Errorf("summary.json %s: throttled %v injected_throttled %v, want %v %v", name, u["throttled"], u["injected_throttled"], w[0], w[1])
		}
	}
	if len(want) > 0 {
		t.Errorf("summary.json lacks units %v", want)
	}
	if back, err := reports.ReadSummary(path); err != nil {
		t.Fatal(err)
	} else if b := unit(back, reports.UnitBlob, "k1"); b.Throttled != 0 || b.InjectedThrottled != 2 {
		t.Errorf("read back k1: %+v", b)
	}

	// The limits line: the fault's share, then the target's own throttling
	// with the first unit the target throttled (k2 at 2.5s, not k1 at 0.5s
	// where the fault answered).
	got := strings.Join(reports.LimitedBy(sum.Workloads[0], text.UnitsOf(sum.Units, "c"), 0), "; ")
	for _, want := range []string{
		"throttling injected by fault busy (http.server-busy): 50.0% of the attempts were answered 503/500 on purpose (3)",
		"the target's own throttling: 16.7% of the attempts were answered 503/500 (1), first at 2.5s on blob k2",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("limits %q lack %q", got, want)
		}
	}
	if strings.Contains(got, "0.5s") || strings.Contains(got, "blob k1") {
		t.Errorf("limits name an injected answer as the target's first: %q", got)
	}

	// The text report: the workload's split, the unit table's columns (k1:
	// throttled 0, from s "-", injected 2; k2: 1, 2.5, 1), the account.
	var b bytes.Buffer
	if err := text.WriteText(&b, sum); err != nil {
		t.Fatal(err)
	}
	out := reportstest.Fields(b.String())
	for _, want := range []string{
		"throttled: 3 injected on purpose (3 by fault busy (http.server-busy)), 1 the target's own",
		"throttled: the target's own 503/500 answers; injected: the 503/500 answers faults gave on purpose, not the target's",
		"target throttled from s injected",
		"k1 1 0.4 1 3 0.2% 0 - 2",
		"k2 1 0.4 1 3 0.2% 1 2.5 1",
		"1 throttled by the target, 3 answered 503/500 on purpose by faults",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(out, "include the") {
		t.Errorf("text report still mixes the counts:\n%s", b.String())
	}
	reportstest.CheckWidth(t, "injected", b.String())

	// The HTML page: the card's split and the table's injected column.
	var h bytes.Buffer
	if err := html.WriteHTML(&h, sum, ""); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"3 injected by faults, 1 the target&#39;s own",
		"<th>throttled</th><th>from s</th><th>injected</th>",
		"<td>0</td><td>-</td><td>2</td>",
		"1 throttled by the target, 3 answered 503/500 on purpose by faults",
	} {
		if !strings.Contains(h.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}

	// Only injected: nothing is put on the target.
	only := sum.Workloads[0]
	only.Injected = map[string]int64{fault: 4}
	onlyUnits := []reports.UnitSummary{{Workload: "c", Kind: reports.UnitBlob, Name: "k1", InjectedThrottled: 4}}
	if got := strings.Join(reports.LimitedBy(only, onlyUnits, 0), "; "); strings.Contains(got, "target's own throttling") || strings.Contains(got, "throttling:") {
		t.Errorf("every throttled answer injected, yet: %q", got)
	}

	// The same run without faults: every 503 is the target's, the first
	// on k1 at 0.5s, and no injected column.
	var plain []*checks.Op
	for _, op := range ops {
		c := *op
		c.Out.Fault = ""
		plain = append(plain, &c)
	}
	sum = run(plain, nil)
	k1, acct = unit(sum, reports.UnitBlob, "k1"), unit(sum, reports.UnitAccount, "account")
	if k1.Throttled != 2 || k1.InjectedThrottled != 0 || k1.FirstThrottled != 0.501 || acct.Throttled != 4 || acct.InjectedThrottled != 0 {
		t.Errorf("no faults: k1 %+v, account %+v", k1, acct)
	}
	if got := strings.Join(reports.LimitedBy(sum.Workloads[0], text.UnitsOf(sum.Units, "c"), 0), "; "); !strings.Contains(got, "throttling: 66.7% of the attempts were answered 503/500 (4), first at 0.5s on blob k1") {
		t.Errorf("no faults: %q", got)
	}
	b.Reset()
	if err := text.WriteText(&b, sum); err != nil {
		t.Fatal(err)
	}
	if out := reportstest.Fields(b.String()); strings.Contains(out, "injected") || !strings.Contains(out, "4 throttled") {
		t.Errorf("no faults, yet:\n%s", b.String())
	}
}

// Shards merged (stormcheck merge replays the merged history through
// Metrics): the out.fault of each record survives the history, so the
// merged units keep the injected answers apart from the target's own,
// the account too.
func TestMergedUnitsKeepInjectedApart(t *testing.T) {
	ms := int64(time.Millisecond)
	busy := checks.Output{Status: 503, ErrorCode: "ServerBusy", Fault: "busy (http.server-busy)"}
	own := checks.Output{Status: 503, ErrorCode: "ServerBusy"}
	a := reportstest.WriteHistory(t, []*checks.Op{
		{Actor: 0, Workload: "w", Kind: "blob.put", Key: "k", Call: 100 * ms, Return: 110 * ms, Outcome: checks.Throttled, Out: busy},
		{Actor: 0, Workload: "w", Kind: "blob.put", Key: "k", Call: 900 * ms, Return: 910 * ms, Outcome: checks.OK, Out: checks.Output{Status: 201}},
	})
	b := reportstest.WriteHistory(t, []*checks.Op{
		{Actor: 1, Workload: "w", Kind: "blob.put", Key: "k", Call: 300 * ms, Return: 310 * ms, Outcome: checks.Throttled, Out: own},
		{Actor: 1, Workload: "w", Kind: "blob.put", Key: "k", Call: 400 * ms, Return: 410 * ms, Outcome: checks.Throttled, Out: busy},
	})
	replay := reports.NewMetrics(reports.MetricsOptions{Workloads: []string{"w"}})
	if _, _, err := merge.MergeHistories([]merge.HistoryShard{{Path: a}, {Path: b}}, nil, func(_ int, op *checks.Op) { replay.Record(op) }); err != nil {
		t.Fatal(err)
	}
	us := replay.Units(func(string) time.Duration { return time.Second }, nil, nil)
	if len(us) != 2 {
		t.Fatalf("units %+v, want blob k and the account", us)
	}
	for _, u := range us {
		if u.Throttled != 1 || u.InjectedThrottled != 2 || u.FirstThrottled != 0.31 {
			t.Errorf("merged %s %s: throttled %d injected %d first %v, want 1 2 0.31", u.Kind, u.Name, u.Throttled, u.InjectedThrottled, u.FirstThrottled)
		}
	}
}
