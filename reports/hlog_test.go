package reports_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/html"
	"github.com/stormcheck/stormcheck/reports/reportstest"
)

// readHlog reads every interval of an .hlog file.
func readHlog(t *testing.T, path string) []*hdrhistogram.Histogram {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := hdrhistogram.NewHistogramLogReader(f)
	var out []*hdrhistogram.Histogram
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if h == nil {
			return out
		}
		out = append(out, h)
	}
}

func TestHlogRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		// ops as (second of call, latency ms); recorded in this order
		ops        [][2]float64
		intervals  int
		maxUs      int64
		movedNoted bool
	}{
		{
			name:      "one op per second",
			ops:       [][2]float64{{0, 1}, {1, 2}, {2, 3}, {3, 250}},
			intervals: 4,
			maxUs:     250_000,
		},
		{
			name:      "seconds with gaps and many ops",
			ops:       [][2]float64{{0, 1}, {0, 5}, {0, 7}, {5, 1}, {5, 9}, {9, 12.5}},
			intervals: 3,
			maxUs:     12_500,
		},
		{
			name: "late op within grace goes to its own interval",
			// second 2 arrives before the last of second 1
			ops:       [][2]float64{{0, 1}, {1, 1}, {2, 1}, {1, 40}, {3, 1}},
			intervals: 4,
			maxUs:     40_000,
		},
		{
			name: "late op past grace is moved, not lost",
			// second 0 is completed when second 2 arrives
			ops:        [][2]float64{{0, 1}, {2, 1}, {0, 77}, {3, 1}},
			intervals:  3,
			maxUs:      77_000,
			movedNoted: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "hlog") // created by Metrics
			start := time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)
			m := reports.NewMetrics(reports.MetricsOptions{HlogDir: dir, Start: start})
			for _, o := range tc.ops {
				m.Record(reportstest.MkOp("counter", "blob.put", 0, checks.OK, o[0]*1000, o[1], 0))
			}
			// a harness op and another series must not land in this log
			m.Record(reportstest.MkOp("counter", "blob.put", checks.ActorSetup, checks.OK, 0, 999, 0))
			m.Record(reportstest.MkOp("other", "blob.get", 0, checks.OK, 0, 999, 0))
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
			files := m.HlogFiles()
			name := files["hlog counter blob.put"]
			if name != "counter.blob.put.hlog" || len(files) != 2 {
				t.Fatalf("files %v", files)
			}
			path := filepath.Join(dir, name)
			hs := readHlog(t, path)
			if len(hs) != tc.intervals {
				t.Errorf("%d intervals, want %d", len(hs), tc.intervals)
			}
			var total, maxv int64
			prev := int64(-1)
			for _, h := range hs {
				total += h.TotalCount()
				maxv = max(maxv, h.Max())
				if h.StartTimeMs() <= prev {
					t.Errorf("intervals out of order: %d after %d", h.StartTimeMs(), prev)
				}
				prev = h.StartTimeMs()
				if d := h.EndTimeMs() - h.StartTimeMs(); d != 1000 {
					t.Errorf("interval length %d ms", d)
				}
			}
			if total != int64(len(tc.ops)) {
				t.Errorf("total count %d, want %d", total, len(tc.ops))
			}
			if !hdrhistogram.New(reports.HistLowest, reports.HistHighest, reports.HistDigits).ValuesAreEquivalent(maxv, tc.maxUs) {
				t.Errorf("max %d µs, want %d", maxv, tc.maxUs)
			}
			b, _ := os.ReadFile(path)
			text := string(b)
			for _, want := range []string{
				`#[stormcheck latency log: workload "counter", op "blob.put"]`,
				"microseconds",
				"#[Histogram log format version 1.3]",
				"#[StartTime: 1741064767 (seconds since epoch), 2025-03-04T05:06:07Z]",
				`"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"`,
			} {
				if !strings.Contains(text, want) {
					t.Errorf("log lacks %q:\n%s", want, text)
				}
			}
			if got := strings.Contains(text, "logged in a later interval"); got != tc.movedNoted {
				t.Errorf("moved note present %v, want %v", got, tc.movedNoted)
			}
		})
	}
}

