package metricsexport

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
)

// Prometheus serves the run's metrics on /metrics for Prometheus to scrape.
type Prometheus struct {
	source
	reg  *prometheus.Registry
	ln   net.Listener
	srv  *http.Server
	done chan struct{}
}

// collector turns one LiveSnapshot per scrape into constant metrics.
type collector struct {
	src *source

	ops, resp, dur, achieved, inFlight *prometheus.Desc
}

func newCollector(src *source, scenario string) *collector {
	cl := prometheus.Labels{"scenario": scenario}
	return &collector{
		src: src,
		ops: prometheus.NewDesc(NameOperations,
			"Attempts by outcome: ok, conflict (the race lost as documented), throttled, error, unknown (may have been applied).",
			[]string{"workload", "op", "outcome"}, cl),
		resp: prometheus.NewDesc(NameResponses,
			"Attempts by HTTP status and x-ms-error-code (status 0: no response, a timeout or connection error).",
			[]string{"workload", "op", "status", "error_code"}, cl),
		dur: prometheus.NewDesc(NameDuration,
			"Latency from the operation's intended start to its return (corrected for coordinated omission), by outcome.",
			[]string{"workload", "op", "outcome"}, cl),
		achieved: prometheus.NewDesc(NameAchieved,
			"What the workload achieved: acknowledged increments, creations, messages consumed (goal names it).",
			[]string{"workload", "goal"}, cl),
		inFlight: prometheus.NewDesc(NameInFlight,
			"Mean calls in flight over the last full second: the workload's actors busy with the service.",
			[]string{"workload"}, cl),
	}
}

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.ops, c.resp, c.dur, c.achieved, c.inFlight} {
		ch <- d
	}
}

func (c *collector) Collect(ch chan<- prometheus.Metric) {
	snap, ok := c.src.snapshot()
	if !ok {
		return
	}
	for _, s := range snap.Series {
		for _, o := range checks.Outcomes {
			ch <- prometheus.MustNewConstMetric(c.ops, prometheus.CounterValue, float64(s.Outcomes[o]), s.Workload, s.Op, o.String())
		}
		for _, r := range s.Responses {
			ch <- prometheus.MustNewConstMetric(c.resp, prometheus.CounterValue, float64(r.Count), s.Workload, s.Op, statusLabel(r.Status), r.Code)
		}
		for _, o := range checks.Outcomes {
			h, ok := s.Latency[o]
			if !ok {
				continue
			}
			ch <- prometheus.MustNewConstHistogram(c.dur, h.Count, h.Sum, cumulative(h), s.Workload, s.Op, o.String())
		}
	}
	for _, w := range snap.Workloads {
		if w.Goal != "" {
			ch <- prometheus.MustNewConstMetric(c.achieved, prometheus.CounterValue, float64(w.Achieved), w.Name, w.Goal)
		}
		ch <- prometheus.MustNewConstMetric(c.inFlight, prometheus.GaugeValue, w.InFlight, w.Name)
	}
}

// cumulative turns per-bucket counts into Prometheus's cumulative buckets.
func cumulative(h reports.LiveHistogram) map[float64]uint64 {
	out := make(map[float64]uint64, len(reports.LiveBuckets))
	var n uint64
	for i, b := range reports.LiveBuckets {
		n += h.Counts[i]
		out[b] = n
	}
	return out
}

// NewPrometheus listens on addr (host:port; ":9464" listens on every
// interface, "127.0.0.1:0" on a free loopback port) and serves /metrics.
// It publishes nothing until Attach gives it the run's metrics. scenario
// labels every series.
func NewPrometheus(addr, scenario string) (*Prometheus, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("prometheus endpoint: %w", err)
	}
	p := &Prometheus{reg: prometheus.NewRegistry(), ln: ln, done: make(chan struct{})}
	p.reg.MustRegister(newCollector(&p.source, scenario))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(p.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "stormcheck: metrics on /metrics")
	})
	p.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(p.done)
		if err := p.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // the listener failed after start; scrapes will say so
		}
	}()
	return p, nil
}

// Registry is the registry /metrics serves (for tests and for callers that
// add collectors of their own).
func (p *Prometheus) Registry() *prometheus.Registry { return p.reg }

// Addr is the address the endpoint listens on, e.g. 127.0.0.1:41234.
func (p *Prometheus) Addr() string { return p.ln.Addr().String() }

// URL is the scrape URL.
func (p *Prometheus) URL() string { return "http://" + p.Addr() + "/metrics" }

// Close stops serving, letting scrapes in progress finish (up to ctx).
func (p *Prometheus) Close(ctx context.Context) error {
	err := p.srv.Shutdown(ctx)
	<-p.done
	return err
}
