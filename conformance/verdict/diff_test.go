package verdict

import (
	"reflect"
	"testing"
)

func TestDiffTargets(t *testing.T) {
	a := []RuleResult{
		conformResult("same", "", "200"),
		conformResult("status", "", ""),
		conformResult("actual", "200"),
		conformResult("only.a", ""),
		conformResult("longer", "", ""),
	}
	b := []RuleResult{
		conformResult("longer", ""),
		conformResult("same", "", "200"),
		conformResult("status", "", "201"),
		conformResult("actual", "409"),
		conformResult("only.b", ""),
	}
	got := DiffTargets(a, b)
	var gotIDs []string
	for _, d := range got {
		gotIDs = append(gotIDs, d.ID)
	}
	if want := []string{"actual", "longer", "only.a", "only.b", "status"}; !reflect.DeepEqual(gotIDs, want) {
		t.Fatalf("ids %v, want %v", gotIDs, want)
	}
	tests := []struct {
		i     int
		steps []StepDiff
		nilA  bool
		nilB  bool
	}{
		{0, []StepDiff{{Step: 1, Op: "blob.put", ActualA: "200", ActualB: "409"}}, false, false},
		{1, []StepDiff{{Step: 2, Op: "blob.put", ActualA: "412 LeaseIdMissing", ActualB: ""}}, false, false},
		{2, nil, false, true},
		{3, nil, true, false},
		{4, []StepDiff{{Step: 2, Op: "blob.put", ActualA: "412 LeaseIdMissing", ActualB: "201"}}, false, false},
	}
	for _, tc := range tests {
		d := got[tc.i]
		if !reflect.DeepEqual(d.Steps, tc.steps) || (d.A == nil) != tc.nilA || (d.B == nil) != tc.nilB {
			t.Errorf("%s: steps %+v A nil %v B nil %v", d.ID, d.Steps, d.A == nil, d.B == nil)
		}
		if d.Title != "title "+d.ID {
			t.Errorf("%s: title %q", d.ID, d.Title)
		}
	}
	if d := DiffTargets(a, a); len(d) != 0 {
		t.Errorf("self diff: %+v", d)
	}
}
