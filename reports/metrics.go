// Package reports turns recorded operations into the figures a run reports:
// a live, concurrency-safe recorder (Metrics), per-second HdrHistogram logs,
// the run's result document (Summary, summary.json), the end-of-run text
// report and the plain progress line.
package reports

import (
	"math"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stormcheck/stormcheck/checks"
)

// Latency histograms hold whole microseconds from 1µs to 1h with 3
// significant digits; longer latencies are recorded as 1h (the exact maximum
// is kept apart, so Max still tells the truth).
const (
	HistLowest  = 1
	HistHighest = int64(time.Hour / time.Microsecond)
	HistDigits  = 3
)

// maxSeconds bounds the per-second series (about 48 days), so a corrupt
// timestamp cannot make the recorder allocate without limit.
const maxSeconds = 1 << 22

// Counts holds one count per outcome (ok, conflict, throttled, error,
// unknown), indexed by checks.Outcome: c[checks.OK], c[checks.Conflict] and
// so on.
type Counts [5]int64

// numOutcomes is how many outcomes checks defines; a test keeps it in step.
const NumOutcomes = len(Counts{})

// Total is the sum over every outcome.
func (c Counts) Total() int64 {
	var t int64
	for _, n := range c {
		t += n
	}
	return t
}

func (c *Counts) add(o Counts) {
	for i, n := range o {
		c[i] += n
	}
}

// MetricsOptions configures a Metrics.
type MetricsOptions struct {
	// HlogDir, when set, is where one HdrHistogram log per (workload, op)
	// is streamed as the run goes (see Close). The directory is created if
	// needed. Empty: no logs.
	HlogDir string
	// Start is the instant operation timestamps count from (time zero of
	// Op.Intended/Call/Return). Progress uses it to tell which second is
	// the last full one, and the logs carry it as their StartTime. Zero
	// means the time NewMetrics is called.
	Start time.Time
	// Workloads lists the scenario's workloads in scenario order. They are
	// reported in this order, with zeros before their first operation;
	// workloads not listed follow, sorted by name. Optional.
	Workloads []string
	// Goals says, per workload name, what its progress counts as achieved
	// (see GoalOf). Workloads without one show no achievement.
	Goals map[string]Goal
	// Export keeps, per (workload, op, outcome), the counts of latencies
	// in LiveBuckets that live exporters (Prometheus, OTLP) read with
	// Live. Off, Record does not pay for them.
	Export bool
}

// WorkloadProgress is a cheap snapshot of one workload's load operations,
// for progress bars and progress lines. Harness operations are not in it.
type WorkloadProgress struct {
	// Workload is the workload's name.
	Workload string
	// Ops counts every recorded attempt; the outcome counts below add up
	// to it.
	Ops int64
	// OK, Conflicts, Throttled, Errors and Unknown count attempts by
	// outcome.
	OK, Conflicts, Throttled, Errors, Unknown int64
	// Rate is attempts per second over the last full second of the run
	// (all outcomes).
	Rate float64
	// Achieved counts what the workload is for (Goal.Noun: increments
	// acknowledged, blobs created, messages consumed), zero with no goal.
	Achieved int64
	// Goal names what Achieved counts; empty when the workload has none.
	Goal string
	// AchievedRate is Achieved's rate over the last full second.
	AchievedRate float64
}

// seriesKey names one series. Harness series are keyed by op kind alone.
type seriesKey struct {
	harness  bool
	workload string
	kind     string
}

// series holds everything recorded for one (workload, kind); its mutex is
// the only lock Record holds.
type series struct {
	key seriesKey

	mu       sync.Mutex
	counts   Counts
	lat, cor *hdrhistogram.Histogram // microseconds
	latSum   int64                   // nanoseconds, for the exact mean
	corSum   int64
	latMax   int64 // nanoseconds, exact
	corMax   int64
	missed   int64 // arrivals never served, in cor only (RecordMissed)
	first    int64 // earliest Intended seen (ns since start)
	last     int64 // latest Return seen
	perSec   []Counts
	// injected counts, per second, the throttled answers a fault of the
	// scenario gave on purpose (the attempt's out.fault names it); nil
	// until one. They are in counts and perSec as throttled, and the
	// thresholds on throttling leave them out.
	injected []int64
	iv       *intervals // per-second interval histograms for the log; nil without one
	civ      *intervals // the same of corrected latency (hlog/corrected/)
	// scanned and returned sum the entities acknowledged queries scanned
	// and returned (the checklist's query density).
	scanned, returned int64
	// acct is this series' share of the account (see Units): kept here,
	// under the series lock, so that no lock is shared by every operation.
	acct unitSeries
	// resp counts attempts by HTTP status and x-ms-error-code.
	// (a few distinct responses per op: a slice scanned beats hashing)
	resp []ResponseCount
	// busy is, per second, the nanoseconds calls of this series spent in
	// flight during that second (mean calls in flight = busy/1s).
	busy []int64
	// live holds the latency buckets for exporters; nil unless Export.
	live *liveHist
}

