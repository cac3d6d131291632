package verdict

import (
	"strings"
	"testing"
)

// A raw batch's parts: the statuses must be exactly the expected ones, in
// order; a response without parts, a part of another status, a missing or
// an extra part, and a part that is not an HTTP response each diverge.
func TestConformJudgeBatchParts(t *testing.T) {
	want := StepExpect{Status: []int{202}, ServiceExpect: ServiceExpect{Parts: []int{204, 204, 400}}}
	obs := func(parts ...int) StepObservation {
		return StepObservation{Status: 202, ServiceObservation: ServiceObservation{Parts: parts}}
	}
	if v := JudgeStep(0, "table.raw", want, obs(204, 204, 400)); !v.Pass || v.Actual != "202, parts [204 204 400]" {
		t.Fatalf("the expected parts: %+v", v)
	}
	for _, c := range []struct {
		o      StepObservation
		reason string
	}{
		{StepObservation{Status: 202}, "the response is not a batch response, expected parts [204 204 400]"},
		{obs(204, 204, 204), "parts [204 204 204], expected [204 204 400]"},
		{obs(204, 400), "parts [204 400], expected [204 204 400]"},
		{obs(204, 204, 400, 204), "parts [204 204 400 204], expected [204 204 400]"},
		{obs(204, 204, 0), "parts [204 204 unparsed], expected [204 204 400]"},
	} {
		if v := JudgeStep(0, "table.raw", want, c.o); v.Pass || !strings.Contains(v.Reason, c.reason) {
			t.Errorf("parts %v: %+v, want a divergence %q", c.o.Parts, v, c.reason)
		}
	}
	long := make([]int, 101)
	for i := range long {
		long[i] = 204
	}
	if f := partsForm(long); f != "[204 x101]" {
		t.Errorf("partsForm of 101 parts: %q", f)
	}
	if f := expectedForm(want); !strings.Contains(f, "parts [204 204 400]") {
		t.Errorf("the expected form %q does not say the parts", f)
	}
}
