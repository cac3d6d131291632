package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/runner/metricsexport"
)

// exportFlags are run's live metrics flags.
type exportFlags struct {
	prometheus   string
	otlp         string
	otlpProtocol *enumFlag
	otlpInterval time.Duration
}

func addExportFlags(cmd *cobra.Command) *exportFlags {
	f := &exportFlags{}
	fl := cmd.Flags()
	fl.StringVar(&f.prometheus, "prometheus", "", "serve live metrics for Prometheus to scrape on ADDR/metrics, e.g. 127.0.0.1:9464 (:9464: every interface)")
	fl.StringVar(&f.otlp, "otlp", "", "push live metrics over OTLP to a collector URL, e.g. http://127.0.0.1:4318 (http/protobuf) or http://127.0.0.1:4317 with --otlp-protocol grpc")
	f.otlpProtocol = addEnumFlag(cmd, "otlp-protocol", metricsexport.ProtocolHTTP, "OTLP protocol", metricsexport.ProtocolHTTP, metricsexport.ProtocolGRPC)
	fl.DurationVar(&f.otlpInterval, "otlp-interval", 5*time.Second, "how often to push over OTLP (the run's end pushes once more)")
	return f
}

// start opens the exporters the flags ask for, before the run, and says
// where the metrics are. stop closes them after it: OTLP pushes the final
// figures (up to 10 s), the Prometheus endpoint stops serving.
func (f *exportFlags) start(scenario string, log io.Writer) (exps []runner.Exporter, stop func(), err error) {
	var closers []func(context.Context) error
	stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, c := range closers {
			if err := c(ctx); err != nil {
				fmt.Fprintf(log, "stormcheck: live metrics: %v\n", err)
			}
		}
	}
	if f.otlpInterval <= 0 {
		return nil, stop, fmt.Errorf("--otlp-interval %s: must be positive", f.otlpInterval)
	}
	if f.prometheus != "" {
		p, err := metricsexport.NewPrometheus(f.prometheus, scenario)
		if err != nil {
			return nil, stop, fmt.Errorf("--prometheus %s: %w", f.prometheus, err)
		}
		closers = append(closers, p.Close)
		exps = append(exps, p)
		fmt.Fprintf(log, "stormcheck: Prometheus metrics on %s\n", p.URL())
	}
	if f.otlp != "" {
		o, err := metricsexport.NewOTLP(context.Background(), metricsexport.OTLPOptions{
			Endpoint: f.otlp, Protocol: f.otlpProtocol.value, Interval: f.otlpInterval, Scenario: scenario})
		if err != nil {
			stop()
			return nil, func() {}, fmt.Errorf("--otlp: %w", err)
		}
		closers = append([]func(context.Context) error{o.Close}, closers...)
		exps = append(exps, o)
		fmt.Fprintf(log, "stormcheck: OTLP metrics to %s (%s) every %s\n", o.Endpoint(), f.otlpProtocol.value, f.otlpInterval)
	}
	return exps, stop, nil
}
