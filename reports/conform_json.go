package reports

import (
	"encoding/json"
	"io"

	"github.com/stormcheck/stormcheck/checks"
)

// ConformReport is the JSON form of a conformance run.
type ConformReport struct {
	// Results are the rules' outcomes, in the order given.
	Results []checks.RuleResult `json:"results"`
	// Baseline is the comparison with the target's baseline, if any.
	Baseline *checks.BaselineReport `json:"baseline,omitempty"`
	// OK is the baseline's verdict (rep.OK()), or, with no baseline, true
	// when every rule passed.
	OK bool `json:"ok"`
}

// WriteConformJSON writes results and rep (nil: no baseline) to path as
// indented JSON, atomically.
func WriteConformJSON(path string, results []checks.RuleResult, rep *checks.BaselineReport) error {
	out := ConformReport{Results: results, Baseline: rep, OK: conformOK(results, rep)}
	if out.Results == nil {
		out.Results = []checks.RuleResult{}
	}
	return WriteFileAtomic(path, func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(&out)
	})
}

// conformOK is the run's verdict: the baseline's, or with none, every rule
// passed.
func conformOK(results []checks.RuleResult, rep *checks.BaselineReport) bool {
	if rep != nil {
		return rep.OK()
	}
	for i := range results {
		if results[i].Status != checks.ConformPass {
			return false
		}
	}
	return true
}
