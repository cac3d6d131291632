package reports

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/internal/boundedread"
)

// Summary is a run's result document: what summary.json holds and what the
// reports render.
type Summary struct {
	// Scenario is the scenario's name; File the path it was loaded from.
	Scenario string `json:"scenario"`
	File     string `json:"file"`
	// Seed is the seed the run used; the same seed makes the same choices.
	Seed int64 `json:"seed"`
	// Target describes the service, e.g. "managed Azurite 3.37.0
	// (127.0.0.1)". Never a key or a connection string.
	Target string `json:"target"`
	// Started is the run's time zero: when the target was ready, after
	// Startup (for a managed Azurite, its install on first use and its
	// start), which is set-up and counted apart. Elapsed runs from Started:
	// workload set-up (LoadStart), the load, final reads. Every time in the
	// history and every per-second series count from Started.
	Started   time.Time     `json:"started"`
	Elapsed   time.Duration `json:"elapsed_ns"`
	Startup   time.Duration `json:"startup_ns,omitempty"`
	LoadStart time.Duration `json:"load_start_ns,omitempty"`
	// Interrupted is set when the run was stopped before its end.
	Interrupted bool `json:"interrupted"`
	// Error is why the run failed, if it did.
	Error string `json:"error,omitempty"`
	// RunID names the run's resources on the target (sc<run id>...).
	RunID string `json:"run_id,omitempty"`
	// Shard is set when the run was one shard of a sharded run.
	Shard *ShardInfo `json:"shard,omitempty"`
	// CleanupError says what the run could not delete from the target and
	// why; Left lists what it found there and did not delete.
	// `stormcheck cleanup --run RunID` deletes it later.
	CleanupError string   `json:"cleanup_error,omitempty"`
	Left         []string `json:"left_on_target,omitempty"`
	// NotWritten says which results could not be written, and why.
	NotWritten []string `json:"not_written,omitempty"`
	// NotRun names the workloads the target cannot run, each with why (a
	// Files REST kind on a target without an account's file endpoint);
	// the other workloads ran.
	NotRun []string `json:"not_run,omitempty"`
	// ChecksError says why the checks could not run (Checks is then empty).
	ChecksError string `json:"checks_error,omitempty"`
	// Workloads are the load figures, in scenario order.
	Workloads []WorkloadSummary `json:"workloads"`
	// Checks are the checkers' verdicts.
	Checks []checks.Result `json:"checks"`
	// Faults are the windows of the faults injected on purpose, with what
	// happened to the attempts that started in each (see FaultWindow).
	Faults []FaultWindow `json:"faults,omitempty"`
	// ClientCPU is the share of the machine's CPU the harness itself used
	// while the load ran (1 = every core busy); 0 when not measured.
	ClientCPU float64 `json:"client_cpu,omitempty"`
	// OtherCPU is the share of the machine's CPU that processes other than
	// the harness and the target it started used while the load ran
	// (steal included); nil when not measured (not Linux). High, the
	// figures measure the neighbours as much as the target.
	OtherCPU *float64 `json:"other_cpu,omitempty"`
	// PeakRSS is the harness process's peak resident memory in bytes,
	// read just before the summary was written (Linux VmHWM: load, final
	// reads and checks included); 0 when not measured. A merged run
	// holds the largest shard's (each shard's is in its own summary).
	PeakRSS int64 `json:"peak_rss_bytes,omitempty"`
	// Thresholds are the scenario's criteria with their verdicts.
	Thresholds []ThresholdResult `json:"thresholds,omitempty"`
	// AbortedBy is the abort_on_fail threshold that stopped the load.
	AbortedBy *ThresholdAbort `json:"aborted_by_threshold,omitempty"`
	// Capacity is the targets the units were measured against.
	Capacity *CapacityInfo `json:"capacity,omitempty"`
	// Units are the figures per blob, table partition and queue against
	// the checklist's targets, busiest first within each workload.
	Units []UnitSummary `json:"units,omitempty"`
	// Harness are the harness's own operations (setup, final reads), per
	// op kind, kept out of the load figures.
	Harness []OpSummary `json:"harness"`
	// Files maps a label to a path relative to the results directory
	// (history, hlogs, azurite log).
	Files map[string]string `json:"files"`
	// ExitCode is the process exit code the run ended with.
	ExitCode int `json:"exit_code"`
	// MergedFrom lists, for a run merged from shards (stormcheck merge),
	// each shard and where its times went; MergeNotes says what the merge
	// found worth saying (a clock offset beyond the stated bound first).
	MergedFrom []MergedShard `json:"merged_from,omitempty"`
	MergeNotes []string      `json:"merge_notes,omitempty"`
}

