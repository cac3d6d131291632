package merge

import (
	"fmt"

	"math"
	"slices"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stormcheck/stormcheck/reports"
)

// ActivePeriods gives each workload's active period (its rate period) from
// ws; for the account (name ""), the load phase: the longest workload's
// (not the run with Azurite's start), or elapsed when none was measured. A
// run's units and a merged run's are measured over it.
func ActivePeriods(ws []reports.WorkloadSummary, elapsed time.Duration) func(string) time.Duration {
	return func(name string) time.Duration {
		var load time.Duration
		for _, w := range ws {
			if w.Name == name {
				return w.Active
			}
			load = max(load, w.Active)
		}
		if load > 0 {
			return load
		}
		return elapsed
	}
}

// MergeInput is what MergeSummary makes a merged summary from.
type MergeInput struct {
	// Shards are the shards' results, ordered by index; Plan their places
	// on the merged time line (PlanShards), with Ops filled from the
	// history merge; Origin the merged time zero; Notes what the planning
	// and the merge found worth saying.
	Shards []ShardResults
	Plan   []reports.MergedShard
	Origin time.Time
	Notes  []string
	// Replayed holds every record of the merged history, on the merged
	// time line before widening: the counts, per-second series, units and
	// in-flight figures come from it.
	Replayed *reports.Metrics
	// Latency is the hlogs' merged totals (MergeHlogs).
	Latency map[LatencyKey]*MergedLatency
	// Targets and Bandwidth are the unit targets (nil: the checklist's).
	Targets, Bandwidth map[reports.UnitKind]float64
}

// MergeSummary makes the merged run's summary: figures from the replayed
// merged history, latency distributions from the shards' logs added
// together (a shard whose log does not hold every attempt of an op, or
// whose corrected figures hold open-loop arrivals never served, which
// no log holds, gives its whole-run histogram from summary.json instead:
// also exact), the shards' open-loop and fault figures added up. Checks,
// unit latencies and thresholds are the caller's, after.
func MergeSummary(in MergeInput) *reports.Summary {
	first := in.Shards[0].Summary
	s := &reports.Summary{
		Scenario: first.Scenario, File: first.File, Seed: first.Seed,
		Target:  fmt.Sprintf("%s, %d shards", first.Target, len(in.Shards)),
		Started: in.Origin, RunID: first.Shard.RunID, Capacity: first.Capacity,
		Files: map[string]string{}, MergedFrom: in.Plan, MergeNotes: in.Notes,
	}
	loadStart := time.Duration(math.MaxInt64)
	for i, sh := range in.Shards {
		ss, p := sh.Summary, in.Plan[i]
		s.Elapsed = max(s.Elapsed, p.Shift+ss.Elapsed)
		s.Startup = max(s.Startup, ss.Startup)
		if ss.LoadStart > 0 {
			loadStart = min(loadStart, p.Shift+ss.LoadStart)
		}
		s.Interrupted = s.Interrupted || ss.Interrupted
		tag := fmt.Sprintf("shard %d: ", p.Index)
		if ss.Error != "" {
			s.Error = joinLines(s.Error, tag+ss.Error)
		}
		if ss.CleanupError != "" {
			s.CleanupError = joinLines(s.CleanupError, tag+ss.CleanupError)
		}
		s.Left = append(s.Left, ss.Left...)
		for _, nw := range ss.NotWritten {
			s.NotWritten = append(s.NotWritten, tag+nw)
		}
		s.ClientCPU = max(s.ClientCPU, ss.ClientCPU)
		if o := ss.OtherCPU; o != nil && (s.OtherCPU == nil || *o > *s.OtherCPU) {
			// the busiest shard's machine: shards on one machine are each
			// other's other work, and do compete for it
			s.OtherCPU = new(*o)
		}
		s.PeakRSS = max(s.PeakRSS, ss.PeakRSS)
		for _, f := range ss.Faults {
			f.Fault = fmt.Sprintf("%s (shard %d)", f.Fault, p.Index)
			f.From += p.Shift
			f.To += p.Shift
			s.Faults = append(s.Faults, f)
		}
	}
	if loadStart != time.Duration(math.MaxInt64) {
		s.LoadStart = loadStart
	}
	ws, harness := in.Replayed.Summary(s.Elapsed)
	for i := range ws {
		w := &ws[i]
		missed := map[string]int64{}
		var lags []*reports.ScheduleLag
		for _, sh := range in.Shards {
			for _, sw := range sh.Summary.Workloads {
				if sw.Name != w.Name {
					continue
				}
				w.Kind, w.Executor = sw.Kind, sw.Executor
				w.Actors += sw.Actors
				w.Arrivals += sw.Arrivals
				w.Late += sw.Late
				w.Dropped += sw.Dropped
				w.Unserved += sw.Unserved
				w.PacerLate += sw.PacerLate
				w.Backlog += sw.Backlog
				w.PeakBacklog = max(w.PeakBacklog, sw.PeakBacklog)
				lags = append(lags, sw.ScheduleLag)
				for f, n := range sw.Injected {
					if w.Injected == nil {
						w.Injected = map[string]int64{}
					}
					w.Injected[f] += n
				}
				for _, o := range sw.Ops {
					missed[o.Op] += o.Missed
				}
			}
		}
		lag, err := reports.MergeScheduleLags(lags)
		if err != nil {
			s.MergeNotes = append(s.MergeNotes, fmt.Sprintf("workload %s: %v", w.Name, err))
		}
		w.ScheduleLag = lag
		for j := range w.Ops {
			o := &w.Ops[j]
			o.Missed = missed[o.Op]
			s.MergeNotes = append(s.MergeNotes, in.mergeLatency(w.Name, o)...)
		}
	}
	// Workloads no shard recorded an operation of still appear.
	for _, sw := range first.Workloads {
		if !slices.ContainsFunc(ws, func(w reports.WorkloadSummary) bool { return w.Name == sw.Name }) {
			w := reports.WorkloadSummary{Name: sw.Name, Kind: sw.Kind, Executor: sw.Executor}
			for _, sh := range in.Shards {
				for _, o := range sh.Summary.Workloads {
					if o.Name == sw.Name {
						w.Actors += o.Actors
					}
				}
			}
			ws = append(ws, w)
		}
	}
	s.Workloads, s.Harness = ws, harness
	s.Units = in.Replayed.Units(ActivePeriods(ws, s.Elapsed), in.Targets, in.Bandwidth)
	return s
}

