package scenarios

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Threshold metrics by family.
var (
	latencyMetrics = []string{"p50", "p90", "p95", "p99", "p99.9", "p99.99", "max", "mean"} // examples: any percentile is one
	countMetrics   = []string{"throttled", "errors", "unknown", "conflicts"}
	outcomeNames   = []string{"ok", "conflict", "throttled", "error", "unknown"}
	unitKinds      = []string{"blob", "partition", "queue", "account"}
	comparators    = []string{"<=", ">=", "==", "<", ">"}
	// thresholdFields are the fields of a threshold written as a mapping.
	thresholdFields = []string{"threshold", "abort_on_fail", "delay_abort_eval"}
)

// thresholdSyntax is what every threshold error shows.
const thresholdSyntax = `a criterion "METRIC(ARG) OP VALUE [over WINDOW]", e.g. "p99(blob.put) < 50ms", "rate(conflict) < 0.9", "throttled == 0", "utilisation(partition) < 0.8", "throughput(counter/blob.put) > 100 over 5s"; metrics: any percentile pN with 0 < N ≤ 100 (p50, p90, p95, p99, p99.9, p99.99; p100 is max), max, mean (latency of an op, ms, from the intended start), rate (share of attempts with an outcome), throughput (ok+conflict per second of an op), utilisation (busiest unit's peak second over its target: blob, partition, queue or account), throttled, errors, unknown, conflicts (counts, of a workload or an op when given one); ARG may start with a workload name and "/"`

var thresholdRe = regexp.MustCompile(`^\s*([a-z][a-z0-9.]*)\s*(?:\(\s*([^()]*?)\s*\))?\s*(<=|>=|==|<|>)\s*([^ ]+(?:\s*/s)?)(?:\s+over\s+(\S+))?\s*$`)

// thresholds decodes the list of criteria.
func (d *decoder) thresholds(n *yaml.Node, s *Scenario) {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, "thresholds", "must be a list of criteria, each %s; got %s", thresholdSyntax, describe(n))
		return
	}
	for i, item := range n.Content {
		item = resolve(item)
		path := index("thresholds", i)
		var abort abortSettings
		textNode := item
		if item.Kind == yaml.MappingNode {
			var ok bool
			if textNode, abort, ok = d.thresholdMapping(item, path); !ok {
				continue
			}
			path += ".threshold"
		}
		text, ok := d.str(textNode, path)
		if !ok {
			continue
		}
		t, msg := parseThreshold(text, s)
		if msg != "" {
			d.errorf(textNode, path, "%s; want %s", msg, thresholdSyntax)
			continue
		}
		if abort.on && t.Metric == "utilisation" {
			d.errorf(item, index("thresholds", i)+".abort_on_fail", "utilisation is measured after the run (from every unit's seconds); abort_on_fail watches latencies, rates, counts and throughput")
			continue
		}
		t.Line = textNode.Line
		t.AbortOnFail, t.AbortDelay = abort.on, abort.delay
		s.Thresholds = append(s.Thresholds, t)
	}
}

// abortSettings are a threshold's abort_on_fail and delay_abort_eval.
type abortSettings struct {
	on    bool
	delay time.Duration
}

// thresholdMapping reads {threshold: TEXT, abort_on_fail: BOOL,
// delay_abort_eval: DURATION}: the node holding the text and the settings.
func (d *decoder) thresholdMapping(n *yaml.Node, path string) (*yaml.Node, abortSettings, bool) {
	var a abortSettings
	fs, ok := d.mapping(n, path, "threshold settings ("+strings.Join(thresholdFields, ", ")+")")
	if !ok {
		return nil, a, false
	}
	d.allow(fs, path, thresholdFields, nil)
	text, ok := fs["threshold"]
	if !ok {
		d.errorf(n, path+".threshold", "required: the criterion, %s", thresholdSyntax)
		return nil, a, false
	}
	if p, ok := fs["abort_on_fail"]; ok {
		if p.val.Kind == yaml.ScalarNode && p.val.ShortTag() == "!!bool" {
			a.on = p.val.Value == "true"
		} else {
			d.errorf(p.val, path+".abort_on_fail", "must be true or false, got %s", describe(p.val))
		}
	}
	if p, ok := fs["delay_abort_eval"]; ok {
		a.delay, _ = d.duration(p.val, path+".delay_abort_eval", 0, false)
		if !a.on {
			d.errorf(p.val, path+".delay_abort_eval", "applies only with abort_on_fail: true")
		}
	}
	return text.val, a, true
}