// WorkloadSummary is one workload's load figures.
type WorkloadSummary struct {
	// Name, Kind, Executor and Actors come from the scenario (set by the
	// caller; Metrics knows only the name).
	Name     string `json:"name"`
	Kind     string `json:"kind"`
	Executor string `json:"executor"`
	Actors   int    `json:"actors"`
	// Ops has one entry per op kind, sorted by op name.
	Ops []OpSummary `json:"ops"`
	// Open-loop figures (set by the caller): Arrivals is every arrival due
	// during the load; each was served (Late: more than 5 ms after its
	// intended start), Dropped (every actor busy and the backlog of Backlog
	// arrivals full) or Unserved (still in the backlog when the load
	// ended). PacerLate counts arrivals the pacer itself placed late with
	// room in the backlog (the client short of CPU); PeakBacklog is the
	// deepest the backlog was.
	Arrivals    int64 `json:"arrivals,omitempty"`
	Late        int64 `json:"late"`
	Dropped     int64 `json:"dropped"`
	Unserved    int64 `json:"unserved,omitempty"`
	PacerLate   int64 `json:"pacer_late,omitempty"`
	Backlog     int   `json:"backlog,omitempty"`
	PeakBacklog int64 `json:"peak_backlog,omitempty"`
	// Active is the period rates are over: the workload's first intended
	// start to its last return.
	Active time.Duration `json:"active_ns,omitempty"`
	// Goal names what the workload achieves ("increments", "messages
	// consumed"); Achieved counts it (see reports.Goal).
	Goal     string `json:"goal,omitempty"`
	Achieved int64  `json:"achieved,omitempty"`
	// AcquiresPerWin is, for a workload that takes turns on a lease
	// (Goal.Acquire), its acquire attempts per acquire that succeeded.
	AcquiresPerWin float64 `json:"acquires_per_win,omitempty"`
	// InFlight is, for every second of the run, the mean number of calls
	// in flight: the actors busy with the service that second.
	InFlight []float64 `json:"in_flight,omitempty"`
	// Injected counts the throttled answers (503, 500) that a fault
	// injected on purpose, by fault ("NAME (KIND)", the attempts' out.fault):
	// the ops' other throttled answers are the target's own.
	Injected map[string]int64 `json:"injected_throttled,omitempty"`
}

// OpSummary is the figures of one op kind.
type OpSummary struct {
	// Op is the op kind, e.g. "blob.put".
	Op string `json:"op"`
	// Count is every attempt; Outcomes splits it by outcome name (every
	// outcome present, zeros included).
	Count    int64            `json:"count"`
	Outcomes map[string]int64 `json:"outcomes"`
	// Rate is ok+conflict attempts per second over the active period: from
	// the workload's first intended start to its last return (for harness
	// ops, this op kind's).
	Rate float64 `json:"rate_per_s"`
	// Latency is call to return (uncorrected, service time); Corrected is
	// intended start to return (counts the wait when the harness fell
	// behind, and retries' back-off).
	Latency   Percentiles `json:"latency"`
	Corrected Percentiles `json:"corrected"`
	// Missed counts the open-loop arrivals never served (dropped from a
	// full backlog, or still waiting when the load ended) that this op
	// kind's iterations would have started with: they are in Corrected
	// (not in Count or Latency), each with the latency it had at least
	// reached by the end of the load, as wrk2 counts them.
	Missed int64 `json:"missed,omitempty"`
	// Scanned and Returned sum the entities the acknowledged table reads
	// of this kind scanned and returned (query density: returned/scanned).
	Scanned  int64 `json:"scanned,omitempty"`
	Returned int64 `json:"returned,omitempty"`
	// Responses counts attempts by HTTP status and x-ms-error-code (status
	// 0: no response), by status then code: 412 ConditionNotMet and 409
	// LeaseAlreadyPresent tell different stories.
	Responses []ResponseCount `json:"responses,omitempty"`
	// PerSecond counts attempts by outcome for every second of the run
	// (index = second since the start, by return time): throughput and
	// outcomes over time.
	PerSecond []Counts `json:"per_second,omitempty"`
	// InjectedPerSecond counts, per second, the throttled answers in
	// PerSecond (and Outcomes) that a fault of the scenario injected on
	// purpose: not the target's throttling (absent when none).
	InjectedPerSecond []int64 `json:"injected_throttled_per_second,omitempty"`
	// Histograms are the whole run's latency distributions, so that saved
	// runs can be compared as distributions and re-rendered.
	Histograms *OpHistograms `json:"histograms,omitempty"`
}

