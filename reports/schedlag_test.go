package reports

import (
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
)

// lagMetrics records n arrivals of w's blob.get, each called lag after its
// intended start and taking took.
func lagMetrics(m *Metrics, w string, n int, lag, took time.Duration) {
	for i := range n {
		at := int64(i+1) * int64(time.Millisecond)
		call := at + int64(lag)
		m.RecordLag(w, "blob.get", call-at)
		m.Record(&checks.Op{Actor: 1, Workload: w, Kind: "blob.get", Attempt: 1, Intended: at, Call: call, Return: call + int64(took), Outcome: checks.OK})
	}
}

// TestScheduleLagReportedApart: a workload whose calls take 1 ms and start
// 50 µs late has its lag in its summary and in one report line, without
// blame; one whose calls take 0.1 ms and start 2 ms late is named as
// dominated by lateness at the median.
func TestScheduleLagReportedApart(t *testing.T) {
	m := NewMetrics(MetricsOptions{Start: time.Now()})
	lagMetrics(m, "prompt", 100, 50*time.Microsecond, time.Millisecond)
	lagMetrics(m, "late", 100, 2*time.Millisecond, 100*time.Microsecond)
	m.Record(&checks.Op{Actor: 1, Workload: "closed", Kind: "blob.get", Attempt: 1, Call: 1, Return: 2, Outcome: checks.OK})
	ws, _ := m.Summary(time.Second)
	by := map[string]WorkloadSummary{}
	for _, w := range ws {
		by[w.Name] = w
	}
	if by["closed"].ScheduleLag != nil || ScheduleLagLine(by["closed"]) != "" {
		t.Errorf("a closed loop has a schedule lag: %+v", by["closed"].ScheduleLag)
	}
	p := by["prompt"]
	if l := p.ScheduleLag; l == nil || l.Count != 100 || l.P50 != 0.05 || l.Max != 0.05 || l.Op != "blob.get" {
		t.Fatalf("prompt's lag %+v; want 100 arrivals at 0.05 ms", l)
	}
	if line := ScheduleLagLine(p); !strings.HasPrefix(line, "schedule lag p50/p99/max 0.050 / 0.050 / 0.050 ms") || strings.Contains(line, "dominates") {
		t.Errorf("prompt's line %q", line)
	}
	l := by["late"]
	if s := LatenessDominates(l); !strings.Contains(s, "dominates blob.get's corrected p50: 2.10 ms, of which the client's schedule lag is 2.00 ms and the calls took 0.100 ms") {
		t.Errorf("late's verdict %q", s)
	}
	// Shards' lags merge from their histograms.
	mg, err := MergeScheduleLags([]*ScheduleLag{p.ScheduleLag, nil, l.ScheduleLag})
	if err != nil || mg.Count != 200 || mg.Max != 2 || mg.P99 != 2 || mg.P50 != 0.05 {
		t.Errorf("merged %+v, %v; want 200 arrivals, max 2 ms", mg, err)
	}
	if _, err := MergeScheduleLags([]*ScheduleLag{{Op: "blob.get", Histogram: "garbage"}}); err == nil {
		t.Error("a lag histogram that does not decode merged without a word")
	}
}
