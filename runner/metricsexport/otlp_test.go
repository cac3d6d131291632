package metricsexport

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/internal/otlpreceiver"
)

// lastExport is the receiver's latest export and how many it got; it
// fails the test on any problem the receiver saw.
func lastExport(t *testing.T, r *otlpreceiver.Receiver) (otlpreceiver.Points, int) {
	t.Helper()
	reqs, problems := r.Requests()
	for _, p := range problems {
		t.Errorf("receiver: %s", p)
	}
	if len(reqs) == 0 {
		t.Fatal("the receiver got no export")
	}
	return otlpreceiver.PointsOf(reqs[len(reqs)-1]), len(reqs)
}

func sumValue(t *testing.T, p otlpreceiver.Points, name string, want map[string]string) int64 {
	t.Helper()
	v, ok := p.Sum(name, want)
	if !ok {
		t.Fatalf("%s%v: not exported", name, want)
	}
	return v
}

func startHTTPReceiver(t *testing.T) (*otlpreceiver.Receiver, string) {
	t.Helper()
	r, url, err := otlpreceiver.StartHTTP()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r, url
}

// checkFixtureExport checks an export of recordFixture's metrics.
func checkFixtureExport(t *testing.T, p otlpreceiver.Points) {
	t.Helper()
	if p.Resource["service.name"] != "stormcheck" || p.Resource["stormcheck.scenario"] != "fixture" {
		t.Errorf("resource %v", p.Resource)
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
	if p.Units["stormcheck.operation.duration"] != "s" {
		t.Errorf("duration unit %q, want s", p.Units["stormcheck.operation.duration"])
	}
	found := false
	for _, h := range p.Histogram["stormcheck.operation.duration"] {
		if !otlpreceiver.Matches(otlpreceiver.Attrs(h.GetAttributes()), map[string]string{"workload": "counter", "op": "blob.put", "outcome": "ok"}) {
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
	if len(p.Gauges["stormcheck.calls_in_flight"]) != 2 {
		t.Errorf("in-flight gauges: %v", p.Gauges["stormcheck.calls_in_flight"])
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
	p, _ := lastExport(t, r)
	checkFixtureExport(t, p)
}

func TestOTLPGRPCExport(t *testing.T) {
	r, url, err := otlpreceiver.StartGRPC()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	ctx := context.Background()
	o, err := NewOTLP(ctx, OTLPOptions{Endpoint: url, Protocol: ProtocolGRPC, Interval: time.Hour, Scenario: "fixture"})
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
	p, n := lastExport(t, r)
	if n != 2 {
		t.Errorf("%d exports, want 2 (flush, close)", n)
	}
	checkFixtureExport(t, p)
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

// The exporter takes the standard OTEL_EXPORTER_OTLP_* variables, so a
// collector that wants an API key gets it from the environment (never from
// a flag that would show in the process list).
func TestOTLPHeadersFromTheEnvironment(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-api-key=k3y")
	r, url := startHTTPReceiver(t)
	o, err := NewOTLP(context.Background(), OTLPOptions{Endpoint: url, Interval: time.Hour, Scenario: "fixture"})
	if err != nil {
		t.Fatal(err)
	}
	o.Attach(recordFixture(t))
	if err := o.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if o2, err := NewOTLP(context.Background(), OTLPOptions{Endpoint: "http://user:s3cret@127.0.0.1:1", Interval: time.Hour}); err != nil || strings.Contains(o2.Endpoint(), "s3cret") {
		t.Errorf("endpoint %v (%v): the password shows", o2, err)
	} else {
		_ = o2.Close(context.Background()) // nothing attached: nothing to send
	}
	hs := r.Headers()
	if len(hs) == 0 || hs[len(hs)-1].Get("x-api-key") != "k3y" {
		t.Errorf("headers %v: want x-api-key from OTEL_EXPORTER_OTLP_HEADERS", hs)
	}
}