// OpHistograms holds an op's HdrHistograms, each in the HdrHistogram V2
// compressed encoding (base64), values in microseconds.
type OpHistograms struct {
	Latency   string `json:"latency"`
	Corrected string `json:"corrected"`
}

// DecodeHistogram reads one of OpHistograms' encodings.
func DecodeHistogram(enc string) (*hdrhistogram.Histogram, error) {
	return hdrhistogram.Decode([]byte(enc))
}

func EncodeHistogram(h *hdrhistogram.Histogram) string {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return string(b)
}

// Percentiles summarises a latency distribution in milliseconds.
// Percentiles come from an HdrHistogram (3 significant digits, 1µs
// resolution); Max and Mean are exact.
type Percentiles struct {
	// P50, P90, P95, P99 and P999 are the 50th, 90th, 95th, 99th and
	// 99.9th percentiles; Max the largest value and Mean the average.
	// (Summaries written before P95 existed read it as 0.)
	P50  float64 `json:"p50_ms"`
	P90  float64 `json:"p90_ms"`
	P95  float64 `json:"p95_ms"`
	P99  float64 `json:"p99_ms"`
	P999 float64 `json:"p999_ms"`
	Max  float64 `json:"max_ms"`
	Mean float64 `json:"mean_ms"`
	// Count is how many latencies the figures are over.
	Count int64 `json:"count"`
}

// Summary returns the load figures per workload (Ops filled and sorted by
// op; Kind, Executor, Actors, Late and Dropped are the caller's to set) and
// the harness figures per op kind. elapsed is the run's length, used as the
// rate's period when a workload's active period cannot be measured (a
// single instant) and as its upper bound.
func (m *Metrics) Summary(elapsed time.Duration) ([]WorkloadSummary, []OpSummary) {
	names, groups := m.workloadSeries()
	ws := make([]WorkloadSummary, 0, len(names))
	for _, w := range names {
		g := groups[w]
		first, last := int64(-1), int64(0)
		for _, s := range g {
			s.mu.Lock()
			if s.first >= 0 && (first < 0 || s.first < first) {
				first = s.first
			}
			last = max(last, s.last)
			s.mu.Unlock()
		}
		period := ActivePeriod(first, last, elapsed)
		wsum := WorkloadSummary{Name: w, Ops: make([]OpSummary, 0, len(g)), Active: period}
		goal, hasGoal := m.opts.Goals[w]
		if hasGoal {
			wsum.Goal = goal.Noun
		}
		var busy []int64
		for _, s := range g {
			o := s.summary(period)
			if hasGoal && goal.Counts(o.Op) {
				wsum.Achieved += o.Outcomes[checks.OK.String()]
			}
			if ok := o.Outcomes[checks.OK.String()]; hasGoal && o.Op == goal.Acquire && ok > 0 {
				wsum.AcquiresPerWin = math.Round(100*float64(o.Count)/float64(ok)) / 100
			}
			wsum.Ops = append(wsum.Ops, o)
			s.mu.Lock()
			for i, v := range s.busy {
				busy = addAt(busy, int64(i), v)
			}
			s.mu.Unlock()
		}
		for _, v := range busy {
			wsum.InFlight = append(wsum.InFlight, math.Round(float64(v)/1e7)/100)
		}
		ws = append(ws, wsum)
	}

	var harness []OpSummary
	var hs []*series
	for _, s := range m.allSeries() {
		if s.key.harness {
			hs = append(hs, s)
		}
	}
	sort.Slice(hs, func(i, j int) bool { return hs[i].key.kind < hs[j].key.kind })
	for _, s := range hs {
		s.mu.Lock()
		first, last := s.first, s.last
		s.mu.Unlock()
		harness = append(harness, s.summary(ActivePeriod(first, last, elapsed)))
	}
	return ws, harness
}

