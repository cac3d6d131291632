package reports

import "fmt"

// ThresholdAbort is an abort_on_fail threshold that failed on the live
// figures and stopped the load.
type ThresholdAbort struct {
	Threshold string `json:"threshold"`
	// AtSeconds is when, from the load's start; Actual what it measured
	// then (Window: its worst window).
	AtSeconds float64 `json:"at_s"`
	Actual    float64 `json:"actual"`
	Window    string  `json:"window,omitempty"`
}

// String says what stopped the load.
func (a *ThresholdAbort) String() string {
	s := fmt.Sprintf("threshold %s failed at %.0fs of load (measured %s", a.Threshold, a.AtSeconds, ThresholdResult{Threshold: a.Threshold, Actual: a.Actual}.MeasuredValue())
	if a.Window != "" {
		s += ", worst at " + a.Window
	}
	return s + "): the load was stopped (abort_on_fail)"
}

// MarkAborted fails the threshold that stopped the load, whatever the whole
// run measures: the run ended early because of it.
func MarkAborted(s *Summary) {
	if s.AbortedBy == nil {
		return
	}
	for i := range s.Thresholds {
		if r := &s.Thresholds[i]; r.Threshold == s.AbortedBy.Threshold {
			r.Pass, r.Aborted = false, true
		}
	}
}
