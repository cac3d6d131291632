package scenarios

import (
	"strings"
	"testing"
	"time"
)

func TestThresholdsAndCapacity(t *testing.T) {
	s, err := Parse("t.yaml", []byte(`
name: t
duration: 5s
workloads:
  - {name: counter, kind: blob.etag-counter}
capacity:
  scale: 0.1
  targets: {partition: 300}
emulation: {throttle: true, warmup: 10s, delay: 20ms}
thresholds:
  - p99(blob.put) < 50ms
  - p99.9(counter/blob.get) <= 1s
  - rate(conflict) < 90%
  - throttled == 0
  - utilization(partition) < 0.8
  - throughput(counter/blob.put) > 100/s over 5s
compare: {tolerance: 0}
`))
	if err != nil {
		t.Fatal(err)
	}
	c := s.Capacity
	if c.Blob != 50 || c.Partition != 300 || c.Queue != 200 || c.Account != 2000 || c.Scale != 0.1 {
		t.Errorf("capacity: %+v (scaled profile, override unscaled)", c)
	}
	if e := s.Emulation; e == nil || !e.Throttle || e.Warmup != 10*time.Second || e.Delay != 20*time.Millisecond || e.Burst != time.Second {
		t.Errorf("emulation: %+v", e)
	}
	if !s.Compare.ToleranceSet || s.Compare.Tolerance != 0 {
		t.Errorf("compare: %+v", s.Compare)
	}
	want := []Threshold{
		{Metric: "p99", Arg: "blob.put", Cmp: "<", Value: 50},
		{Metric: "p99.9", Workload: "counter", Arg: "blob.get", Cmp: "<=", Value: 1000},
		{Metric: "rate", Arg: "conflict", Cmp: "<", Value: 0.9},
		{Metric: "throttled", Cmp: "==", Value: 0},
		{Metric: "utilisation", Arg: "partition", Cmp: "<", Value: 0.8},
		{Metric: "throughput", Workload: "counter", Arg: "blob.put", Cmp: ">", Value: 100, Window: 5 * time.Second},
	}
	if len(s.Thresholds) != len(want) {
		t.Fatalf("thresholds: %+v", s.Thresholds)
	}
	for i, w := range want {
		g := s.Thresholds[i]
		g.Text, g.Line = "", 0
		if g != w {
			t.Errorf("threshold %d: got %+v, want %+v", i, g, w)
		}
	}
	if s.Thresholds[0].Line != 11 || s.Thresholds[0].Text != "p99(blob.put) < 50ms" {
		t.Errorf("text/line: %+v", s.Thresholds[0])
	}
}

// TestEveryPrintedPercentile: any percentile the reports print is a
// threshold metric, spelt one way.
func TestEveryPrintedPercentile(t *testing.T) {
	for text, metric := range map[string]string{
		"p50(blob.put) < 5ms": "p50", "p95(blob.put) < 5ms": "p95", "p98(blob.get) < 5ms": "p98",
		"p99.99(blob.put) < 5ms": "p99.99", "p9999(blob.put) < 5ms": "p99.99", "p999(blob.put) < 5ms": "p99.9",
		"p100(blob.put) < 5ms": "max", "max(counter/blob.put) < 5ms": "max", "mean(blob.put) < 5ms": "mean",
		"errors(blob.get) == 0": "errors",
	} {
		s, err := Parse("t.yaml", []byte("name: t\nduration: 5s\nworkloads:\n  - {name: counter, kind: blob.etag-counter}\nthresholds:\n  - \""+text+"\"\n"))
		if err != nil {
			t.Errorf("%q: %v", text, err)
			continue
		}
		if g := s.Thresholds[0].Metric; g != metric {
			t.Errorf("%q: metric %q, want %q", text, g, metric)
		}
	}
}

func TestBadThresholds(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"p99(blob.put) < 50", "a latency threshold is a duration with a unit"},
		{"p99 < 50ms", "p99 needs the op it measures"},
		{"rate(conflicts) < 0.5", `rate needs an outcome (ok, conflict, throttled, error, unknown), got "conflicts"`},
		{"utilisation(table) < 0.8", "utilisation needs a unit kind"},
		{"p0(blob.put) < 5ms", `a percentile is pN with 0 < N ≤ 100, e.g. p95 or p99.9, got p0`},
		{"p100.5(blob.put) < 5ms", `a percentile is pN with 0 < N ≤ 100`},
		{"pp95(blob.put) < 5ms", `unknown metric "pp95" (did you mean "p95"?)`},
		{"p95(blob.putt) < 5ms", `no op "blob.putt" in counter (blob.etag-counter), which records blob.get, blob.put (did you mean "blob.put"?)`},
		{"throughput(counter/queue.put) > 5", `no op "queue.put" in counter (blob.etag-counter)`},
		{"throttled(blob.lease.acquire) == 0", `no op "blob.lease.acquire"`},
		{"throttled = 0", `cannot read "throttled = 0"`},
		{"p99(other/blob.put) < 5ms", `names workload "other", which this scenario does not have`},
		{"p99(blob.put) < 5ms over 10s", "a latency threshold covers the whole run"},
		{"throttled == 0 over 1500ms", "the window is whole seconds"},
	} {
		_, err := Parse("t.yaml", []byte("name: t\nduration: 5s\nworkloads:\n  - {name: counter, kind: blob.etag-counter}\nthresholds:\n  - \""+c.line+"\"\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "t.yaml:6:5: thresholds[0]") {
			t.Errorf("%q: got %v, want %q at t.yaml:6:5", c.line, err, c.want)
		}
	}
}

// TestAbortOnFailThresholds: the mapping form sets abort_on_fail and its
// delay; what it cannot watch, or a delay without it, is refused.
func TestAbortOnFailThresholds(t *testing.T) {
	head := "name: t\nduration: 5s\nworkloads:\n  - {name: counter, kind: blob.etag-counter}\nthresholds:\n"
	s, err := Parse("t.yaml", []byte(head+"  - {threshold: \"errors == 0\", abort_on_fail: true, delay_abort_eval: 10s}\n  - p95(blob.put) < 5ms\n"))
	if err != nil {
		t.Fatal(err)
	}
	if g := s.Thresholds[0]; !g.AbortOnFail || g.AbortDelay != 10*time.Second || g.Metric != "errors" || g.Text != "errors == 0" || g.Line != 6 {
		t.Errorf("mapping form: %+v", g)
	}
	if g := s.Thresholds[1]; g.AbortOnFail || g.Metric != "p95" {
		t.Errorf("string form: %+v", g)
	}
	for _, c := range []struct{ item, want string }{
		{`{threshold: "utilisation(partition) < 0.8", abort_on_fail: true}`, "thresholds[0].abort_on_fail: utilisation is measured after the run"},
		{`{threshold: "errors == 0", delay_abort_eval: 5s}`, "thresholds[0].delay_abort_eval: applies only with abort_on_fail: true"},
		{`{threshold: "errors == 0", abort_on_fail: yes please}`, "thresholds[0].abort_on_fail: must be true or false"},
		{`{abort_on_fail: true}`, "thresholds[0].threshold: required"},
		{`{threshold: "errors == 0", abort_on_fial: true}`, `abort_on_fial`},
		{`{threshold: "p95(blob.pt) < 5ms", abort_on_fail: true}`, `thresholds[0].threshold: "p95(blob.pt) < 5ms": no op "blob.pt"`},
	} {
		_, err := Parse("t.yaml", []byte(head+"  - "+c.item+"\n"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.item, err, c.want)
		}
	}
}