// activePeriod is last-first, bounded by elapsed, or elapsed when it is
// not positive.
func ActivePeriod(first, last int64, elapsed time.Duration) time.Duration {
	p := time.Duration(last - first)
	if first < 0 || p <= 0 {
		return elapsed
	}
	if elapsed > 0 && p > elapsed {
		return elapsed
	}
	return p
}

func (s *series) summary(period time.Duration) OpSummary {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.counts.Total()
	o := OpSummary{
		Op:        s.key.kind,
		Count:     n,
		Outcomes:  make(map[string]int64, NumOutcomes),
		Latency:   PercentilesOf(s.lat, n, s.latSum, s.latMax),
		Corrected: PercentilesOf(s.cor, n+s.missed, s.corSum, s.corMax),
		Missed:    s.missed,
		Scanned:   s.scanned,
		Returned:  s.returned,
		PerSecond: slices.Clone(s.perSec),
	}
	o.InjectedPerSecond = slices.Clone(s.injected)
	o.Responses = append(o.Responses, s.resp...)
	sortResponses(o.Responses)
	if n > 0 || s.missed > 0 {
		o.Histograms = &OpHistograms{Latency: EncodeHistogram(s.lat), Corrected: EncodeHistogram(s.cor)}
	}
	for _, oc := range checks.Outcomes {
		o.Outcomes[oc.String()] = s.counts[oc]
	}
	if period > 0 {
		o.Rate = float64(s.counts[checks.OK]+s.counts[checks.Conflict]) / period.Seconds()
	}
	return o
}

var summaryQuantiles = []float64{50, 90, 95, 99, 99.9}

// percentiles reads a microsecond histogram into milliseconds. Percentiles
// are capped at the exact maximum (the histogram reports the top of a
// value's bucket, which can lie above it).
func PercentilesOf(h *hdrhistogram.Histogram, n, sumNs, maxNs int64) Percentiles {
	if n == 0 {
		return Percentiles{}
	}
	maxMs := float64(maxNs) / 1e6
	v := h.ValueAtPercentilesSlice(summaryQuantiles)
	ms := func(us int64) float64 { return min(float64(us)/1e3, maxMs) }
	return Percentiles{
		P50:   ms(v[0]),
		P90:   ms(v[1]),
		P99:   ms(v[3]),
		P95:   ms(v[2]),
		P999:  ms(v[4]),
		Max:   maxMs,
		Mean:  math.Round(float64(sumNs)/float64(n)) / 1e6,
		Count: n,
	}
}

// MaxSummaryBytes bounds a summary.json that report, compare, check and
// merge read (whole). Its size grows with the run's length: 167 KB for the
// quickstart's 20 s; hot-partition's 6 workloads write 1.2 MB in 15 s,
// 2.3 MB in 60 s and 2.4 MB in 150 s (the unit table is full at 4096 units
// by then, and only the per-second series grow); that summary with its
// series made a day long (85,500 s) is 85 MB. A merged run's is as large
// as one run's of its length (4 shards of shards.yaml, 60 s: 118 KB).
// Read, a summary takes 2.5 to 4 times its size in memory (one of 248 MB:
// 0.6 GB for report, 1.0 GB for report --format json).
const MaxSummaryBytes = 256 << 20

