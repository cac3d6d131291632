package metricsexport

import (
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	colmetricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// receiver is an in-process OTLP metrics receiver: it keeps every export
// request it decoded from the real protobuf payload.
type receiver struct {
	mu   sync.Mutex
	reqs []*colmetricspb.ExportMetricsServiceRequest
	errs []string
}

func (r *receiver) add(req *colmetricspb.ExportMetricsServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
}

func (r *receiver) fail(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, msg)
}

// last is the latest request and how many came.
func (r *receiver) last(t *testing.T) (*colmetricspb.ExportMetricsServiceRequest, int) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.errs {
		t.Errorf("receiver: %s", e)
	}
	if len(r.reqs) == 0 {
		t.Fatal("the receiver got no export")
	}
	return r.reqs[len(r.reqs)-1], len(r.reqs)
}

// ServeHTTP is OTLP/HTTP with protobuf bodies (gzip or not).
func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != "/v1/metrics" || req.Method != http.MethodPost {
		r.fail(req.Method + " " + req.URL.Path)
		http.NotFound(w, req)
		return
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		r.fail("content type " + ct)
	}
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			r.fail(err.Error())
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	b, err := io.ReadAll(body)
	if err != nil {
		r.fail(err.Error())
		return
	}
	msg := &colmetricspb.ExportMetricsServiceRequest{}
	if err := proto.Unmarshal(b, msg); err != nil {
		r.fail("decode: " + err.Error())
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.add(msg)
	out, _ := proto.Marshal(&colmetricspb.ExportMetricsServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// grpcReceiver is the same receiver as an OTLP/gRPC MetricsService.
type grpcReceiver struct {
	colmetricspb.UnimplementedMetricsServiceServer
	r *receiver
}

func (g grpcReceiver) Export(_ context.Context, req *colmetricspb.ExportMetricsServiceRequest) (*colmetricspb.ExportMetricsServiceResponse, error) {
	g.r.add(req)
	return &colmetricspb.ExportMetricsServiceResponse{}, nil
}

// startHTTPReceiver serves OTLP/HTTP on a free loopback port.
func startHTTPReceiver(t *testing.T) (*receiver, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &receiver{}
	srv := &http.Server{Handler: r}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return r, "http://" + ln.Addr().String()
}

// points indexes an export's data by metric name.
type points struct {
	sums   map[string][]*metricspb.NumberDataPoint
	gauges map[string][]*metricspb.NumberDataPoint
	hists  map[string][]*metricspb.HistogramDataPoint
	units  map[string]string
	res    map[string]string
}

func pointsOf(req *colmetricspb.ExportMetricsServiceRequest) points {
	p := points{sums: map[string][]*metricspb.NumberDataPoint{}, gauges: map[string][]*metricspb.NumberDataPoint{},
		hists: map[string][]*metricspb.HistogramDataPoint{}, units: map[string]string{}, res: map[string]string{}}
	for _, rm := range req.GetResourceMetrics() {
		for _, kv := range rm.GetResource().GetAttributes() {
			p.res[kv.GetKey()] = kv.GetValue().GetStringValue()
		}
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				p.units[m.GetName()] = m.GetUnit()
				switch d := m.GetData().(type) {
				case *metricspb.Metric_Sum:
					if !d.Sum.GetIsMonotonic() || d.Sum.GetAggregationTemporality() != metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE {
						p.units[m.GetName()] = "NOT A CUMULATIVE MONOTONIC SUM"
					}
					p.sums[m.GetName()] = append(p.sums[m.GetName()], d.Sum.GetDataPoints()...)
				case *metricspb.Metric_Gauge:
					p.gauges[m.GetName()] = append(p.gauges[m.GetName()], d.Gauge.GetDataPoints()...)
				case *metricspb.Metric_Histogram:
					p.hists[m.GetName()] = append(p.hists[m.GetName()], d.Histogram.GetDataPoints()...)
				}
			}
		}
	}
	return p
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		out[kv.GetKey()] = kv.GetValue().GetStringValue()
	}
	return out
}

