package matrix

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
)

// The fast slice of the fault matrix: a register and a queue scenario under
// a fault that must not produce a violation, and under the broken promise
// that must. The full matrix is `stormcheck matrix` (README).
func TestMatrixSlice(t *testing.T) {
	var ss []Scenario
	for _, s := range CoreScenarios {
		if s.Name == "etag-counter" || s.Name == "queue-work" {
			ss = append(ss, s)
		}
	}
	var log strings.Builder
	cells, err := Run(context.Background(), Options{Scenarios: ss,
		Kinds: []string{"http.drop-response", "broken.early-visible"}, Duration: 3e9, Dir: t.TempDir(), Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if len(cells) != 4 {
		t.Fatalf("%d cells, want 4", len(cells))
	}
	for _, c := range cells {
		t.Log(c.Line())
		if !c.OK {
			t.Errorf("cell does not show what it must: %s", c.Line())
		}
		// Under dropped responses every check still decides at least its
		// floor's share of the operations it could judge (counts from the
		// recorded history), and the cell says how many.
		if c.Applies && c.Fault == "http.drop-response" {
			for _, r := range c.Checks {
				floor := Floor(c.Fault, r.Check)
				if floor != DecidedFloor || r.Judgeable == 0 || r.Decided < int(math.Ceil(floor*float64(r.Judgeable))) {
					t.Errorf("%s x %s: %s decided %d of %d, floor %.0f%%", c.Scenario, c.Fault, r.Check, r.Decided, r.Judgeable, 100*floor)
				}
				if want := fmt.Sprintf("%s %s (%.0f%% decided: %d of %d", r.Check, strings.ToUpper(string(r.Verdict)), 100*r.Share(), r.Decided, r.Judgeable); !strings.Contains(c.Line(), want) {
					t.Errorf("line lacks %q: %s", want, c.Line())
				}
			}
		}
	}
	// early-visible's check does not run on the counter: n/a, not run.
	if c := cells[1]; c.Scenario != "etag-counter" || c.Applies || c.Attempts != 0 {
		t.Errorf("counter x early-visible: %s", c.Line())
	}
	if c := cells[3]; !c.Applies || c.Attempts == 0 {
		t.Errorf("queue-work x early-visible did not run: %s", c.Line())
	}
	var md strings.Builder
	if err := WriteMarkdown(&md, cells, []string{"http.drop-response", "broken.early-visible"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| `http.drop-response` |") || !strings.Contains(md.String(), " n/a |") || !strings.Contains(md.String(), " etag-counter |") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if line, ok := Verdict(cells); !ok || !strings.HasPrefix(line, "matrix: ok: 3 cells run") {
		t.Errorf("verdict %q %v", line, ok)
	}
}

// A cell is judged on its checks' verdicts and shares decided, from the
// counts alone: a check that decided nothing, or less than its floor, puts
// the cell under the floor and the matrix fails; a check failing on
// unmodified Azurite and a broken promise not caught fail it too; a lease
// failure across a clean restart is Azurite's finding, a crash's failures
// are kept apart.
func TestMatrixJudge(t *testing.T) {
	sec := time.Second
	res := func(check string, v checks.Verdict, decided, of int, vs ...checks.Violation) checks.Result {
		r := checks.Result{Check: check, Verdict: v, Decided: decided, Judgeable: of, Violations: vs, Total: len(vs)}
		return r
	}
	stop := []reports.FaultWindow{{Fault: "f", Kind: "target.stop", From: 1 * sec, To: 2 * sec}}
	across := checks.Violation{Kind: "two holders", Message: "two holders", Ops: []checks.Op{{Call: int64(sec / 2)}, {Call: int64(3 * sec)}}}
	within := checks.Violation{Kind: "two holders", Message: "two holders", Ops: []checks.Op{{Call: int64(3 * sec)}, {Call: int64(4 * sec)}}}
	// Histories of the lease cells: A is acquired for 15 s before the stop,
	// B after the restart (Azurite forgot A), C after B (Azurite answering
	// from a state it restored); or A and C overlap before the stop.
	acquire := func(id string, at time.Duration) checks.Op {
		return checks.Op{Workload: "w", Kind: "blob.lease.acquire", Key: "k0", Call: int64(at), Return: int64(at + sec/10),
			In: checks.Input{LeaseID: id, LeaseDuration: 15}, Out: checks.Output{Status: 201, Value: id}}
	}
	seqs := func(ops ...checks.Op) []checks.Op {
		for i := range ops {
			ops[i].Seq = uint64(i + 1)
		}
		return ops
	}
	forgot := seqs(acquire("A", sec/2), acquire("B", 3*sec))
	after := seqs(acquire("A", sec/2), acquire("B", 3*sec), acquire("C", 4*sec))
	before := seqs(acquire("A", sec/10), acquire("C", sec/2), acquire("B", 3*sec))
	// A known Azurite finding: 25 violations of its kind, 20 of them
	// listed; then a 26th of another kind.
	var mismatches []checks.Violation
	for range checks.MaxViolations {
		mismatches = append(mismatches, checks.Violation{Kind: "ETag/value mismatch", Message: "ETag/value mismatch: #1 read"})
	}
	known := checks.Result{Check: "version-chain", Verdict: checks.Fail, Decided: 10, Judgeable: 10, Violations: mismatches, Total: 25,
		Kinds: map[string]int{"ETag/value mismatch": 25}}
	knownAndMore := known
	knownAndMore.Total, knownAndMore.Kinds = 26, map[string]int{"ETag/value mismatch": 25, "fork": 1}
	lease := func(vs ...checks.Violation) checks.Result {
		r := res("lease-exclusion", checks.Fail, 10, 10, vs...)
		r.Workload = "w"
		return r
	}
	for _, tc := range []struct {
		name, fault string
		checks      []checks.Result
		faults      []reports.FaultWindow
		history     []checks.Op
		known       string
		ok          bool
		under       int
		mark        string
	}{
		{"all decided", "http.drop-response", []checks.Result{res("no-lost-updates", checks.Pass, 90, 100), res("version-chain", checks.Pass, 100, 100)}, nil, nil, "", true, 0, "PP ok 90%"},
		{"undecided to everything", "http.drop-response", []checks.Result{res("no-lost-updates", checks.Undecided, 0, 100)}, nil, nil, "", false, 1, "U **UNDER** 0%"},
		{"half is the floor", "net.reset-after", []checks.Result{res("version-chain", checks.Pass, 50, 100)}, nil, nil, "", true, 0, "P ok 50%"},
		{"under half", "net.reset-after", []checks.Result{res("version-chain", checks.Pass, 49, 100)}, nil, nil, "", false, 1, "P **UNDER** 49%"},
		{"the lease checks' floor is half too", "http.drop-response", []checks.Result{res("lease-exclusion", checks.Pass, 50, 100)}, nil, nil, "", true, 0, "P ok 50%"},
		{"lease under its floor", "http.drop-response", []checks.Result{res("lease-protocol", checks.Pass, 49, 100)}, nil, nil, "", false, 1, "P **UNDER** 49%"},
		{"false violation", "http.server-busy", []checks.Result{res("no-lost-updates", checks.Fail, 100, 100, within)}, nil, nil, "", false, 0, "F **BAD** 100%"},
		{"lease lost across the restart", "target.stop", []checks.Result{lease(across)}, stop, forgot, "", true, 0, "F ok‡ 100%"},
		{"lease violations after the restart only", "target.stop", []checks.Result{lease(across, within)}, stop, after, "", true, 0, "F ok‡ 100%"},
		{"a lease violation before the restart", "target.stop", []checks.Result{lease(across, within)}, stop, before, "", false, 0, "F **BAD** 100%"},
		{"a register failure across a clean restart is not excused", "target.stop", []checks.Result{res("no-lost-updates", checks.Fail, 10, 10, across)}, stop, forgot, "", false, 0, "F **BAD** 100%"},
		{"crash kept apart", "target.crash", []checks.Result{res("no-lost-updates", checks.Fail, 0, 10, within)}, nil, nil, "", true, 0, "F ok 0%"},
		{"broken promise caught", "broken.strip-if-match", []checks.Result{res("no-lost-updates", checks.Fail, 10, 10, within)}, nil, nil, "", true, 0, "F ok 100%"},
		{"broken promise not caught", "broken.strip-if-match", []checks.Result{res("no-lost-updates", checks.Pass, 10, 10)}, nil, nil, "", false, 0, "P **BAD** 100%"},
		{"only the known finding, 25 times", "http.drop-response", []checks.Result{known}, nil, nil, "ETag/value mismatch", true, 0, "F ok† 100%"},
		{"the known finding 25 times and a 26th of another kind", "http.drop-response", []checks.Result{knownAndMore}, nil, nil, "ETag/value mismatch", false, 0, "F **BAD** 100%"},
	} {
		c := Cell{Scenario: "s", Fault: tc.fault, Applies: true, Checks: tc.checks, history: tc.history, knownError: tc.known}
		c.OK = c.judge(&reports.Summary{Faults: tc.faults})
		if c.OK != tc.ok || len(c.Under) != tc.under || c.Short() != tc.mark {
			t.Errorf("%s: ok %v under %v short %q; want %v, %d, %q", tc.name, c.OK, c.Under, c.Short(), tc.ok, tc.under, tc.mark)
		}
		line, ok := Verdict([]Cell{c})
		if ok != tc.ok || ok != strings.HasPrefix(line, "matrix: ok") {
			t.Errorf("%s: verdict %q", tc.name, line)
		}
		if tc.under > 0 && !strings.Contains(line, "under the floor of operations decided (s x "+tc.fault+")") {
			t.Errorf("%s: verdict %q", tc.name, line)
		}
	}
}

// Two checks of one scenario judge the same unknown writes: the cell shows
// the one that judged most of them, not their sum.
func TestMatrixResolvedUnknownWrites(t *testing.T) {
	c := Cell{Scenario: "s", Fault: "http.drop-response", Applies: true, OK: true, Checks: []checks.Result{
		{Check: "no-lost-updates", Verdict: checks.Pass, Decided: 9, Judgeable: 10, Unknown: &checks.UnknownWrites{Applied: 5, NotApplied: 3, Open: 2}},
		{Check: "version-chain", Verdict: checks.Pass, Decided: 10, Judgeable: 10, Unknown: &checks.UnknownWrites{Applied: 5, NotApplied: 5}},
	}}
	if got := c.Short(); got != "PP ok 90% r10/10" {
		t.Errorf("short %q, want PP ok 90%% r10/10", got)
	}
}
