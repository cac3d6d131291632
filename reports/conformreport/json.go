package conformreport

import (
	"encoding/json"
	"io"

	"github.com/stormcheck/stormcheck/conformance/verdict"
	"github.com/stormcheck/stormcheck/reports"
)

// ConformReport is the JSON form of a conformance run.
type ConformReport struct {
	// Results are the rules' outcomes, in the order given.
	Results []verdict.RuleResult `json:"results"`
	// Baseline is the comparison with the target's baseline, if any.
	Baseline *verdict.BaselineReport `json:"baseline,omitempty"`
	// OK is the baseline's verdict (rep.OK()), or, with no baseline, true
	// when every rule passed.
	OK bool `json:"ok"`
}

// WriteConformJSON writes results and rep (nil: no baseline) to path as
// indented JSON, atomically.
func WriteConformJSON(path string, results []verdict.RuleResult, rep *verdict.BaselineReport) error {
	return reports.WriteFileAtomic(path, func(w io.Writer) error { return EncodeConformJSON(w, results, rep) })
}

// EncodeConformJSON writes what WriteConformJSON writes to w.
func EncodeConformJSON(w io.Writer, results []verdict.RuleResult, rep *verdict.BaselineReport) error {
	out := ConformReport{Results: results, Baseline: rep, OK: conformOK(results, rep)}
	if out.Results == nil {
		out.Results = []verdict.RuleResult{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(&out)
}

// conformOK is the run's verdict: the baseline's, or with none, every rule
// passed.
func conformOK(results []verdict.RuleResult, rep *verdict.BaselineReport) bool {
	if rep != nil {
		return rep.OK()
	}
	for i := range results {
		if results[i].Status != verdict.ConformPass {
			return false
		}
	}
	return true
}
