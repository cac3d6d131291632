package compare

import (
	"os"
	"path/filepath"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stormcheck/stormcheck/reports"
)

// latencyNoise reads a run's hlog directory and returns, per (workload, op)
// key and percentile name, the standard error (ms) of that percentile
// across the run's steady seconds: the first and last seconds are partial
// and left out, and an op needs three steady seconds. Unreadable or absent
// logs give no entry (noise unknown).
func latencyNoise(dir string) map[string]map[string]float64 {
	out := map[string]map[string]float64{}
	if dir == "" {
		return out
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.hlog"))
	for _, f := range files {
		key, perSecond := readIntervals(f)
		if key == "" || len(perSecond) < 5 {
			continue
		}
		steady := perSecond[1 : len(perSecond)-1]
		m := map[string]float64{}
		for i, p := range comparedPercentiles {
			xs := make([]float64, len(steady))
			for j, q := range steady {
				xs[j] = q[i]
			}
			m[p.name] = stderr(xs)
		}
		out[key] = m
	}
	return out
}

// readIntervals reads one hlog file: its (workload, op) key from the
// header comment, and the compared percentiles (ms, in the order of
// comparedPercentiles) of each interval that holds values, in order. It
// streams the log as the report does (a line is bounded by
// MaxHlogLineBytes) and keeps the figures, not the histograms: a
// histogram is 188 KB in memory, a second of a day-long run's log one
// line. A log that stops reading gives what was read before.
func readIntervals(path string) (string, [][]float64) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil
	}
	defer f.Close()
	key := ""
	var qs [][]float64
	_ = reports.ScanLatencyLog(f, func(workload, op string) { key = opKey{workload, op}.key() },
		func(_ float64, h *hdrhistogram.Histogram) error {
			if h.TotalCount() == 0 {
				return nil
			}
			q := make([]float64, len(comparedPercentiles))
			for i, p := range comparedPercentiles {
				q[i] = float64(h.ValueAtQuantile(p.q)) / 1000
			}
			qs = append(qs, q)
			return nil
		})
	if key == "" {
		return "", nil
	}
	return key, qs
}
