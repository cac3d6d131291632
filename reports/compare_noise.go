package reports

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

var hlogHeader = regexp.MustCompile(`stormcheck latency log: workload "([^"]*)", op "([^"]*)"`)

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
		for _, p := range comparedPercentiles {
			xs := make([]float64, len(steady))
			for i, h := range steady {
				xs[i] = float64(h.ValueAtQuantile(p.q)) / 1000
			}
			m[p.name] = stderr(xs)
		}
		out[key] = m
	}
	return out
}

// readIntervals reads one hlog file: its (workload, op) key from the
// header comment, and its interval histograms in order.
func readIntervals(path string) (string, []*hdrhistogram.Histogram) {
	f, err := os.Open(path)
	if err != nil {
		return "", nil
	}
	defer f.Close()
	// The header comment names the series.
	sc := bufio.NewScanner(f)
	key := ""
	for i := 0; i < 5 && sc.Scan(); i++ {
		if m := hlogHeader.FindStringSubmatch(sc.Text()); m != nil {
			key = opKey{m[1], m[2]}.key()
			break
		}
	}
	if key == "" {
		return "", nil
	}
	if _, err := f.Seek(0, 0); err != nil {
		return "", nil
	}
	r := hdrhistogram.NewHistogramLogReader(f)
	var hs []*hdrhistogram.Histogram
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil || h == nil {
			break
		}
		if h.TotalCount() > 0 {
			hs = append(hs, h)
		}
	}
	return key, hs
}
