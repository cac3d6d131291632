package html

import (
	"math"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// This file turns the summary's figures into the points the HTML report's
// charts draw: percentile spectra and long per-second series cut into
// buckets.

// spectrumPoint is one point of a percentile spectrum: x is
// log10(1/(1-q)) for the quantile q (0 for the smallest value, 1 for 90%,
// 2 for 99% ...), ms the latency at it.
type spectrumPoint struct{ x, ms float64 }

// spectrumSteps is how many points each decade of the spectrum gets.
const spectrumSteps = 20

// percentileSpectrum samples a histogram of microseconds from the 0th
// percentile to 1-1/count and beyond, up to decades (x from 0 to decades),
// in milliseconds capped at maxMs (the exact maximum, as in the tables;
// 0: no cap). The last point is the maximum.
func percentileSpectrum(h *hdrhistogram.Histogram, decades int, maxMs float64) []spectrumPoint {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	n := decades * spectrumSteps
	out := make([]spectrumPoint, 0, n+1)
	for i := 0; i < n; i++ {
		x := float64(i) / spectrumSteps
		q := 100 * (1 - math.Pow(10, -x))
		out = append(out, spectrumPoint{x, capMs(h.ValueAtQuantile(q), maxMs)})
	}
	return append(out, spectrumPoint{float64(decades), capMs(h.Max(), maxMs)})
}

// spectrumDecades is how far right a spectrum of count values goes: to the
// percentile one value in count lies beyond, at least 99% and at most
// 99.9999%.
func spectrumDecades(count int64) int {
	if count <= 1 {
		return 2
	}
	return min(max(int(math.Ceil(math.Log10(float64(count)))), 2), 6)
}

// spectrumLabel names the quantile at x decades: 0%, 90%, 99%, 99.9%...
func spectrumLabel(x int) string {
	switch x {
	case 0:
		return "0%"
	case 1:
		return "90%"
	case 2:
		return "99%"
	}
	return "99." + strings.Repeat("9", x-2) + "%"
}

// chartBucketSize is how many seconds each point of a series n seconds
// long stands for, so that it draws at most chartMaxPoints points.
func chartBucketSize(n int) int {
	if n <= chartMaxPoints {
		return 1
	}
	return (n + chartMaxPoints - 1) / chartMaxPoints
}

// chartBuckets averages a per-second series over buckets of k seconds: each
// bucket's middle (in seconds; a second's middle for k = 1) and its mean
// per second.
func chartBuckets(perSec []float64, k int) (xs, ys []float64) {
	k = max(k, 1)
	for i := 0; i < len(perSec); i += k {
		j := min(i+k, len(perSec))
		sum := 0.0
		for _, v := range perSec[i:j] {
			sum += v
		}
		xs = append(xs, float64(i)+float64(j-i)/2)
		ys = append(ys, sum/float64(j-i))
	}
	return xs, ys
}

// chartBucketsMax is like chartBuckets for irregular points (x, y), keeping each
// bucket's largest y: a latency spike stays visible in a long run.
func chartBucketsMax(x, y []float64, k int) (xs, ys []float64) {
	if k <= 1 {
		return x, y
	}
	for i := 0; i < len(x); {
		b := math.Floor(x[i] / float64(k))
		top := y[i]
		j := i + 1
		for j < len(x) && math.Floor(x[j]/float64(k)) == b {
			top = math.Max(top, y[j])
			j++
		}
		xs = append(xs, b*float64(k)+float64(k)/2)
		ys = append(ys, top)
		i = j
	}
	return xs, ys
}
