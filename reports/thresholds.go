package reports

import (
	"fmt"
	"math"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/scenarios"
)

// ThresholdResult is one criterion's verdict.
type ThresholdResult struct {
	// Threshold is the criterion as the scenario wrote it.
	Threshold string `json:"threshold"`
	Pass      bool   `json:"pass"`
	// Actual is the measured value in the criterion's unit (ms for
	// latencies); for a windowed criterion, the worst window's.
	Actual float64 `json:"actual"`
	// Window is the worst window ("12s-17s") of a windowed criterion.
	Window string `json:"window,omitempty"`
	// Note explains a verdict without data.
	Note string `json:"note,omitempty"`
	// Injected is how many throttled answers a fault of the scenario gave
	// on purpose and the measure left out (in the worst window, for a
	// windowed criterion): a threshold on throttling judges the target's.
	Injected int64 `json:"injected_throttled_left_out,omitempty"`
	// Aborted: the criterion (abort_on_fail) failed during the run and
	// stopped the load; it fails whatever the whole run measures.
	Aborted bool `json:"aborted_the_run,omitempty"`
}

// measured says what a criterion measured, as the text and HTML reports
// show it.
func (r ThresholdResult) Measured() string {
	var s string
	switch {
	case r.Note != "":
		return r.Note
	case r.Window != "":
		s = fmt.Sprintf("measured %s (worst at %s)", r.MeasuredValue(), r.Window)
	default:
		s = "measured " + r.MeasuredValue()
	}
	if r.Injected > 0 {
		s += fmt.Sprintf(", leaving out %d throttled answers faults injected on purpose", r.Injected)
	}
	if r.Aborted {
		s += "; failed during the run and stopped the load"
	}
	return s
}

// EvaluateThresholds judges each criterion against a finished run's
// figures. A criterion with nothing to measure (no operation of the kind
// it names) fails, saying so: a threshold must not pass by accident.
func EvaluateThresholds(s *Summary, ts []scenarios.Threshold) []ThresholdResult {
	out := make([]ThresholdResult, 0, len(ts))
	for _, t := range ts {
		out = append(out, evaluate(s, t))
	}
	return out
}

func evaluate(s *Summary, t scenarios.Threshold) ThresholdResult {
	r := ThresholdResult{Threshold: t.Text}
	ops := matchingOps(s, t)
	switch {
	case isLatency(t.Metric):
		if len(ops) == 0 {
			r.Note = "no operation " + t.Arg + " in the run"
			return r
		}
		h, err := mergedCorrected(ops)
		if err != nil || h.TotalCount() == 0 {
			r.Note = "no latency recorded for " + t.Arg
			return r
		}
		r.Actual = latencyOf(h, t.Metric)
	case t.Metric == "utilisation":
		return utilisation(s, t)
	default:
		if len(ops) == 0 {
			r.Note = "no matching operation in the run"
			return r
		}
		if t.Window > 0 {
			return windowed(ops, t)
		}
		r.Actual, r.Injected = whole(ops, t)
	}
	r.Pass = compare(r.Actual, t.Cmp, t.Value)
	return r
}

func isLatency(m string) bool { return scenarios.IsLatencyMetric(m) }

// matchingOps are the load ops a criterion reads: of its workload (or all)
// and of its op kind (latency, throughput; counts and rates read every op).
func matchingOps(s *Summary, t scenarios.Threshold) []OpSummary {
	var ops []OpSummary
	for _, w := range s.Workloads {
		if t.Workload != "" && w.Name != t.Workload {
			continue
		}
		for _, o := range w.Ops {
			byOp := isLatency(t.Metric) || t.Metric == "throughput" || (outcomeOf(t) != "" && t.Metric != "rate" && t.Arg != "")
			if byOp && o.Op != t.Arg {
				continue
			}
			ops = append(ops, o)
		}
	}
	return ops
}

// mergedCorrected adds the ops' corrected-latency histograms: distributions
// are merged, never percentiles averaged.
func mergedCorrected(ops []OpSummary) (*hdrhistogram.Histogram, error) {
	sum := NewHistogram()
	for _, o := range ops {
		if o.Histograms == nil {
			continue
		}
		h, err := DecodeHistogram(o.Histograms.Corrected)
		if err != nil {
			return nil, err
		}
		sum.Merge(h)
	}
	return sum, nil
}

// latencyOf reads a metric from a microsecond histogram, in ms.
func latencyOf(h *hdrhistogram.Histogram, metric string) float64 {
	var us float64
	switch metric {
	case "max":
		us = float64(h.Max())
	case "mean":
		us = h.Mean()
	default:
		q, _ := scenarios.Percentile(metric)
		us = float64(h.ValueAtQuantile(q))
	}
	return us / 1000
}

// outcomeOf maps a count metric or a rate's argument to an outcome name.
func outcomeOf(t scenarios.Threshold) string {
	switch t.Metric {
	case "rate":
		return t.Arg
	case "throttled":
		return "throttled"
	case "errors":
		return "error"
	case "unknown":
		return "unknown"
	case "conflicts":
		return "conflict"
	}
	return ""
}