// Metrics records operations live, from many goroutines at once. Each
// (workload, op) series has its own lock; finding a series takes no lock.
// Harness operations (Actor < 0: setup and final reads) are tallied apart,
// by op kind, and never mix with the load figures or the logs.
type Metrics struct {
	opts  MetricsOptions
	start time.Time

	// index is copied on write: lookups are a lock-free map read, and a
	// new series (rare) replaces the whole map under mu.
	index atomic.Pointer[map[seriesKey]*series]
	mu    sync.Mutex

	hl *hlogs // nil without HlogDir

	units units
}

// NewMetrics returns an empty recorder. With opts.HlogDir set it starts a
// background writer; call Close at the end of the run.
func NewMetrics(opts MetricsOptions) *Metrics {
	m := &Metrics{opts: opts, start: opts.Start}
	if m.start.IsZero() {
		m.start = time.Now()
	}
	idx := map[seriesKey]*series{}
	m.index.Store(&idx)
	if opts.HlogDir != "" {
		m.hl = newHlogs(opts.HlogDir, m.start)
		go m.hlogLoop()
	}
	return m
}

func NewHistogram() *hdrhistogram.Histogram {
	return hdrhistogram.New(HistLowest, HistHighest, HistDigits)
}

// micros converts a latency in nanoseconds to whole microseconds (rounded
// to nearest), clamped to what the histograms hold.
func Micros(ns int64) int64 {
	if ns <= 0 {
		return 0
	}
	us := (ns + 500) / 1000
	if us > HistHighest {
		us = HistHighest
	}
	return us
}

