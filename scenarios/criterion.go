package scenarios

import (
	"errors"
	"strings"
)

// ParseCriterion reads a threshold as a saved report wrote it, with no
// scenario to check its names against: its metric, comparator, value (in
// the metric's unit, ms for latencies) and window. The reports use it to
// give a criterion's figures their unit.
func ParseCriterion(text string) (Threshold, error) {
	s := &Scenario{}
	if m := thresholdRe.FindStringSubmatch(text); m != nil {
		if w, _, ok := strings.Cut(m[2], "/"); ok { // "workload/op": any workload name will do
			s.Workloads = []Workload{{Name: w}}
		}
	}
	t, msg := parseThreshold(text, s)
	if msg != "" {
		return t, errors.New(msg)
	}
	return t, nil
}