// whole measures a count, rate or throughput over the whole run, and says
// how many injected throttled answers it left out.
func whole(ops []OpSummary, t scenarios.Threshold) (float64, int64) {
	var n, total float64
	var injected int64
	throttling := outcomeOf(t) == checks.Throttled.String()
	for _, o := range ops {
		switch t.Metric {
		case "throughput":
			n += o.Rate
		default:
			n += float64(o.Outcomes[outcomeOf(t)])
			total += float64(o.Count)
			if throttling {
				injected += injectedIn(o, 0, len(o.InjectedPerSecond))
			}
		}
	}
	n -= float64(injected)
	if t.Metric == "rate" {
		if total == 0 {
			return 0, injected
		}
		return n / total, injected
	}
	return n, injected
}

// injectedIn is how many throttled answers of o faults injected in
// seconds [from, to).
func injectedIn(o OpSummary, from, to int) (n int64) {
	for i := from; i < to && i < len(o.InjectedPerSecond); i++ {
		n += o.InjectedPerSecond[i]
	}
	return n
}

// windowed measures every whole window of the run and keeps the worst.
func windowed(ops []OpSummary, t scenarios.Threshold) ThresholdResult {
	r := ThresholdResult{Threshold: t.Text}
	secs := 0
	first := -1
	for _, o := range ops {
		secs = max(secs, len(o.PerSecond))
		for i, c := range o.PerSecond {
			if c.Total() > 0 && (first < 0 || i < first) {
				first = i
			}
		}
	}
	w := int(t.Window / time.Second)
	if first < 0 || secs-first < w {
		r.Note = fmt.Sprintf("the run has no whole %v window", t.Window)
		return r
	}
	worst, worstAt, found := 0.0, 0, false
	var worstInjected int64
	throttling := t.Metric != "throughput" && outcomeOf(t) == checks.Throttled.String()
	for start := first; start+w <= secs; start += w {
		var n, total float64
		var injected int64
		for _, o := range ops {
			for i := start; i < start+w && i < len(o.PerSecond); i++ {
				c := o.PerSecond[i]
				switch t.Metric {
				case "throughput":
					n += float64(c[checks.OK] + c[checks.Conflict])
				default:
					n += float64(c[outcomeIndex(outcomeOf(t))])
					total += float64(c.Total())
				}
			}
			if throttling {
				injected += injectedIn(o, start, start+w)
			}
		}
		n -= float64(injected)
		v := n
		switch t.Metric {
		case "throughput":
			v = n / float64(w)
		case "rate":
			v = 0
			if total > 0 {
				v = n / total
			}
		}
		if !found || worse(v, worst, t.Cmp) {
			worst, worstAt, found = v, start, true
			worstInjected = injected
		}
	}
	r.Actual, r.Injected = worst, worstInjected
	r.Window = fmt.Sprintf("%ds-%ds", worstAt, worstAt+w)
	r.Pass = compare(worst, t.Cmp, t.Value)
	return r
}

func outcomeIndex(name string) checks.Outcome {
	o, _ := checks.ParseOutcome(name) // validated when the scenario loaded
	return o
}

// worse reports whether v is further on the failing side than w.
func worse(v, w float64, cmp string) bool {
	switch cmp {
	case ">", ">=":
		return v < w
	case "==":
		return math.Abs(v) > math.Abs(w)
	}
	return v > w
}

// utilisation is the busiest unit's peak second over its target (or, with
// a window, its busiest window's mean rate over the target).
func utilisation(s *Summary, t scenarios.Threshold) ThresholdResult {
	r := ThresholdResult{Threshold: t.Text}
	found := false
	for _, u := range s.Units {
		if string(u.Kind) != t.Arg || (t.Workload != "" && u.Workload != t.Workload) || u.Target <= 0 {
			continue
		}
		v, at := u.Utilisation, int(u.PeakSecond)
		if t.Window > 0 {
			v, at = unitWindow(u, int(t.Window/time.Second))
		}
		if !found || v > r.Actual {
			r.Actual, found = v, true
			if t.Window > 0 {
				r.Window = fmt.Sprintf("%ds-%ds (%s %s)", at, at+int(t.Window/time.Second), u.Kind, u.Name)
			} else {
				r.Window = fmt.Sprintf("%ds (%s %s)", at, u.Kind, u.Name)
			}
		}
	}
	if !found {
		r.Note = "no " + t.Arg + " with a target in the run"
		return r
	}
	r.Pass = compare(r.Actual, t.Cmp, t.Value)
	return r
}

// unitWindow is a unit's busiest window of w seconds, as a share of its
// target.
func unitWindow(u UnitSummary, w int) (float64, int) {
	best, at := 0.0, 0
	for start := 0; start+w <= len(u.PerSecond); start++ {
		var n int64
		for _, c := range u.PerSecond[start : start+w] {
			n += c
		}
		if v := float64(n) / float64(w) / u.Target; v > best {
			best, at = v, start
		}
	}
	return best, at
}

func compare(v float64, cmp string, limit float64) bool {
	switch cmp {
	case "<":
		return v < limit
	case "<=":
		return v <= limit
	case ">":
		return v > limit
	case ">=":
		return v >= limit
	case "==":
		return v == limit
	}
	return false
}