// lookup finds or creates the series for k.
func (m *Metrics) lookup(k seriesKey) *series {
	if s, ok := (*m.index.Load())[k]; ok {
		return s
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	old := *m.index.Load()
	if s, ok := old[k]; ok {
		return s
	}
	s := &series{key: k, lat: NewHistogram(), cor: NewHistogram(), first: -1, acct: unitSeries{first: -1, firstThrottle: -1}}
	if m.opts.Export && !k.harness {
		s.live = &liveHist{}
	}
	if m.hl != nil && !k.harness && !m.hl.closed {
		s.iv = m.hl.newIntervals(k, false)
		s.civ = m.hl.newIntervals(k, true)
	}
	idx := make(map[seriesKey]*series, len(old)+1)
	for kk, v := range old {
		idx[kk] = v
	}
	idx[k] = s
	m.index.Store(&idx)
	return s
}

// Record adds one attempt. It is safe for concurrent use and cheap: one
// lock-free lookup and a short per-series critical section. Latencies are
// recorded in microseconds; a corrected latency below the uncorrected one
// (Intended after Call, a caller bug) is raised to it. Outcomes outside
// the known ones count as unknown.
func (m *Metrics) Record(op *checks.Op) {
	k := seriesKey{harness: op.IsHarness(), kind: op.Kind}
	if !k.harness {
		k.workload = op.Workload
	}
	s := m.lookup(k)

	o := op.Outcome
	if int(o) >= NumOutcomes {
		o = checks.Unknown
	}
	lat := max(op.Latency(), 0)
	cor := max(op.CorrectedLatency(), lat)
	latUs, corUs := Micros(lat), Micros(cor)
	sec := min(max(op.Return/int64(time.Second), 0), maxSeconds-1)

	s.mu.Lock()
	s.counts[o]++
	_ = s.lat.RecordValue(latUs) // in range by construction
	_ = s.cor.RecordValue(corUs)
	s.latSum += lat
	s.corSum += cor
	s.latMax = max(s.latMax, lat)
	s.corMax = max(s.corMax, cor)
	if intended := max(op.Intended, 0); s.first < 0 || intended < s.first {
		s.first = intended
	}
	s.last = max(s.last, op.Return)
	if sec >= int64(len(s.perSec)) {
		s.perSec = append(s.perSec, make([]Counts, sec+1-int64(len(s.perSec)))...)
	}
	s.perSec[sec][o]++
	if o == checks.Throttled && op.Out.Fault != "" {
		s.injected = addAt(s.injected, sec, 1)
	}
	if code := op.Out.ErrorCode; o == checks.OK && code == "" && SMBOp(op.Kind) {
		s.countResponse(0, SMBSuccess) // an SMB answer, not "no response"
	} else {
		s.countResponse(op.Out.Status, code)
	}
	s.busy = addBusy(s.busy, op.Call, op.Return)
	if s.live != nil {
		s.live.record(o, cor)
	}
	if o == checks.OK && op.Out.Scanned > 0 {
		s.scanned += int64(op.Out.Scanned)
		s.returned += int64(returned(op))
	}
	us, unit := UsageOf(op)
	if counted(op) && !(unit && us.Kind == UnitFile) { // Files calls have their own targets (fileunits.go)
		s.acct.add(op, accountAmount(us, unit))
	}
	completed := s.iv != nil && s.iv.record(sec, latUs)
	if s.civ != nil && s.civ.record(sec, corUs) {
		completed = true
	}
	s.mu.Unlock()

	if completed {
		m.hl.wake()
	}
	m.units.record(op, us, unit)
}

// RecordMissed adds count open-loop arrivals of a workload that were never
// served to the corrected histogram of kind (the op its iterations start
// with), each with latency ns: what it had at least waited by the end of
// the load. They count in the corrected figures only: no attempt was made.
func (m *Metrics) RecordMissed(workload, kind string, latency, count int64) {
	if count <= 0 {
		return
	}
	s := m.lookup(seriesKey{workload: workload, kind: kind})
	latency = max(latency, 0)
	s.mu.Lock()
	_ = s.cor.RecordValues(Micros(latency), count)
	if latency > 0 && count > (math.MaxInt64-s.corSum)/latency {
		s.corSum = math.MaxInt64 // saturate: a mean past 292 years says enough
	} else {
		s.corSum += latency * count
	}
	s.corMax = max(s.corMax, latency)
	s.missed += count
	s.mu.Unlock()
}

// allSeries returns every series, in no particular order.
func (m *Metrics) allSeries() []*series {
	idx := *m.index.Load()
	out := make([]*series, 0, len(idx))
	for _, s := range idx {
		out = append(out, s)
	}
	return out
}

// workloadSeries groups the load series by workload, in report order
// (opts.Workloads first, then the rest by name), each group sorted by kind.
func (m *Metrics) workloadSeries() (names []string, groups map[string][]*series) {
	groups = map[string][]*series{}
	for _, s := range m.allSeries() {
		if !s.key.harness {
			groups[s.key.workload] = append(groups[s.key.workload], s)
		}
	}
	seen := map[string]bool{}
	for _, w := range m.opts.Workloads {
		if !seen[w] {
			seen[w] = true
			names = append(names, w)
		}
	}
	var rest []string
	for w := range groups {
		if !seen[w] {
			rest = append(rest, w)
		}
	}
	sort.Strings(rest)
	names = append(names, rest...)
	for _, g := range groups {
		sort.Slice(g, func(i, j int) bool { return g[i].key.kind < g[j].key.kind })
	}
	return names, groups
}

// Progress is ProgressAt with the time elapsed since opts.Start.
func (m *Metrics) Progress() []WorkloadProgress {
	return m.ProgressAt(time.Since(m.start))
}

// ProgressAt snapshots every workload's counts, with Rate taken from the
// last second of the run that is complete at elapsed.
func (m *Metrics) ProgressAt(elapsed time.Duration) []WorkloadProgress {
	full := int64(elapsed/time.Second) - 1
	names, groups := m.workloadSeries()
	out := make([]WorkloadProgress, 0, len(names))
	for _, w := range names {
		var c Counts
		var last, achieved, achievedLast int64
		goal, hasGoal := m.opts.Goals[w]
		for _, s := range groups[w] {
			counts := goal.Counts(s.key.kind)
			s.mu.Lock()
			c.add(s.counts)
			if full >= 0 && full < int64(len(s.perSec)) {
				last += s.perSec[full].Total()
				if counts {
					achievedLast += s.perSec[full][checks.OK]
				}
			}
			if counts {
				achieved += s.counts[checks.OK]
			}
			s.mu.Unlock()
		}
		p := progressOf(w, c, last)
		if hasGoal {
			p.Goal, p.Achieved, p.AchievedRate = goal.Noun, achieved, float64(achievedLast)
		}
		out = append(out, p)
	}
	return out
}

// HarnessProgress snapshots the harness operations (setup and final reads)
// as one pseudo-workload named "harness", e.g. to show setup progress.
func (m *Metrics) HarnessProgress() WorkloadProgress {
	return m.HarnessProgressAt(time.Since(m.start))
}

func (m *Metrics) HarnessProgressAt(elapsed time.Duration) WorkloadProgress {
	full := int64(elapsed/time.Second) - 1
	var c Counts
	var last int64
	for _, s := range m.allSeries() {
		if !s.key.harness {
			continue
		}
		s.mu.Lock()
		c.add(s.counts)
		if full >= 0 && full < int64(len(s.perSec)) {
			last += s.perSec[full].Total()
		}
		s.mu.Unlock()
	}
	return progressOf("harness", c, last)
}

func progressOf(w string, c Counts, lastSecond int64) WorkloadProgress {
	return WorkloadProgress{
		Workload:  w,
		Ops:       c.Total(),
		OK:        c[checks.OK],
		Conflicts: c[checks.Conflict],
		Throttled: c[checks.Throttled],
		Errors:    c[checks.Error],
		Unknown:   c[checks.Unknown],
		Rate:      float64(lastSecond),
	}
}

// PerSecond returns a copy of one load series' counts per second of the
// run (index = second, by Op.Return), for throughput over time and noise
// estimates. Nil if the series recorded nothing.
func (m *Metrics) PerSecond(workload, kind string) []Counts {
	s, ok := (*m.index.Load())[seriesKey{workload: workload, kind: kind}]
	if !ok {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.perSec)
}

// returned is how many entities an acknowledged table read returned: a
// query page's entities, or the one entity of a point query.
func returned(op *checks.Op) int {
	if op.Kind == checks.KindTableGet {
		return 1
	}
	return len(op.Out.Entities)
}