// parseThreshold reads one criterion; msg says what is wrong with it.
func parseThreshold(text string, s *Scenario) (t Threshold, msg string) {
	t.Text = strings.TrimSpace(text)
	m := thresholdRe.FindStringSubmatch(text)
	if m == nil {
		return t, fmt.Sprintf("cannot read %q", text)
	}
	metric, arg, cmp, value, window := m[1], m[2], m[3], m[4], m[5]
	metric = canonicalMetric(metric)
	t.Metric, t.Cmp = metric, cmp
	if w, rest, ok := strings.Cut(arg, "/"); ok {
		if !s.hasWorkload(w) {
			return t, fmt.Sprintf("%q names workload %q, which this scenario does not have", text, w)
		}
		t.Workload, arg = w, rest
	}
	t.Arg = arg
	var err error
	switch {
	case IsLatencyMetric(metric):
		if arg == "" {
			return t, fmt.Sprintf("%s needs the op it measures, e.g. %s(blob.put)", metric, metric)
		}
		var d time.Duration
		d, err = time.ParseDuration(value)
		if err != nil {
			return t, fmt.Sprintf("%q: a latency threshold is a duration with a unit, e.g. 50ms, got %q", text, value)
		}
		t.Value = float64(d) / float64(time.Millisecond)
	case metric == "rate":
		if !contains(outcomeNames, arg) {
			return t, fmt.Sprintf("rate needs an outcome (%s), got %q", strings.Join(outcomeNames, ", "), arg)
		}
		t.Value, err = fraction(value)
	case metric == "utilisation":
		if !contains(unitKinds, arg) {
			return t, fmt.Sprintf("utilisation needs a unit kind (%s), got %q", strings.Join(unitKinds, ", "), arg)
		}
		t.Value, err = fraction(value)
	case metric == "throughput":
		if arg == "" {
			return t, "throughput needs the op it measures, e.g. throughput(blob.put)"
		}
		t.Value, err = strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(value, "/s")), 64)
	case contains(countMetrics, metric):
		// throttled(hashed) counts one workload; throttled(blob.put) one op.
		if t.Workload == "" && s.hasWorkload(arg) {
			t.Workload, t.Arg = arg, ""
		}
		t.Value, err = strconv.ParseFloat(value, 64)
	case percentileRe.MatchString(metric):
		return t, fmt.Sprintf("%q: a percentile is pN with 0 < N ≤ 100, e.g. p95 or p99.9, got %s", text, metric)
	default:
		return t, fmt.Sprintf("unknown metric %q%s", metric, didYouMean(metric, append(append([]string{"rate", "utilisation", "throughput"}, latencyMetrics...), countMetrics...)))
	}
	if err != nil {
		return t, fmt.Sprintf("%q: cannot read the value %q", text, value)
	}
	if msg := s.unknownOp(t); msg != "" {
		return t, msg
	}
	if window != "" {
		if IsLatencyMetric(metric) {
			return t, fmt.Sprintf("%q: windows apply to rates, counts, throughput and utilisation; a latency threshold covers the whole run", text)
		}
		w, werr := time.ParseDuration(window)
		if werr != nil || w < time.Second || w%time.Second != 0 {
			return t, fmt.Sprintf("%q: the window is whole seconds, e.g. over 10s, got %q", text, window)
		}
		t.Window = w
	}
	return t, ""
}

// fraction reads 0.8 or 80%.
func fraction(s string) (float64, error) {
	if p, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(p, 64)
		return v / 100, err
	}
	return strconv.ParseFloat(s, 64)
}

func (s *Scenario) hasWorkload(name string) bool {
	for _, w := range s.Workloads {
		if w.Name == name {
			return true
		}
	}
	return false
}
