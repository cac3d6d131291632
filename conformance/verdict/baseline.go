package verdict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/stormcheck/stormcheck/internal/boundedread"
)

// Baseline records the divergences accepted for one target: known
// differences between the target (an emulator, a version) and the
// documentation, each with why it is accepted. A run compared with its
// baseline fails only on what is new.
type Baseline struct {
	// Target names what the baseline was taken on, e.g. "azurite 3.37.0".
	Target string `json:"target"`
	// Divergences holds at most one entry per rule.
	Divergences []AcceptedDivergence `json:"divergences"`
}

// AcceptedDivergence is one rule's accepted divergence.
type AcceptedDivergence struct {
	// Rule is the rule's id.
	Rule string `json:"rule"`
	// Actual is the first diverging step's Actual, as StepVerdict spells it.
	Actual string `json:"actual"`
	// Reason says why it is accepted; Link points to the issue or doc.
	Reason string `json:"reason,omitempty"`
	Link   string `json:"link,omitempty"`
}

// MaxBaselineBytes bounds a baseline file (conform --baseline). The shipped
// azurite-3.37.0 baseline is 37 KB for 62 divergences (600 bytes each); a
// baseline of every rule a --rules folder can hold (conformance.MaxRulesBytes
// of rules at the shipped 1.2 KB per rule), each diverging, is about 9 MB.
const MaxBaselineBytes = 16 << 20

// ReadBaselineFile reads the baseline file at path with ReadBaseline; a
// file larger than MaxBaselineBytes is refused (a *boundedread.Error)
// before it is read whole.
func ReadBaselineFile(path string) (*Baseline, error) {
	data, err := boundedread.ReadFile(path, MaxBaselineBytes, "a baseline file")
	if err != nil {
		return nil, err
	}
	return ReadBaseline(bytes.NewReader(data))
}

// ReadBaseline reads a baseline file strictly: unknown fields, trailing
// data, an entry without a rule id and two entries for one rule are errors.
func ReadBaseline(r io.Reader) (*Baseline, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var b Baseline
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("baseline: trailing data after the JSON object")
	}
	seen := make(map[string]bool, len(b.Divergences))
	for i, d := range b.Divergences {
		if d.Rule == "" {
			return nil, fmt.Errorf("baseline: divergence %d has no rule id", i)
		}
		if seen[d.Rule] {
			return nil, fmt.Errorf("baseline: rule %s listed twice", d.Rule)
		}
		seen[d.Rule] = true
	}
	return &b, nil
}

// WriteBaseline writes b as indented JSON that ReadBaseline reads back.
func WriteBaseline(w io.Writer, b *Baseline) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(b)
}

// BaselineFrom makes a baseline accepting every divergence in results, by
// rule id, with empty reasons for a person to fill in. Errored rules are
// left out: an error is not a divergence to accept.
func BaselineFrom(results []RuleResult, target string) *Baseline {
	b := &Baseline{Target: target, Divergences: []AcceptedDivergence{}}
	for i := range results {
		r := &results[i]
		if r.Status != ConformDiverges {
			continue
		}
		b.Divergences = append(b.Divergences, AcceptedDivergence{Rule: r.ID, Actual: firstActual(r)})
	}
	sort.Slice(b.Divergences, func(i, j int) bool { return b.Divergences[i].Rule < b.Divergences[j].Rule })
	return b
}

// firstActual is the Actual of r's first diverging step, "" if none.
func firstActual(r *RuleResult) string {
	if d := r.Divergence(); d != nil {
		return d.Actual
	}
	return ""
}

// BaselineItem is one rule in a BaselineReport.
type BaselineItem struct {
	Rule string `json:"rule"`
	// Step, Op and Expected describe the first diverging step (zero for a
	// fixed rule); Actual is what it observed now.
	Step     int    `json:"step,omitempty"`
	Op       string `json:"op,omitempty"`
	Expected string `json:"expected,omitempty"`
	Actual   string `json:"actual,omitempty"`
	// Accepted is the baseline's entry, nil for an unexpected divergence.
	Accepted *AcceptedDivergence `json:"accepted,omitempty"`
}