// mergeLatency sets an op's latency figures from the shards': the merged
// hlog totals when the logs hold every value the shards' summaries count,
// else (a log not written, attempts recorded after it closed, open-loop
// arrivals never served, which count in the corrected figures and no log
// holds) the sum of the shards' whole-run histograms from summary.json:
// exact too. Max is the largest of the shards' exact maxima, Mean the
// count-weighted mean of theirs. It returns what is worth saying.
func (in MergeInput) mergeLatency(workload string, o *reports.OpSummary) (notes []string) {
	logs := in.Latency[LatencyKey{workload, o.Op}]
	if logs == nil {
		logs = &MergedLatency{}
	}
	var ops []*reports.OpSummary
	for _, sh := range in.Shards {
		if so := findOp(sh.Summary, workload, o.Op); so != nil {
			ops = append(ops, so)
		}
	}
	merge := func(fromLog *hdrhistogram.Histogram, pct func(*reports.OpSummary) reports.Percentiles, enc func(*reports.OpHistograms) string, which string) (*hdrhistogram.Histogram, reports.Percentiles) {
		var count, missed int64
		var maxMs, sumMs float64
		for _, so := range ops {
			p := pct(so)
			count += p.Count
			maxMs = max(maxMs, p.Max)
			sumMs += p.Mean * float64(p.Count)
		}
		if which == "corrected" {
			missed = o.Missed
		}
		h := reports.NewHistogram()
		var logCount int64
		if fromLog != nil {
			logCount = fromLog.TotalCount()
		}
		if fromLog != nil && logCount == count {
			h.Merge(fromLog)
		} else {
			if logCount+missed != count {
				notes = append(notes, fmt.Sprintf("hlog %s %s (%s): the shards' logs hold %d values, their summaries count %d: the merged %s latency of %s comes from the summaries' whole-run histograms",
					workload, o.Op, which, logCount, count, which, o.Op))
			}
			for _, so := range ops {
				if so.Histograms == nil {
					continue
				}
				if d, err := reports.DecodeHistogram(enc(so.Histograms)); err == nil {
					h.Merge(d)
				}
			}
		}
		n := h.TotalCount()
		var sumNs int64
		if count > 0 {
			sumNs = int64(math.Round(sumMs / float64(count) * 1e6 * float64(n)))
		}
		return h, reports.PercentilesOf(h, n, sumNs, int64(math.Round(maxMs*1e6)))
	}
	lat, lp := merge(logs.Latency, func(so *reports.OpSummary) reports.Percentiles { return so.Latency }, func(h *reports.OpHistograms) string { return h.Latency }, "plain")
	cor, cp := merge(logs.Corrected, func(so *reports.OpSummary) reports.Percentiles { return so.Corrected }, func(h *reports.OpHistograms) string { return h.Corrected }, "corrected")
	o.Latency, o.Corrected = lp, cp
	if lat.TotalCount() > 0 || cor.TotalCount() > 0 {
		o.Histograms = &reports.OpHistograms{Latency: reports.EncodeHistogram(lat), Corrected: reports.EncodeHistogram(cor)}
	}
	return notes
}

func findOp(s *reports.Summary, workload, op string) *reports.OpSummary {
	for i := range s.Workloads {
		if s.Workloads[i].Name != workload {
			continue
		}
		for j := range s.Workloads[i].Ops {
			if s.Workloads[i].Ops[j].Op == op {
				return &s.Workloads[i].Ops[j]
			}
		}
	}
	return nil
}

func joinLines(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}