// TestHlogStreams checks that completed intervals reach the file during
// the run, not only at Close.
func TestHlogStreams(t *testing.T) {
	dir := t.TempDir()
	m := reports.NewMetrics(reports.MetricsOptions{HlogDir: dir})
	defer m.Close()
	for sec := 0; sec < 5; sec++ {
		m.Record(reportstest.MkOp("w", "blob.get", 0, checks.OK, float64(sec)*1000, 1, 0))
	}
	// seconds 0..2 are complete (4 is the newest, 3 is in grace)
	path := filepath.Join(dir, "w.blob.get.hlog")
	deadline := time.Now().Add(time.Minute) // a deadline, not a speed: streaming is asserted, not how soon
	for {
		b, _ := os.ReadFile(path)
		if n := strings.Count(string(b), "\n0.") + strings.Count(string(b), "\n1.") + strings.Count(string(b), "\n2."); n == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("intervals not streamed; file:\n%s", b)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if hs := readHlog(t, path); len(hs) != 5 {
		t.Errorf("%d intervals after Close, want 5", len(hs))
	}
	// Close is idempotent; ops after Close still count in the summary.
	m.Record(reportstest.MkOp("w", "blob.get", 0, checks.OK, 9000, 1, 0))
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	if ws, _ := m.Summary(0); ws[0].Ops[0].Count != 6 {
		t.Errorf("count %d after Close, want 6", ws[0].Ops[0].Count)
	}
}

func TestHlogFileNames(t *testing.T) {
	dir := t.TempDir()
	m := reports.NewMetrics(reports.MetricsOptions{HlogDir: dir})
	m.Record(reportstest.MkOp("a/b", "blob.get", 0, checks.OK, 0, 1, 0))
	m.Record(reportstest.MkOp("a_b", "blob.get", 0, checks.OK, 0, 1, 0))
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	files := m.HlogFiles()
	got := map[string]bool{files["hlog a/b blob.get"]: true, files["hlog a_b blob.get"]: true}
	if !got["a_b.blob.get.hlog"] || !got["a_b.blob.get-2.hlog"] {
		t.Errorf("files %v", files)
	}
}

func TestHlogWriteErrorReportedByClose(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "file")
	if err := os.WriteFile(blocker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	m := reports.NewMetrics(reports.MetricsOptions{HlogDir: filepath.Join(blocker, "hlog")}) // a file, not a dir
	m.Record(reportstest.MkOp("w", "blob.get", 0, checks.OK, 0, 1, 0))
	err := m.Close()
	if err == nil || errors.Is(err, io.EOF) {
		t.Fatalf("Close = %v, want a write error", err)
	}
	if ws, _ := m.Summary(0); ws[0].Ops[0].Count != 1 {
		t.Errorf("the failed log lost the figures: %+v", ws)
	}
}

// The corrected logs (hlog/corrected/) hold latency from the intended
// start, the uncorrected ones call to return: an open loop that fell 40 ms
// behind shows 40 ms more in the corrected log, second by second.
func TestHlogCorrectedBesideUncorrected(t *testing.T) {
	dir := t.TempDir()
	m := reports.NewMetrics(reports.MetricsOptions{HlogDir: dir})
	for sec := int64(0); sec < 3; sec++ {
		for i := int64(0); i < 10; i++ {
			intended := sec*int64(time.Second) + i*int64(time.Millisecond)
			call := intended + 40*int64(time.Millisecond)
			m.Record(&checks.Op{Workload: "w", Kind: "blob.get", Intended: intended, Call: call, Return: call + 10*int64(time.Millisecond), Outcome: checks.OK})
		}
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want int64 // µs
	}{
		{filepath.Join(dir, "w.blob.get.hlog"), 10_000},
		{filepath.Join(dir, reports.CorrectedHlogDir, "w.blob.get.hlog"), 50_000},
	} {
		ivs := readHlog(t, c.path)
		if len(ivs) != 3 {
			t.Fatalf("%s: %d intervals, want 3", c.path, len(ivs))
		}
		for _, h := range ivs {
			if h.TotalCount() != 10 || !h.ValuesAreEquivalent(h.ValueAtQuantile(50), c.want) {
				t.Errorf("%s: %d values, p50 %d µs, want 10 at %d", c.path, h.TotalCount(), h.ValueAtQuantile(50), c.want)
			}
		}
	}
	// The corrected logs stay out of the uncorrected directory's listing.
	ls := html.ReadHlogDir(dir)
	if len(ls.Series) != 1 || !reportstest.Almost(ls.Series[html.LatencyKeyOf{Workload: "w", Op: "blob.get"}].P50[0], 10, 0.01) {
		t.Errorf("uncorrected series %+v", ls.Series)
	}
}
