package reports

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/stormcheck/stormcheck/scenarios"
)

// This file gives a criterion's figures their unit, as the reports show
// them: "812 ms", "298/s", "93.1%", "136 attempts".

// thresholdExprRe cuts a criterion at its comparator: "p95(blob.get)".
var thresholdExprRe = regexp.MustCompile(`^\s*(.*?)\s*(<=|>=|==|<|>)`)

// thresholdUnit formats a value of the criterion's metric with its unit;
// nil when the criterion cannot be read (a summary from elsewhere).
func thresholdUnit(text string) (scenarios.Threshold, func(float64) string) {
	t, err := scenarios.ParseCriterion(text)
	if err != nil {
		return t, nil
	}
	switch {
	case scenarios.IsLatencyMetric(t.Metric):
		return t, func(v float64) string { return Ms(v) + " ms" }
	case t.Metric == "throughput":
		return t, func(v float64) string { return Number(v) + "/s" }
	case t.Metric == "rate" || t.Metric == "utilisation":
		return t, func(v float64) string {
			return strings.TrimSuffix(strconv.FormatFloat(100*v, 'f', 1, 64), ".0") + "%"
		}
	}
	return t, func(v float64) string { // a count of attempts
		if v == 1 {
			return "1 attempt"
		}
		return Thousands(int64(math.Round(v))) + " attempts"
	}
}

// MeasuredValue is the figure a criterion measured, with its unit: "812
// ms", "298/s", "93.1%", "136 attempts".
func (r ThresholdResult) MeasuredValue() string {
	if _, unit := thresholdUnit(r.Threshold); unit != nil {
		return unit(r.Actual)
	}
	return Number(r.Actual)
}

// Judged says how far a criterion's measure is from its limit, as the
// verdict shows a failed one: "p95(blob.get)" and "812 ms > 500 ms", then
// where (a windowed criterion's worst window, a unit's busiest second). A
// criterion with nothing to measure gives its note.
func (r ThresholdResult) Judged() (measure, detail string) {
	measure = r.Threshold
	if m := thresholdExprRe.FindStringSubmatch(r.Threshold); m != nil {
		measure = m[1]
	}
	if r.Note != "" {
		return measure, r.Note
	}
	t, unit := thresholdUnit(r.Threshold)
	if unit == nil {
		return r.Threshold, r.Measured()
	}
	rel := "="
	switch {
	case r.Actual > t.Value:
		rel = ">"
	case r.Actual < t.Value:
		rel = "<"
	}
	detail = fmt.Sprintf("%s %s %s", unit(r.Actual), rel, unit(t.Value))
	if r.Window != "" {
		detail += " (worst at " + r.Window + ")"
	}
	if r.Aborted {
		detail += "; stopped the load"
	}
	return measure, detail
}
