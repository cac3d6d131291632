package scenarios

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// percentileRe is a percentile metric: p95, p99.9, p99.99.
var percentileRe = regexp.MustCompile(`^p[0-9]+(\.[0-9]+)?$`)

// Percentile reads a percentile metric ("p95" → 95, "p99.9" → 99.9); ok
// is false for anything else, or a percentile outside (0, 100].
func Percentile(metric string) (q float64, ok bool) {
	if !percentileRe.MatchString(metric) {
		return 0, false
	}
	q, err := strconv.ParseFloat(metric[1:], 64)
	return q, err == nil && q > 0 && q <= 100
}

// IsLatencyMetric reports whether a threshold metric reads a latency
// distribution: any percentile the reports print (p50, p90, p95, p99,
// p99.9, p99.99, ...), max or mean.
func IsLatencyMetric(metric string) bool {
	if metric == "max" || metric == "mean" {
		return true
	}
	_, ok := Percentile(metric)
	return ok
}

// canonicalMetric spells a metric one way: utilization as utilisation,
// p999 and p9999 as p99.9 and p99.99, p100 as max.
func canonicalMetric(metric string) string {
	switch metric {
	case "utilization":
		return "utilisation"
	case "p999":
		return "p99.9"
	case "p9999":
		return "p99.99"
	}
	if q, ok := Percentile(metric); ok && q == 100 {
		return "max"
	}
	return metric
}

// unknownOp says why a threshold's op is not one its workloads record ("":
// it is, or there is nothing to check it against).
func (s *Scenario) unknownOp(t Threshold) string {
	if t.Arg == "" || !(IsLatencyMetric(t.Metric) || t.Metric == "throughput" || contains(countMetrics, t.Metric)) {
		return ""
	}
	var ops, whose []string
	for _, w := range s.Workloads {
		if t.Workload != "" && w.Name != t.Workload {
			continue
		}
		spec, ok := Kinds[w.Kind]
		if !ok {
			return "" // an unknown kind is reported on its own
		}
		if KindEmits(w.Kind, t.Arg) {
			return ""
		}
		whose = append(whose, w.Name+" ("+w.Kind+")")
		for _, op := range spec.Ops {
			if !contains(ops, op) {
				ops = append(ops, op)
			}
		}
	}
	if len(whose) == 0 {
		return ""
	}
	sort.Strings(ops)
	verb := "record"
	if len(whose) == 1 {
		verb = "records"
	}
	return fmt.Sprintf("%q: no op %q in %s, which %s %s%s; 'stormcheck kinds KIND' lists a kind's ops",
		t.Text, t.Arg, strings.Join(whose, ", "), verb, strings.Join(ops, ", "), didYouMean(t.Arg, ops))
}