// BaselineReport sorts a run's results against a baseline. Each list is in
// rule id order.
type BaselineReport struct {
	// Target is the baseline's target.
	Target string `json:"target"`
	// Unexpected: diverges, and the baseline does not list the rule.
	Unexpected []BaselineItem `json:"unexpected"`
	// Known: diverges with the very Actual the baseline accepts.
	Known []BaselineItem `json:"known"`
	// Changed: the baseline lists the rule, but it now diverges otherwise.
	Changed []BaselineItem `json:"changed"`
	// Fixed: the baseline lists the rule, but it now passes; the baseline
	// should be tightened.
	Fixed []BaselineItem `json:"fixed"`
	// Errors: rules that could not be run (whether listed or not).
	Errors []BaselineItem `json:"errors"`
	// NotRun: baseline entries whose rule is not among the results (the
	// run may have been filtered); informational.
	NotRun []string `json:"not_run"`
}

// OK reports whether the run passes against its baseline: no unexpected
// and no changed divergence, and no rule errored (an unrun rule proves
// nothing). Fixed and NotRun entries are reported but do not fail: a
// target getting better must not break CI; tighten the baseline instead.
func (r *BaselineReport) OK() bool {
	return len(r.Unexpected) == 0 && len(r.Changed) == 0 && len(r.Errors) == 0
}

// IsKnown reports whether rule id diverged exactly as the baseline accepts;
// false on a nil report.
func (r *BaselineReport) IsKnown(id string) bool { return r != nil && r.find(r.Known, id) != nil }

// Item returns rule id's category ("unexpected", "known", "changed",
// "fixed", "error") and entry; "" and nil when the rule is in none or r is
// nil.
func (r *BaselineReport) Item(id string) (string, *BaselineItem) {
	if r == nil {
		return "", nil
	}
	for _, c := range []struct {
		name  string
		items []BaselineItem
	}{{"unexpected", r.Unexpected}, {"known", r.Known}, {"changed", r.Changed}, {"fixed", r.Fixed}, {"error", r.Errors}} {
		if it := r.find(c.items, id); it != nil {
			return c.name, it
		}
	}
	return "", nil
}

func (r *BaselineReport) find(items []BaselineItem, id string) *BaselineItem {
	if r == nil {
		return nil
	}
	for i := range items {
		if items[i].Rule == id {
			return &items[i]
		}
	}
	return nil
}

// CompareBaseline sorts results against b (nil: an empty baseline, so
// every divergence is unexpected).
func CompareBaseline(results []RuleResult, b *Baseline) BaselineReport {
	rep := BaselineReport{
		Unexpected: []BaselineItem{}, Known: []BaselineItem{}, Changed: []BaselineItem{},
		Fixed: []BaselineItem{}, Errors: []BaselineItem{}, NotRun: []string{},
	}
	accepted := map[string]*AcceptedDivergence{}
	if b != nil {
		rep.Target = b.Target
		for i := range b.Divergences {
			accepted[b.Divergences[i].Rule] = &b.Divergences[i]
		}
	}
	ran := make(map[string]bool, len(results))
	for i := range results {
		r := &results[i]
		ran[r.ID] = true
		it := BaselineItem{Rule: r.ID, Accepted: accepted[r.ID]}
		if d := r.Divergence(); d != nil {
			it.Step, it.Op, it.Expected, it.Actual = d.Step, d.Op, d.Expected, d.Actual
		}
		switch r.Status {
		case ConformError:
			it.Actual = r.ErrorText()
			rep.Errors = append(rep.Errors, it)
		case ConformDiverges:
			switch {
			case it.Accepted == nil:
				rep.Unexpected = append(rep.Unexpected, it)
			case it.Accepted.Actual == it.Actual:
				rep.Known = append(rep.Known, it)
			default:
				rep.Changed = append(rep.Changed, it)
			}
		case ConformPass:
			if it.Accepted != nil {
				rep.Fixed = append(rep.Fixed, it)
			}
		}
	}
	if b != nil {
		for _, d := range b.Divergences {
			if !ran[d.Rule] {
				rep.NotRun = append(rep.NotRun, d.Rule)
			}
		}
	}
	for _, items := range [][]BaselineItem{rep.Unexpected, rep.Known, rep.Changed, rep.Fixed, rep.Errors} {
		sort.SliceStable(items, func(i, j int) bool { return items[i].Rule < items[j].Rule })
	}
	sort.Strings(rep.NotRun)
	return rep
}
