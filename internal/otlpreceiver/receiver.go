// Package otlpreceiver is an in-process OTLP metrics receiver for tests: an
// OTLP/HTTP server and an OTLP/gRPC MetricsService on free loopback ports
// that decode the real protobuf payloads and keep every export request.
package otlpreceiver

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"

	colmetricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// Receiver keeps every export request it decoded, and every problem it saw
// with one (wrong path, content type, undecodable body).
type Receiver struct {
	mu       sync.Mutex
	reqs     []*colmetricspb.ExportMetricsServiceRequest
	headers  []http.Header // of each OTLP/HTTP request
	problems []string
	stop     func()
}

func (r *Receiver) add(req *colmetricspb.ExportMetricsServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
}

func (r *Receiver) problem(format string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.problems = append(r.problems, fmt.Sprintf(format, a...))
}

// Requests returns the export requests received so far, and the problems.
func (r *Receiver) Requests() ([]*colmetricspb.ExportMetricsServiceRequest, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*colmetricspb.ExportMetricsServiceRequest(nil), r.reqs...), append([]string(nil), r.problems...)
}

// Headers returns the headers of each OTLP/HTTP request received.
func (r *Receiver) Headers() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]http.Header(nil), r.headers...)
}

// Close stops the server.
func (r *Receiver) Close() { r.stop() }

// ServeHTTP is OTLP/HTTP with protobuf bodies, gzip or not.
func (r *Receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != "/v1/metrics" || req.Method != http.MethodPost {
		r.problem("%s %s", req.Method, req.URL.Path)
		http.NotFound(w, req)
		return
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		r.problem("content type %q", ct)
	}
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			r.problem("gzip: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = zr
	}
	b, err := io.ReadAll(body)
	if err != nil {
		r.problem("read: %v", err)
		return
	}
	msg := &colmetricspb.ExportMetricsServiceRequest{}
	if err := proto.Unmarshal(b, msg); err != nil {
		r.problem("decode: %v", err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.add(msg)
	r.mu.Lock()
	r.headers = append(r.headers, req.Header.Clone())
	r.mu.Unlock()
	out, _ := proto.Marshal(&colmetricspb.ExportMetricsServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// StartHTTP serves OTLP/HTTP on a free loopback port and returns the
// receiver and its base URL (http://127.0.0.1:PORT).
func StartHTTP() (*Receiver, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	r := &Receiver{}
	srv := &http.Server{Handler: r}
	go srv.Serve(ln)
	r.stop = func() { srv.Close() }
	return r, "http://" + ln.Addr().String(), nil
}

type grpcService struct {
	colmetricspb.UnimplementedMetricsServiceServer
	r *Receiver
}

func (g grpcService) Export(_ context.Context, req *colmetricspb.ExportMetricsServiceRequest) (*colmetricspb.ExportMetricsServiceResponse, error) {
	g.r.add(req)
	return &colmetricspb.ExportMetricsServiceResponse{}, nil
}

// StartGRPC serves the OTLP/gRPC MetricsService on a free loopback port
// and returns the receiver and its URL (http://127.0.0.1:PORT).
func StartGRPC() (*Receiver, string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	r := &Receiver{}
	srv := grpc.NewServer()
	colmetricspb.RegisterMetricsServiceServer(srv, grpcService{r: r})
	go srv.Serve(ln)
	r.stop = srv.Stop
	return r, "http://" + ln.Addr().String(), nil
}

// Points indexes one export request's data by metric name.
type Points struct {
	Sums      map[string][]*metricspb.NumberDataPoint
	Gauges    map[string][]*metricspb.NumberDataPoint
	Histogram map[string][]*metricspb.HistogramDataPoint
	// Units per metric name; "NOT A CUMULATIVE MONOTONIC SUM" for a sum
	// that is not one.
	Units    map[string]string
	Resource map[string]string
}

// PointsOf indexes req.
func PointsOf(req *colmetricspb.ExportMetricsServiceRequest) Points {
	p := Points{Sums: map[string][]*metricspb.NumberDataPoint{}, Gauges: map[string][]*metricspb.NumberDataPoint{},
		Histogram: map[string][]*metricspb.HistogramDataPoint{}, Units: map[string]string{}, Resource: map[string]string{}}
	for _, rm := range req.GetResourceMetrics() {
		for k, v := range Attrs(rm.GetResource().GetAttributes()) {
			p.Resource[k] = v
		}
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				p.Units[m.GetName()] = m.GetUnit()
				switch d := m.GetData().(type) {
				case *metricspb.Metric_Sum:
					if !d.Sum.GetIsMonotonic() || d.Sum.GetAggregationTemporality() != metricspb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE {
						p.Units[m.GetName()] = "NOT A CUMULATIVE MONOTONIC SUM"
					}
					p.Sums[m.GetName()] = append(p.Sums[m.GetName()], d.Sum.GetDataPoints()...)
				case *metricspb.Metric_Gauge:
					p.Gauges[m.GetName()] = append(p.Gauges[m.GetName()], d.Gauge.GetDataPoints()...)
				case *metricspb.Metric_Histogram:
					p.Histogram[m.GetName()] = append(p.Histogram[m.GetName()], d.Histogram.GetDataPoints()...)
				}
			}
		}
	}
	return p
}

// Attrs turns string attributes into a map.
func Attrs(kvs []*commonpb.KeyValue) map[string]string {
	out := map[string]string{}
	for _, kv := range kvs {
		out[kv.GetKey()] = kv.GetValue().GetStringValue()
	}
	return out
}

// Matches reports whether got holds every pair of want.
func Matches(got, want map[string]string) bool {
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// Sum returns the value of the sum data point of name whose attributes
// include want; ok is false when there is none.
func (p Points) Sum(name string, want map[string]string) (v int64, ok bool) {
	for _, dp := range p.Sums[name] {
		if Matches(Attrs(dp.GetAttributes()), want) {
			return dp.GetAsInt(), true
		}
	}
	return 0, false
}
