package metricsexport

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
)

// OTLP protocols, as OTEL_EXPORTER_OTLP_PROTOCOL names them.
const (
	ProtocolHTTP = "http/protobuf"
	ProtocolGRPC = "grpc"
)

// OTLPOptions configures an OTLP export.
type OTLPOptions struct {
	// Endpoint is the collector's URL: http://host:4318 for OTLP/HTTP
	// (the path /v1/metrics is added when none is given), http://host:4317
	// for gRPC. https:// uses TLS.
	Endpoint string
	// Protocol is ProtocolHTTP (default) or ProtocolGRPC.
	Protocol string
	// Interval is how often to export (default 5s); the run's end exports
	// once more (Close).
	Interval time.Duration
	// Scenario labels every series.
	Scenario string
}

// OTLP pushes the run's metrics to an OpenTelemetry collector (or anything
// that receives OTLP metrics: Prometheus's OTLP receiver, Grafana Alloy...)
// through the OpenTelemetry metric SDK: a periodic reader with the run's
// figures as its producer and the official OTLP exporter.
type OTLP struct {
	source
	mp       *sdkmetric.MeterProvider
	endpoint string
}

// NewOTLP starts exporting every opts.Interval. It publishes nothing until
// Attach gives it the run's metrics.
func NewOTLP(ctx context.Context, opts OTLPOptions) (*OTLP, error) {
	u, err := url.Parse(opts.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("otlp endpoint %q: want a URL such as http://127.0.0.1:4318 (OTLP/HTTP) or http://127.0.0.1:4317 with protocol grpc", opts.Endpoint)
	}
	if opts.Interval <= 0 {
		opts.Interval = 5 * time.Second
	}
	var exp sdkmetric.Exporter
	switch opts.Protocol {
	case "", ProtocolHTTP:
		if u.Path == "" || u.Path == "/" {
			u.Path = "/v1/metrics"
		}
		exp, err = otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(u.String()))
	case ProtocolGRPC:
		exp, err = otlpmetricgrpc.New(ctx, otlpmetricgrpc.WithEndpointURL(u.String()))
	default:
		return nil, fmt.Errorf("otlp protocol %q: allowed: %s, %s", opts.Protocol, ProtocolHTTP, ProtocolGRPC)
	}
	if err != nil {
		return nil, fmt.Errorf("otlp exporter: %w", err)
	}
	o := &OTLP{endpoint: u.Redacted()}
	prod := &producer{src: &o.source, scenario: attribute.String("scenario", opts.Scenario)}
	reader := sdkmetric.NewPeriodicReader(exp, sdkmetric.WithInterval(opts.Interval), sdkmetric.WithProducer(prod))
	res := resource.NewSchemaless(attribute.String("service.name", "stormcheck"), attribute.String("stormcheck.scenario", opts.Scenario))
	o.mp = sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithResource(res))
	return o, nil
}

// Endpoint is the URL metrics are sent to, its password (if any) masked.
func (o *OTLP) Endpoint() string { return o.endpoint }

// Flush exports now.
func (o *OTLP) Flush(ctx context.Context) error { return o.mp.ForceFlush(ctx) }

// Close exports the final figures and stops (bounded by ctx).
func (o *OTLP) Close(ctx context.Context) error { return o.mp.Shutdown(ctx) }

// producer hands the SDK's reader the run's figures, read once per export.
type producer struct {
	src      *source
	scenario attribute.KeyValue
}

// scopeName is the instrumentation scope of every exported metric.
const scopeName = "github.com/stormcheck/stormcheck"

// otelName turns a Prometheus-style name into the OpenTelemetry one that a
// collector translates back to it: stormcheck_operation_duration_seconds
// -> stormcheck.operation.duration (unit s).
func otelName(prom string) string {
	n := strings.TrimSuffix(strings.TrimSuffix(prom, "_total"), "_seconds")
	n = strings.Replace(n, "stormcheck_", "stormcheck.", 1)
	if n == "stormcheck.operation_duration" {
		return "stormcheck.operation.duration"
	}
	return n
}

func (p *producer) Produce(context.Context) ([]metricdata.ScopeMetrics, error) {
	snap, ok := p.src.snapshot()
	if !ok {
		return nil, nil
	}
	now := time.Now()
	start := snap.Start
	ops := metricdata.Sum[int64]{Temporality: metricdata.CumulativeTemporality, IsMonotonic: true}
	resp := metricdata.Sum[int64]{Temporality: metricdata.CumulativeTemporality, IsMonotonic: true}
	dur := metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality}
	achieved := metricdata.Sum[int64]{Temporality: metricdata.CumulativeTemporality, IsMonotonic: true}
	inFlight := metricdata.Gauge[float64]{}
	for _, s := range snap.Series {
		for _, o := range checks.Outcomes {
			ops.DataPoints = append(ops.DataPoints, metricdata.DataPoint[int64]{
				Attributes: attribute.NewSet(p.scenario, attribute.String("workload", s.Workload), attribute.String("op", s.Op), attribute.String("outcome", o.String())),
				StartTime:  start, Time: now, Value: s.Outcomes[o],
			})
		}
		for _, r := range s.Responses {
			resp.DataPoints = append(resp.DataPoints, metricdata.DataPoint[int64]{
				Attributes: attribute.NewSet(p.scenario, attribute.String("workload", s.Workload), attribute.String("op", s.Op),
					attribute.String("status", statusLabel(r.Status)), attribute.String("error_code", r.Code)),
				StartTime: start, Time: now, Value: r.Count,
			})
		}
		for _, o := range checks.Outcomes {
			h, ok := s.Latency[o]
			if !ok {
				continue
			}
			dur.DataPoints = append(dur.DataPoints, metricdata.HistogramDataPoint[float64]{
				Attributes: attribute.NewSet(p.scenario, attribute.String("workload", s.Workload), attribute.String("op", s.Op), attribute.String("outcome", o.String())),
				StartTime:  start, Time: now, Count: h.Count, Sum: h.Sum,
				Bounds: reports.LiveBuckets, BucketCounts: h.Counts,
			})
		}
	}
	for _, w := range snap.Workloads {
		if w.Goal != "" {
			achieved.DataPoints = append(achieved.DataPoints, metricdata.DataPoint[int64]{
				Attributes: attribute.NewSet(p.scenario, attribute.String("workload", w.Name), attribute.String("goal", w.Goal)),
				StartTime:  start, Time: now, Value: w.Achieved,
			})
		}
		inFlight.DataPoints = append(inFlight.DataPoints, metricdata.DataPoint[float64]{
			Attributes: attribute.NewSet(p.scenario, attribute.String("workload", w.Name)),
			Time:       now, Value: w.InFlight,
		})
	}
	return []metricdata.ScopeMetrics{{
		Scope: instrumentation.Scope{Name: scopeName},
		Metrics: []metricdata.Metrics{
			{Name: otelName(NameOperations), Description: "Attempts by outcome.", Unit: "{operation}", Data: ops},
			{Name: otelName(NameResponses), Description: "Attempts by HTTP status and x-ms-error-code (status 0: no response).", Unit: "{response}", Data: resp},
			{Name: otelName(NameDuration), Description: "Latency from the intended start to the return (corrected), by outcome.", Unit: "s", Data: dur},
			{Name: otelName(NameAchieved), Description: "What the workload achieved (goal names it).", Unit: "{item}", Data: achieved},
			{Name: otelName(NameInFlight), Description: "Mean calls in flight over the last full second.", Unit: "{call}", Data: inFlight},
		},
	}}, nil
}