func matches(got, want map[string]string) bool {
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

func sumValue(t *testing.T, p points, name string, want map[string]string) int64 {
	t.Helper()
	for _, dp := range p.sums[name] {
		if matches(attrs(dp.GetAttributes()), want) {
			return dp.GetAsInt()
		}
	}
	t.Fatalf("%s%v: not exported", name, want)
	return 0
}

// checkFixtureExport checks an export of recordFixture's metrics.
func checkFixtureExport(t *testing.T, p points) {
	t.Helper()
	if p.res["service.name"] != "stormcheck" || p.res["stormcheck.scenario"] != "fixture" {
		t.Errorf("resource %v", p.res)
	}
	for _, c := range []struct {
		name string
		want map[string]string
		n    int64
	}{
		{"stormcheck.operations", map[string]string{"scenario": "fixture", "workload": "counter", "op": "blob.put", "outcome": "conflict"}, 4},
		{"stormcheck.operations", map[string]string{"workload": "counter", "op": "blob.get", "outcome": "ok"}, 10},
		{"stormcheck.responses", map[string]string{"workload": "counter", "op": "blob.put", "status": "412", "error_code": "ConditionNotMet"}, 4},
		{"stormcheck.responses", map[string]string{"workload": "mutex", "status": "409", "error_code": "LeaseAlreadyPresent"}, 3},
		{"stormcheck.responses", map[string]string{"workload": "mutex", "status": "0"}, 1},
		{"stormcheck.achieved", map[string]string{"workload": "counter", "goal": "increments"}, 6},
	} {
		if got := sumValue(t, p, c.name, c.want); got != c.n {
			t.Errorf("%s%v = %d, want %d", c.name, c.want, got, c.n)
		}
	}
	if p.units["stormcheck.operation.duration"] != "s" {
		t.Errorf("duration unit %q, want s", p.units["stormcheck.operation.duration"])
	}
	found := false
	for _, h := range p.hists["stormcheck.operation.duration"] {
		if !matches(attrs(h.GetAttributes()), map[string]string{"workload": "counter", "op": "blob.put", "outcome": "ok"}) {
			continue
		}
		found = true
		// 6 attempts of 30 ms: all in the (25 ms, 50 ms] bucket.
		if h.GetCount() != 6 || len(h.GetBucketCounts()) != len(h.GetExplicitBounds())+1 {
			t.Errorf("blob.put ok histogram: count %d, %d buckets for %d bounds", h.GetCount(), len(h.GetBucketCounts()), len(h.GetExplicitBounds()))
		}
		for i, n := range h.GetBucketCounts() {
			want := uint64(0)
			if i < len(h.GetExplicitBounds()) && h.GetExplicitBounds()[i] == 0.05 {
				want = 6
			}
			if n != want {
				t.Errorf("blob.put ok bucket %d holds %d, want %d", i, n, want)
			}
		}
		if h.GetStartTimeUnixNano() == 0 || h.GetTimeUnixNano() <= h.GetStartTimeUnixNano() {
			t.Errorf("histogram times start %d, now %d", h.GetStartTimeUnixNano(), h.GetTimeUnixNano())
		}
	}
	if !found {
		t.Error("no latency histogram for counter blob.put ok")
	}
	if len(p.gauges["stormcheck.calls_in_flight"]) != 2 {
		t.Errorf("in-flight gauges: %v", p.gauges["stormcheck.calls_in_flight"])
	}
}

func TestOTLPHTTPExport(t *testing.T) {
	r, url := startHTTPReceiver(t)
	ctx := context.Background()
	o, err := NewOTLP(ctx, OTLPOptions{Endpoint: url, Interval: time.Hour, Scenario: "fixture"})
	if err != nil {
		t.Fatal(err)
	}
	o.Attach(recordFixture(t))
	// The interval is an hour: the only export is the one Close makes,
	// as at the end of a run.
	if err := o.Close(ctx); err != nil {
		t.Fatalf("close (final export): %v", err)
	}
	req, _ := r.last(t)
	checkFixtureExport(t, pointsOf(req))
}

func TestOTLPGRPCExport(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &receiver{}
	srv := grpc.NewServer()
	colmetricspb.RegisterMetricsServiceServer(srv, grpcReceiver{r: r})
	go srv.Serve(ln)
	defer srv.Stop()

	ctx := context.Background()
	o, err := NewOTLP(ctx, OTLPOptions{Endpoint: "http://" + ln.Addr().String(), Protocol: ProtocolGRPC, Interval: time.Hour, Scenario: "fixture"})
	if err != nil {
		t.Fatal(err)
	}
	o.Attach(recordFixture(t))
	if err := o.Flush(ctx); err != nil {
		t.Fatalf("flush: %v", err)
	}
	if err := o.Close(ctx); err != nil {
		t.Fatalf("close: %v", err)
	}
	req, n := r.last(t)
	if n != 2 {
		t.Errorf("%d exports, want 2 (flush, close)", n)
	}
	checkFixtureExport(t, pointsOf(req))
}

func TestOTLPRefusesBadEndpoints(t *testing.T) {
	for _, c := range []struct{ endpoint, protocol, want string }{
		{"127.0.0.1:4318", "", "want a URL"},
		{"ftp://127.0.0.1:4318", "", "want a URL"},
		{"http://127.0.0.1:4318", "thrift", `allowed: http/protobuf, grpc`},
	} {
		_, err := NewOTLP(context.Background(), OTLPOptions{Endpoint: c.endpoint, Protocol: c.protocol})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: err %v, want %q", c.endpoint, c.protocol, err, c.want)
		}
	}
}
