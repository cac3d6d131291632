package reports_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/html"
	"github.com/stormcheck/stormcheck/reports/text"
)

// TestTextShowsTheShard: a shard's report says which shard of which run,
// how late it started, its clock against the service's, what it did and
// that the checks are the merge's.
func TestTextShowsTheShard(t *testing.T) {
	s := &reports.Summary{Scenario: "shards", Files: map[string]string{},
		Workloads: []reports.WorkloadSummary{{Name: "w", Ops: []reports.OpSummary{{Op: "blob.get", Count: 1, Outcomes: map[string]int64{"ok": 1}}}}},
		Shard: &reports.ShardInfo{Index: 2, Count: 3, RunID: "5ba4d0c1", StartAt: "2026-11-24T09:51:58Z", Late: time.Hour + 1126*time.Millisecond,
			ClockOffsetBound: 100 * time.Millisecond, ClockOffset: reports.ClockOffset{Lo: -2600 * time.Microsecond, Hi: 12100 * time.Microsecond, Samples: 128}}}
	var b strings.Builder
	if err := text.WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	out := strings.Join(strings.Fields(b.String()), " ")
	for _, want := range []string{"shard 2 of 3, run 5ba4d0c1", "start at 2026-11-24T09:51:58Z", "LATE by 1h0m1.126s",
		"clock -2.6ms..+12.1ms from the service's (128 responses; bound 100ms)", "setup, final reads, cleanup by other shards",
		"checks: left to stormcheck merge"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	dir := t.TempDir()
	if err := html.WriteHTMLReport(dir, s); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, reports.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), "<dt>shard</dt><dd>2 of 3, run 5ba4d0c1; start at 2026-11-24T09:51:58Z; LATE by 1h0m1.126s") {
		t.Errorf("the HTML report has no shard line")
	}
	s.Shard = &reports.ShardInfo{Index: 0, Count: 3, RunID: "5ba4d0c1", Rendezvous: "2026-11-24T10:52:08Z", Setup: true, FinalReads: true, Cleanup: true}
	b.Reset()
	_ = text.WriteText(&b, s)
	out = strings.Join(strings.Fields(b.String()), " ")
	for _, want := range []string{"(stamped by shard 0)", "did the run's setup, final reads, cleanup"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(out, "LATE") || strings.Contains(out, "by other shards") {
		t.Errorf("an on-time shard that did everything:\n%s", b.String())
	}
}
