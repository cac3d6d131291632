package verdict

import "sort"

// RuleDiff is one rule that behaved differently on two targets.
type RuleDiff struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// A and B are the rule's results on each target; nil when the rule did
	// not run on that side.
	A *RuleResult `json:"a,omitempty"`
	B *RuleResult `json:"b,omitempty"`
	// Steps lists the steps whose Actual differs, in step order (empty when
	// a side is missing).
	Steps []StepDiff `json:"steps,omitempty"`
}

// StepDiff is one step observed differently on two targets. A side that
// has no such step has an empty Actual.
type StepDiff struct {
	Step    int    `json:"step"`
	Op      string `json:"op"`
	ActualA string `json:"actual_a"`
	ActualB string `json:"actual_b"`
}

// DiffTargets pairs two targets' results by rule id and returns, in id
// order, the rules whose status or any step's Actual differ, and the rules
// that ran on only one side. Steps pair by position.
func DiffTargets(a, b []RuleResult) []RuleDiff {
	index := func(rs []RuleResult) map[string]*RuleResult {
		m := make(map[string]*RuleResult, len(rs))
		for i := range rs {
			m[rs[i].ID] = &rs[i]
		}
		return m
	}
	ma, mb := index(a), index(b)
	ids := make([]string, 0, len(ma)+len(mb))
	for id := range ma {
		ids = append(ids, id)
	}
	for id := range mb {
		if ma[id] == nil {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)

	var diffs []RuleDiff
	for _, id := range ids {
		ra, rb := ma[id], mb[id]
		d := RuleDiff{ID: id, A: ra, B: rb}
		if ra != nil {
			d.Title = ra.Title
		} else {
			d.Title = rb.Title
		}
		if ra == nil || rb == nil {
			diffs = append(diffs, d)
			continue
		}
		for i := 0; i < max(len(ra.Steps), len(rb.Steps)); i++ {
			var sa, sb StepVerdict
			if i < len(ra.Steps) {
				sa = ra.Steps[i]
			}
			if i < len(rb.Steps) {
				sb = rb.Steps[i]
			}
			if i >= len(ra.Steps) || i >= len(rb.Steps) || sa.Actual != sb.Actual {
				sd := StepDiff{Step: sa.Step, Op: sa.Op, ActualA: sa.Actual, ActualB: sb.Actual}
				if i >= len(ra.Steps) {
					sd.Step, sd.Op = sb.Step, sb.Op
				}
				d.Steps = append(d.Steps, sd)
			}
		}
		if ra.Status != rb.Status || len(d.Steps) > 0 {
			diffs = append(diffs, d)
		}
	}
	return diffs
}
