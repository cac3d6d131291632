package reports

import (
	"sort"
	"time"

	"github.com/stormcheck/stormcheck/checks"
)

// LiveBuckets are the upper bounds (inclusive) of the latency buckets live
// exporters publish, in seconds: Prometheus's defaults widened to 1 ms at
// the bottom, where Azurite and a healthy account answer.
var LiveBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// liveBounds is LiveBuckets in nanoseconds, for the hot path.
var liveBounds = func() []int64 {
	b := make([]int64, len(LiveBuckets))
	for i, s := range LiveBuckets {
		b[i] = int64(s * 1e9)
	}
	return b
}()

// liveHist counts one series' corrected latencies per outcome into
// LiveBuckets (the last slot is above every bound), guarded by the series
// lock.
type liveHist struct {
	counts [NumOutcomes][]uint64
	sum    [NumOutcomes]int64 // nanoseconds
}

func (h *liveHist) record(o checks.Outcome, ns int64) {
	if h.counts[o] == nil {
		h.counts[o] = make([]uint64, len(liveBounds)+1)
	}
	i := 0
	for i < len(liveBounds) && ns > liveBounds[i] {
		i++
	}
	h.counts[o][i]++
	h.sum[o] += ns
}

// Response is an HTTP status and x-ms-error-code pair. Status 0 means no
// response (a timeout or a connection error), as k6 records it.
type Response struct {
	Status int    `json:"status"`
	Code   string `json:"error_code,omitempty"`
}

// maxResponses bounds the distinct responses a series counts; further
// ones are counted as status -1, code "(other)".
const maxResponses = 64

// countResponse counts one attempt's status and error code. The caller
// holds the series lock.
func (s *series) countResponse(status int, code string) {
	for i := range s.resp {
		if r := &s.resp[i]; r.Status == status && r.Code == code {
			r.Count++
			return
		}
	}
	if len(s.resp) >= maxResponses {
		status, code = -1, "(other)"
		for i := range s.resp {
			if r := &s.resp[i]; r.Status == status && r.Code == code {
				r.Count++
				return
			}
		}
	}
	s.resp = append(s.resp, ResponseCount{Response{status, code}, 1})
}

// addBusy adds the time a call spent in flight, [call, ret) in nanoseconds
// since the start, to the seconds it overlapped.
func addBusy(busy []int64, call, ret int64) []int64 {
	call = max(call, 0)
	if ret <= call {
		return busy
	}
	sec := time.Second.Nanoseconds()
	last := min(ret/sec, maxSeconds-1)
	if last >= int64(len(busy)) {
		busy = append(busy, make([]int64, last+1-int64(len(busy)))...)
	}
	for s := min(call/sec, last); s <= last; s++ {
		from, to := max(call, s*sec), min(ret, (s+1)*sec)
		if to > from {
			busy[s] += to - from
		}
	}
	return busy
}

// LiveSeries is one (workload, op) series as exporters read it: cumulative
// since the start of the run.
type LiveSeries struct {
	Workload, Op string
	// Outcomes counts attempts by outcome (indexed by checks.Outcome).
	Outcomes Counts
	// Latency is, per outcome with attempts, the corrected latency
	// distribution in LiveBuckets; nil without MetricsOptions.Export.
	Latency map[checks.Outcome]LiveHistogram
	// Responses counts attempts by status and error code, by status then
	// code.
	Responses []ResponseCount
}

// LiveHistogram is a latency distribution in LiveBuckets: Counts[i] is how
// many latencies fell at or below LiveBuckets[i] and above the bound
// before (not cumulative); the last entry is above every bound. Sum is in
// seconds.
type LiveHistogram struct {
	Counts []uint64
	Count  uint64
	Sum    float64
}

// ResponseCount is how many attempts got one response.
type ResponseCount struct {
	Response
	Count int64 `json:"count"`
}

// LiveWorkload is one workload's live figures beyond its series.
type LiveWorkload struct {
	Name string
	// Goal and Achieved: see WorkloadProgress.
	Goal     string
	Achieved int64
	// InFlight is the mean number of calls in flight over the last full
	// second: the actors busy with the service.
	InFlight float64
}

// LiveSnapshot is everything live exporters publish, read at one instant.
type LiveSnapshot struct {
	// Start is the instant the run's clock counts from.
	Start     time.Time
	Series    []LiveSeries
	Workloads []LiveWorkload
}

// Live reads the load series for exporters (harness operations are left
// out). It takes each series' lock briefly; cost grows with the series and
// the distinct responses, not with the operations recorded.
func (m *Metrics) Live() LiveSnapshot {
	return m.liveAt(time.Since(m.start))
}

func (m *Metrics) liveAt(elapsed time.Duration) LiveSnapshot {
	full := int64(elapsed/time.Second) - 1
	names, groups := m.workloadSeries()
	snap := LiveSnapshot{Start: m.start}
	for _, w := range names {
		lw := LiveWorkload{Name: w}
		goal, hasGoal := m.opts.Goals[w]
		if hasGoal {
			lw.Goal = goal.Noun
		}
		for _, s := range groups[w] {
			ls := LiveSeries{Workload: w, Op: s.key.kind}
			s.mu.Lock()
			ls.Outcomes = s.counts
			if hasGoal && goal.Counts(s.key.kind) {
				lw.Achieved += s.counts[checks.OK]
			}
			if full >= 0 && full < int64(len(s.busy)) {
				lw.InFlight += float64(s.busy[full]) / 1e9
			}
			ls.Responses = append(ls.Responses, s.resp...)
			if s.live != nil {
				ls.Latency = map[checks.Outcome]LiveHistogram{}
				for o, c := range s.live.counts {
					if c == nil {
						continue
					}
					h := LiveHistogram{Counts: append([]uint64(nil), c...), Sum: float64(s.live.sum[o]) / 1e9}
					for _, n := range c {
						h.Count += n
					}
					ls.Latency[checks.Outcome(o)] = h
				}
			}
			s.mu.Unlock()
			sortResponses(ls.Responses)
			snap.Series = append(snap.Series, ls)
		}
		snap.Workloads = append(snap.Workloads, lw)
	}
	return snap
}

func sortResponses(rs []ResponseCount) {
	sort.Slice(rs, func(i, j int) bool {
		if rs[i].Status != rs[j].Status {
			return rs[i].Status < rs[j].Status
		}
		return rs[i].Code < rs[j].Code
	})
}
