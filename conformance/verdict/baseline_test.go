package verdict

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// conformResult makes a concluded result whose steps have the given
// actuals; "" marks a passing step, "!" an errored one.
func conformResult(id string, actuals ...string) RuleResult {
	r := RuleResult{ID: id, Title: "title " + id, Tags: []string{"blob", "lease"}}
	for i, a := range actuals {
		v := StepVerdict{Step: i + 1, Op: "blob.put", Expected: "412 LeaseIdMissing", Actual: a}
		switch a {
		case "":
			v.Pass, v.Actual = true, "412 LeaseIdMissing"
		case "!":
			v.Errored, v.Actual, v.Reason = true, "error: timeout", "no HTTP response: timeout"
		default:
			v.Reason = "status"
		}
		r.Add(v)
	}
	r.Conclude()
	return r
}

func ids(items []BaselineItem) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.Rule)
	}
	return out
}

func TestBaselineCompare(t *testing.T) {
	results := []RuleResult{
		conformResult("r.unexpected", "", "201"),
		conformResult("r.known", "200"),
		conformResult("r.changed", "", "409"),
		conformResult("r.fixed", ""),
		conformResult("r.error", "!"),
		conformResult("r.pass", ""),
	}
	b := &Baseline{Target: "azurite 3.37.0", Divergences: []AcceptedDivergence{
		{Rule: "r.known", Actual: "200", Reason: "azurite ignores leases"},
		{Rule: "r.changed", Actual: "200"},
		{Rule: "r.fixed", Actual: "200"},
		{Rule: "r.gone", Actual: "200"},
	}}
	rep := CompareBaseline(results, b)
	for _, c := range []struct {
		name string
		got  []string
		want []string
	}{
		{"unexpected", ids(rep.Unexpected), []string{"r.unexpected"}},
		{"known", ids(rep.Known), []string{"r.known"}},
		{"changed", ids(rep.Changed), []string{"r.changed"}},
		{"fixed", ids(rep.Fixed), []string{"r.fixed"}},
		{"errors", ids(rep.Errors), []string{"r.error"}},
		{"not run", rep.NotRun, []string{"r.gone"}},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
	if u := rep.Unexpected[0]; u.Step != 2 || u.Actual != "201" || u.Accepted != nil {
		t.Errorf("unexpected item %+v", u)
	}
	if c := rep.Changed[0]; c.Actual != "409" || c.Accepted.Actual != "200" {
		t.Errorf("changed item %+v", c)
	}
	if rep.Target != "azurite 3.37.0" || !rep.IsKnown("r.known") || rep.IsKnown("r.changed") {
		t.Errorf("target %q / IsKnown wrong", rep.Target)
	}
	if k, _ := rep.Item("r.fixed"); k != "fixed" {
		t.Errorf("Item(r.fixed) = %q", k)
	}
	if rep.OK() {
		t.Error("OK with unexpected divergences")
	}

	none := CompareBaseline(results, nil)
	if !reflect.DeepEqual(ids(none.Unexpected), []string{"r.changed", "r.known", "r.unexpected"}) {
		t.Errorf("nil baseline unexpected: %v", ids(none.Unexpected))
	}
}

func TestBaselineOK(t *testing.T) {
	one := []BaselineItem{{Rule: "x"}}
	tests := []struct {
		name string
		rep  BaselineReport
		ok   bool
	}{
		{"empty", BaselineReport{}, true},
		{"known only", BaselineReport{Known: one}, true},
		{"fixed does not fail", BaselineReport{Fixed: one}, true},
		{"not run does not fail", BaselineReport{NotRun: []string{"x"}}, true},
		{"unexpected", BaselineReport{Unexpected: one}, false},
		{"changed", BaselineReport{Changed: one}, false},
		{"error", BaselineReport{Errors: one}, false},
		{"known and changed", BaselineReport{Known: one, Changed: one}, false},
	}
	for _, tc := range tests {
		if got := tc.rep.OK(); got != tc.ok {
			t.Errorf("%s: OK() = %v", tc.name, got)
		}
	}
}

func TestBaselineRead(t *testing.T) {
	tests := []struct {
		name, in, err string
	}{
		{"valid", `{"target":"azurite 3.37.0","divergences":[{"rule":"a","actual":"200","reason":"r","link":"https://x"}]}`, ""},
		{"unknown top field", `{"target":"t","divergences":[],"extra":1}`, "unknown field"},
		{"unknown entry field", `{"target":"t","divergences":[{"rule":"a","actual":"200","step":3}]}`, "unknown field"},
		{"no rule", `{"target":"t","divergences":[{"actual":"200"}]}`, "no rule id"},
		{"duplicate", `{"target":"t","divergences":[{"rule":"a"},{"rule":"a"}]}`, "twice"},
		{"trailing", `{"target":"t"} {}`, "trailing"},
		{"not json", `target: t`, "baseline"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := ReadBaseline(strings.NewReader(tc.in))
			if tc.err == "" {
				if err != nil || b == nil || len(b.Divergences) != 1 || b.Divergences[0].Link != "https://x" {
					t.Fatalf("got %+v, %v", b, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("err %v, want %q", err, tc.err)
			}
		})
	}
}

func TestBaselineFromRoundTrip(t *testing.T) {
	results := []RuleResult{
		conformResult("r.z", "", "201"),
		conformResult("r.a", "200"),
		conformResult("r.pass", ""),
		conformResult("r.error", "!"),
	}
	b := BaselineFrom(results, "azurite 3.37.0")
	want := []AcceptedDivergence{{Rule: "r.a", Actual: "200"}, {Rule: "r.z", Actual: "201"}}
	if b.Target != "azurite 3.37.0" || !reflect.DeepEqual(b.Divergences, want) {
		t.Fatalf("BaselineFrom = %+v", b)
	}
	var buf bytes.Buffer
	if err := WriteBaseline(&buf, b); err != nil {
		t.Fatal(err)
	}
	back, err := ReadBaseline(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, b) {
		t.Errorf("round trip: %+v, want %+v", back, b)
	}
	rep := CompareBaseline(results[:3], back)
	if !rep.OK() || len(rep.Known) != 2 || len(rep.Unexpected)+len(rep.Changed)+len(rep.Fixed) != 0 {
		t.Errorf("own baseline not OK: %+v", rep)
	}
	empty := BaselineFrom(nil, "t")
	buf.Reset()
	_ = WriteBaseline(&buf, empty)
	if !strings.Contains(buf.String(), `"divergences": []`) {
		t.Errorf("empty baseline: %s", buf.String())
	}
}
