package reports

import (
	"fmt"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// ScheduleLag is an open loop's own lateness: for every arrival served,
// the time from its intended start to the moment its first call was handed
// to the SDK. The corrected latency counts it (as wrk2 does); it is
// reported apart so that a reader sees how much of the corrected latency
// is the client's and how much the target's.
type ScheduleLag struct {
	// Op is the op kind the workload's iterations start with: the one
	// whose corrected latency carries the lag.
	Op string `json:"op"`
	Percentiles
	// Histogram is the lag's HdrHistogram (microseconds, V2 compressed,
	// base64), so that shards' lags merge.
	Histogram string `json:"histogram,omitempty"`
}

// lagHist holds one series' schedule lags, under the series lock.
type lagHist struct {
	h             *hdrhistogram.Histogram // microseconds
	n, sum, maxNs int64
}

// RecordLag adds the schedule lag of one open-loop arrival whose first call
// (of op kind) was made: lag nanoseconds from its intended start to the
// call. It is safe for concurrent use.
func (m *Metrics) RecordLag(workload, kind string, lag int64) {
	s := m.lookup(seriesKey{workload: workload, kind: kind})
	lag = max(lag, 0)
	s.mu.Lock()
	if s.lag == nil {
		s.lag = &lagHist{h: NewHistogram()}
	}
	l := s.lag
	_ = l.h.RecordValue(Micros(lag)) // in range by construction
	l.n++
	l.sum += lag
	l.maxNs = max(l.maxNs, lag)
	s.mu.Unlock()
}

// scheduleLag sums the lags of a workload's series; nil when none has one
// (a closed loop).
func scheduleLag(g []*series) *ScheduleLag {
	var sum lagHist
	op := ""
	for _, s := range g {
		s.mu.Lock()
		if l := s.lag; l != nil {
			if sum.h == nil {
				sum.h = NewHistogram()
			}
			sum.h.Merge(l.h)
			if op == "" || l.n > sum.n {
				op = s.key.kind // the kind most arrivals started with
			}
			sum.n += l.n
			sum.sum += l.sum
			sum.maxNs = max(sum.maxNs, l.maxNs)
		}
		s.mu.Unlock()
	}
	if sum.h == nil {
		return nil
	}
	return &ScheduleLag{Op: op, Percentiles: PercentilesOf(sum.h, sum.n, sum.sum, sum.maxNs), Histogram: EncodeHistogram(sum.h)}
}

// MergeScheduleLags sums shards' schedule lags of one workload from their
// histograms (Max is the largest maximum, Mean the count-weighted mean);
// nil when none has one. A lag whose histogram does not decode is left
// out, and named in the error.
func MergeScheduleLags(lags []*ScheduleLag) (*ScheduleLag, error) {
	var h *hdrhistogram.Histogram
	var out ScheduleLag
	var n int64
	var sumNs, maxMs float64
	var bad error
	for _, l := range lags {
		if l == nil {
			continue
		}
		d, err := DecodeHistogram(l.Histogram)
		if err != nil {
			bad = fmt.Errorf("schedule lag of %s: %w", l.Op, err)
			continue
		}
		if h == nil {
			h = NewHistogram()
			out.Op = l.Op
		}
		h.Merge(d)
		n += l.Count
		sumNs += l.Mean * 1e6 * float64(l.Count)
		maxMs = max(maxMs, l.Max)
	}
	if h == nil {
		return nil, bad
	}
	out.Percentiles = PercentilesOf(h, n, int64(sumNs), int64(maxMs*1e6))
	out.Histogram = EncodeHistogram(h)
	return &out, bad
}

// ScheduleLagLine is a workload's schedule lag in one line, and when the
// lag, not the target, is most of the corrected latency of the op the
// arrivals start with (at the median or at p99), a sentence that says so.
// Empty for a workload without one (a closed loop).
func ScheduleLagLine(ws WorkloadSummary) string {
	l := ws.ScheduleLag
	if l == nil || l.Count == 0 {
		return ""
	}
	s := fmt.Sprintf("schedule lag p50/p99/max %s / %s / %s ms (intended start to call, %s, %d arrivals)",
		Ms(l.P50), Ms(l.P99), Ms(l.Max), l.Op, l.Count)
	if at := LatenessDominates(ws); at != "" {
		s += "; " + at
	}
	return s
}

// LatenessDominates says, when it is so, that the client's own lateness
// and not the target is most of the corrected latency of the op the
// arrivals start with: at a percentile (p50, then p99) where the schedule
// lag is at least the calls' own latency. Empty otherwise.
func LatenessDominates(ws WorkloadSummary) string {
	l := ws.ScheduleLag
	if l == nil || l.Count == 0 {
		return ""
	}
	for _, o := range ws.Ops {
		if o.Op != l.Op || o.Latency.Count == 0 {
			continue
		}
		for _, p := range []struct {
			name          string
			lag, lat, cor float64
		}{{"p50", l.P50, o.Latency.P50, o.Corrected.P50}, {"p99", l.P99, o.Latency.P99, o.Corrected.P99}} {
			if p.lag > 0 && p.lag >= p.lat {
				return fmt.Sprintf("lateness, not the target, dominates %s's corrected %s: %s ms, of which the client's schedule lag is %s ms and the calls took %s ms",
					l.Op, p.name, Ms(p.cor), Ms(p.lag), Ms(p.lat))
			}
		}
	}
	return ""
}
