package metricsexport

import (
	"context"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// scrape GETs a /metrics URL the way Prometheus does and parses the text
// exposition with Prometheus's own parser.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("scrape: %s: %s", resp.Status, b)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse the scrape: %v", err)
	}
	return fams
}

// find returns the metric of family name whose labels include want.
func find(fams map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	f := fams[name]
	if f == nil {
		return nil
	}
next:
	for _, m := range f.GetMetric() {
		got := map[string]string{}
		for _, l := range m.GetLabel() {
			got[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if got[k] != v {
				continue next
			}
		}
		return m
	}
	return nil
}

func TestPrometheusScrape(t *testing.T) {
	p, err := NewPrometheus("127.0.0.1:0", "fixture")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())

	// Before the run's metrics exist the endpoint answers, with nothing.
	for name := range scrape(t, p.URL()) {
		if strings.HasPrefix(name, "stormcheck_") {
			t.Errorf("before Attach the scrape has %s", name)
		}
	}

	p.Attach(recordFixture(t))
	fams := scrape(t, p.URL())

	counter := func(name string, labels map[string]string) float64 {
		t.Helper()
		m := find(fams, name, labels)
		if m == nil {
			t.Fatalf("%s%v: not in the scrape", name, labels)
		}
		if m.GetCounter() != nil {
			return m.GetCounter().GetValue()
		}
		return m.GetGauge().GetValue()
	}
	for _, c := range []struct {
		name   string
		labels map[string]string
		want   float64
	}{
		{NameOperations, map[string]string{"scenario": "fixture", "workload": "counter", "op": "blob.get", "outcome": "ok"}, 10},
		{NameOperations, map[string]string{"workload": "counter", "op": "blob.put", "outcome": "ok"}, 6},
		{NameOperations, map[string]string{"workload": "counter", "op": "blob.put", "outcome": "conflict"}, 4},
		{NameOperations, map[string]string{"workload": "counter", "op": "blob.put", "outcome": "error"}, 0},
		{NameOperations, map[string]string{"workload": "mutex", "op": "blob.lease.acquire", "outcome": "unknown"}, 1},
		{NameResponses, map[string]string{"workload": "counter", "op": "blob.put", "status": "412", "error_code": "ConditionNotMet"}, 4},
		{NameResponses, map[string]string{"workload": "counter", "op": "blob.put", "status": "201", "error_code": ""}, 6},
		{NameResponses, map[string]string{"workload": "mutex", "op": "blob.lease.acquire", "status": "409", "error_code": "LeaseAlreadyPresent"}, 3},
		{NameResponses, map[string]string{"workload": "mutex", "op": "blob.lease.acquire", "status": "0"}, 1},
		{NameAchieved, map[string]string{"workload": "counter", "goal": "increments"}, 6},
		{NameAchieved, map[string]string{"workload": "mutex", "goal": "increments"}, 0},
	} {
		if got := counter(c.name, c.labels); got != c.want {
			t.Errorf("%s%v = %v, want %v", c.name, c.labels, got, c.want)
		}
	}
	if n := len(fams[NameResponses].GetMetric()); n != 5 {
		t.Errorf("%d response series, want 5 (200, 201, 412, 409, none)", n)
	}
	if got := fams[NameOperations].GetType(); got != dto.MetricType_COUNTER {
		t.Errorf("%s is a %v", NameOperations, got)
	}
	if got := fams[NameInFlight].GetType(); got != dto.MetricType_GAUGE {
		t.Errorf("%s is a %v", NameInFlight, got)
	}

	h := find(fams, NameDuration, map[string]string{"workload": "counter", "op": "blob.get", "outcome": "ok"})
	if h == nil || h.GetHistogram() == nil {
		t.Fatalf("%s for blob.get ok: not in the scrape", NameDuration)
	}
	if got := h.GetHistogram().GetSampleCount(); got != 10 {
		t.Errorf("blob.get latency count %d, want 10", got)
	}
	if got := h.GetHistogram().GetSampleSum(); math.Abs(got-0.020) > 1e-9 {
		t.Errorf("blob.get latency sum %v s, want 0.020", got)
	}
	buckets := map[float64]uint64{}
	for _, b := range h.GetHistogram().GetBucket() {
		buckets[b.GetUpperBound()] = b.GetCumulativeCount()
	}
	if buckets[0.001] != 0 || buckets[0.0025] != 10 || buckets[10] != 10 {
		t.Errorf("blob.get buckets %v: want 0 at 1 ms, 10 from 2.5 ms", buckets)
	}
	slow := find(fams, NameDuration, map[string]string{"workload": "mutex", "outcome": "unknown"})
	if slow == nil {
		t.Fatal("the unknown attempt's latency is not in the scrape")
	}
	for _, b := range slow.GetHistogram().GetBucket() {
		want := uint64(0)
		if b.GetUpperBound() >= 5 {
			want = 1
		}
		if b.GetCumulativeCount() != want {
			t.Errorf("3 s attempt: bucket le=%v holds %d, want %d", b.GetUpperBound(), b.GetCumulativeCount(), want)
		}
	}
}

func TestPrometheusRefusesABusyAddress(t *testing.T) {
	p, err := NewPrometheus("127.0.0.1:0", "a")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close(context.Background())
	if _, err := NewPrometheus(p.Addr(), "b"); err == nil || !strings.Contains(err.Error(), "prometheus endpoint") {
		t.Errorf("second endpoint on %s: err %v, want an address-in-use error", p.Addr(), err)
	}
}
