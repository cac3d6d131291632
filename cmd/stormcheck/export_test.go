package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/internal/otlpreceiver"
	"github.com/stormcheck/stormcheck/reports"
)

// TestRunExportsLiveMetrics runs the quickstart for 2 s with --prometheus
// and --otlp: the run says where its metrics are, and the OTLP receiver
// holds the run's own counts at the end.
func TestRunExportsLiveMetrics(t *testing.T) {
	recv, url, err := otlpreceiver.StartHTTP()
	if err != nil {
		t.Fatal(err)
	}
	defer recv.Close()
	dir := filepath.Join(t.TempDir(), "out")
	var out, errOut bytes.Buffer
	code := run([]string{"run", "../../scenarios/examples/quickstart.yaml", "--out", dir, "--duration", "2s", "--progress", "none",
		"--prometheus", "127.0.0.1:0", "--otlp", url, "--otlp-interval", "1h"}, &out, &errOut)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	if !regexp.MustCompile(`Prometheus metrics on http://127\.0\.0\.1:\d+/metrics`).MatchString(errOut.String()) ||
		!strings.Contains(errOut.String(), "OTLP metrics to "+url+"/v1/metrics (http/protobuf) every 1h0m0s") {
		t.Errorf("the run does not say where its metrics go:\n%s", errOut.String())
	}
	reqs, problems := recv.Requests()
	if len(problems) > 0 || len(reqs) == 0 {
		t.Fatalf("receiver: %d exports, problems %v", len(reqs), problems)
	}
	p := otlpreceiver.PointsOf(reqs[len(reqs)-1])
	s, err := reports.ReadSummary(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range s.Workloads {
		got, ok := p.Sum("stormcheck.achieved", map[string]string{"scenario": "quickstart", "workload": w.Name})
		if !ok || got != w.Achieved {
			t.Errorf("%s: exported %d %s (found %v), summary %d", w.Name, got, w.Goal, ok, w.Achieved)
		}
	}
}

func TestExportFlagsRefuseBadValues(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--otlp", "127.0.0.1:4318"}, "--otlp: otlp endpoint \"127.0.0.1:4318\": want a URL such as http://127.0.0.1:4318"},
		{[]string{"--otlp-protocol", "thrift"}, `"thrift" for "--otlp-protocol" flag: allowed: http/protobuf, grpc`},
		{[]string{"--otlp-interval", "0s"}, "--otlp-interval 0s: must be positive"},
		{[]string{"--prometheus", "127.0.0.1"}, "--prometheus 127.0.0.1: prometheus endpoint: listen tcp: address 127.0.0.1: missing port in address"},
	} {
		var out, errOut bytes.Buffer
		args := append([]string{"run", "../../scenarios/examples/quickstart.yaml", "--out", t.TempDir()}, c.args...)
		if code := run(args, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: exit %d, want %d saying %q:\n%s", c.args, code, exitUsage, c.want, errOut.String())
		}
	}
}
