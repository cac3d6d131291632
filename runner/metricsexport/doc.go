// Package metricsexport publishes a run's metrics live, while it runs, where
// load-testing users already look: a Prometheus endpoint to scrape (the
// official client, github.com/prometheus/client_golang) and an OTLP export
// (the OpenTelemetry metric SDK with its OTLP/HTTP or OTLP/gRPC exporter).
//
// Both read the figures the run already aggregates for its own report
// (reports.Metrics, every attempt counted once on the hot path) at scrape
// or export time, so exporting adds no second recording per attempt. The
// names are the same on both paths once OTLP reaches Prometheus (dots
// become underscores, counters gain _total, seconds gain _seconds):
//
//	stormcheck_operations_total{workload,op,outcome}               attempts by outcome
//	stormcheck_responses_total{workload,op,status,error_code}      attempts by HTTP status and x-ms-error-code (status 0: no response)
//	stormcheck_operation_duration_seconds{workload,op,outcome}     latency from the intended start (corrected), histogram
//	stormcheck_achieved_total{workload,goal}                        what the workload achieved (increments, creations, messages consumed)
//	stormcheck_calls_in_flight{workload}                            mean calls in flight over the last full second (busy actors)
//
// Every series also carries the scenario's name (label scenario).
package metricsexport

import (
	"strconv"
	"sync/atomic"

	"github.com/stormcheck/stormcheck/reports"
)

// Metric names as Prometheus shows them; the OTLP names are the same with
// dots (Names lists both for the dashboard test).
const (
	NameOperations = "stormcheck_operations_total"
	NameResponses  = "stormcheck_responses_total"
	NameDuration   = "stormcheck_operation_duration_seconds"
	NameAchieved   = "stormcheck_achieved_total"
	NameInFlight   = "stormcheck_calls_in_flight"
)

// Names lists every metric name the exporters publish, Prometheus style.
var Names = []string{NameOperations, NameResponses, NameDuration, NameAchieved, NameInFlight}

// Source is what exporters read: reports.Metrics.
type Source interface {
	Live() reports.LiveSnapshot
}

// source holds the run's metrics once they exist: an exporter starts
// before the run (its address is known up front) and is attached to the
// run's metrics when the run begins. Before that it publishes nothing.
type source struct {
	p atomic.Pointer[Source]
}

// Attach starts publishing the run's metrics (runner.Run calls it once
// they exist; the metrics need MetricsOptions.Export for latency
// histograms).
func (s *source) Attach(m *reports.Metrics) { s.attach(m) }

func (s *source) attach(src Source) { s.p.Store(&src) }

func (s *source) snapshot() (reports.LiveSnapshot, bool) {
	p := s.p.Load()
	if p == nil {
		return reports.LiveSnapshot{}, false
	}
	return (*p).Live(), true
}

// statusLabel is the status label's value: the HTTP status, "0" when the
// attempt got no response (k6's convention), "other" for the responses
// beyond the distinct ones a series counts.
func statusLabel(status int) string {
	if status < 0 {
		return "other"
	}
	return strconv.Itoa(status)
}