// ReadSummary reads a summary.json written by WriteSummaryJSON. Unknown
// fields are ignored, so newer files still read; but a file that is empty,
// cut short, or JSON of something else (no "scenario" and "started", which
// every run writes, even one stopped before its target started) is an
// error: report and compare used to take another tool's summary.json for
// an empty run, rewrite report.html from it and say "no regression".
//
// A file larger than MaxSummaryBytes is refused (a *boundedread.Error)
// before it is read whole.
func ReadSummary(path string) (*Summary, error) {
	b, err := boundedread.ReadFile(path, MaxSummaryBytes, "a summary.json")
	if err != nil {
		return nil, err
	}
	const what = "not a stormcheck summary (stormcheck run writes one in its results directory)"
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, fmt.Errorf("%s: empty file: %s", path, what)
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &syn) && syn.Offset >= int64(len(b)) || errors.Is(err, io.ErrUnexpectedEOF) || err.Error() == "unexpected end of JSON input":
			return nil, fmt.Errorf("%s: cut short after %d bytes (not valid JSON to its end): not a whole stormcheck summary", path, len(b))
		case errors.As(err, &syn):
			return nil, fmt.Errorf("%s: byte %d: %v: %s", path, syn.Offset, err, what)
		case errors.As(err, &typ) && typ.Field == "":
			return nil, fmt.Errorf("%s: a JSON %s, not an object: %s", path, typ.Value, what)
		case errors.As(err, &typ):
			return nil, fmt.Errorf("%s: field %q: a JSON %s where stormcheck writes %s: %s", path, typ.Field, typ.Value, typ.Type, what)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if s.Scenario == "" || s.Started.IsZero() {
		return nil, fmt.Errorf("%s: no \"scenario\" or \"started\" field: %s", path, what)
	}
	return &s, nil
}

// CapacityInfo says which targets a run was measured against.
type CapacityInfo struct {
	Profile string `json:"profile"`
	// Scale multiplied the profile's figures; Overridden names those the
	// scenario set itself.
	Scale      float64  `json:"scale"`
	Overridden []string `json:"overridden,omitempty"`
	// Targets per unit kind, per second (account included), and where
	// the profile's figure for each comes from.
	Targets map[string]float64 `json:"targets"`
	Sources map[string]string  `json:"sources,omitempty"`
	// Emulation describes the throttling proxy, if the run had one.
	Emulation string `json:"emulation,omitempty"`
}

// HTMLFile is the HTML report's name in the results directory.
const HTMLFile = "report.html"

// MergedShard is what a merged summary keeps of each shard it was made
// from (Summary.MergedFrom).
type MergedShard struct {
	Dir   string `json:"dir"`
	Index int    `json:"index"`
	Count int    `json:"count"`
	// Started is the shard's time zero by its own wall clock; Shift is
	// Started minus the merged run's time zero (the earliest Started): the
	// shard's times are moved by it.
	Started time.Time     `json:"started"`
	Shift   time.Duration `json:"shift_ns"`
	// Bound is the stated clock-offset bound (clock_offset_bound).
	Bound time.Duration `json:"clock_offset_bound_ns"`
	// Late is how late the shard's load started against the agreed start.
	Late time.Duration `json:"late_ns"`
	// ClockOffset is the shard's own estimate of its clock minus the
	// service's (from Date headers).
	ClockOffset ClockOffset `json:"clock_offset"`
	// Widened is how much every real-time interval of the shard was
	// widened on each side: the stated bound, or more when the estimates
	// show the bound exceeded (BeyondBound > 0).
	Widened time.Duration `json:"widened_ns"`
	// BeyondBound is by how much, at least, this shard's clock offset from
	// shard Versus exceeds the stated bound (0: not shown to exceed;
	// Versus then means nothing).
	BeyondBound time.Duration `json:"beyond_bound_ns,omitempty"`
	Versus      int           `json:"versus,omitempty"`
	// Ops is how many records of its history went into the merged one.
	Ops int64 `json:"ops"`
	// ExitCode, Interrupted and Error are the shard's own run's.
	ExitCode    int    `json:"exit_code"`
	Interrupted bool   `json:"interrupted,omitempty"`
	Error       string `json:"error,omitempty"`
}
