package runner

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/html"
	"github.com/stormcheck/stormcheck/reports/merge"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// finishRun closes the history, checks it and writes the summary. It runs on
// every path out of Run, so a failed or interrupted run keeps what it has.
func finishRun(sc *scenarios.Scenario, o Options, sum *reports.Summary, rec *workload.Recorder, m *reports.Metrics,
	runs []*running, runErr error, logf func(string, ...any)) (*reports.Summary, error) {
	sum.Elapsed = time.Duration(rec.Now()) // (not time.Since(Started): a shard's Started carries its clock skew)
	if err := rec.Close(); err != nil {
		sum.NotWritten = append(sum.NotWritten, fmt.Sprintf("%s: every record after the first failed write (%v); the records before it are whole", HistoryFile, err))
		if runErr == nil {
			runErr = fmt.Errorf("history: %w", err)
		}
	}
	if err := m.Close(); err != nil {
		sum.NotWritten = append(sum.NotWritten, fmt.Sprintf("%s: %v", HlogDir, err))
		if runErr == nil {
			runErr = fmt.Errorf("hlog: %w", err)
		}
	}
	ws, harness := m.Summary(sum.Elapsed)
	byName := map[string]*running{}
	for _, r := range runs {
		byName[r.env.Name] = r
	}
	for i := range ws {
		if r := byName[ws[i].Name]; r != nil {
			fillWorkload(&ws[i], r)
		}
	}
	for _, r := range runs { // workloads that recorded nothing still appear
		if !hasWorkload(ws, r.env.Name) {
			w := reports.WorkloadSummary{Name: r.env.Name}
			fillWorkload(&w, r)
			ws = append(ws, w)
		}
	}
	sum.Workloads, sum.Harness = ws, harness
	sum.Capacity = CapacityInfo(sc)
	// A workload's own active period; the account's is the load phase
	// (the longest workload's), not the run with Azurite's start.
	sum.Units = m.Units(merge.ActivePeriods(ws, sum.Elapsed), UnitTargets(sc.Capacity), BandwidthTargets(sc.Capacity))
	// One pass over the history feeds the checks and the units' latencies.
	units := reports.NewUnitLatencyCollector(sum.Units)
	tally := reports.NewFaultTally(sum.Faults)
	observe := func(op *checks.Op) { units.Observe(op); tally.Observe(op) }
	history := filepath.Join(o.ResultsDir, HistoryFile)
	// One shard's history is part of the run's (the setup is shard 0's,
	// the final reads the last shard's, shared keys are written by all):
	// stormcheck merge checks the merged history.
	shard := sum.Shard != nil && sum.Shard.Count > 1
	if shard {
		logf("checks: left to stormcheck merge (a shard's history is part of the run's)")
	}
	if !shard && (runErr == nil || len(runs) > 0 && rec.Count() > 0) {
		logf("checking %d operations", rec.Count())
		unlimit := LimitCheckMemory()
		results, err := CheckHistory(history, sc, observe)
		unlimit()
		switch {
		case err != nil && checks.IsTruncated(err) && rec.Err() != nil:
			// Cut at the failed write, as NotWritten says: the checks
			// decided over every whole record before it.
		case err != nil:
			sum.ChecksError = target.Redact(err.Error())
			if runErr == nil {
				runErr = err
			}
		}
		if err := WriteArtifacts(o.ResultsDir, results); err != nil {
			sum.NotWritten = append(sum.NotWritten, err.Error())
			if runErr == nil {
				runErr = err
			}
		}
		sum.Checks = results
	} else if err := checks.ReadHistoryFile(history, func(op *checks.Op) error { observe(op); return nil }); err != nil {
		logf("unit latencies: %v", err)
	}
	units.Apply()
	tally.Apply(sum)
	sum.Thresholds = reports.EvaluateThresholds(sum, sc.Thresholds)
	reports.MarkAborted(sum)
	if len(m.HlogFiles()) > 0 {
		sum.Files["hlog"] = HlogDir + string(os.PathSeparator)
	}
	if runErr != nil {
		sum.Error = target.Redact(runErr.Error())
	}
	sum.PeakRSS, _ = peakRSS()
	if err := WriteResults(o.ResultsDir, sum); err != nil {
		logf("ERROR: %v", err)
		if runErr == nil {
			runErr = err
		}
	}
	return sum, runErr
}

// WriteResults writes the summary and the HTML report, each atomically.
// The report is listed in the summary's files only once written; what
// could not be written is named in sum.NotWritten (the summary cannot say
// it of itself: the returned error does).
func WriteResults(dir string, sum *reports.Summary) error {
	sum.Files["report"] = reports.HTMLFile
	if err := html.WriteHTMLReport(dir, sum); err != nil {
		delete(sum.Files, "report")
		sum.NotWritten = noteNotWritten(sum.NotWritten, reports.HTMLFile, err)
	}
	sum.Files["summary"] = SummaryFile // the report lists it (written next; if not, NotWritten says so)
	if err := reports.WriteSummaryJSON(filepath.Join(dir, SummaryFile), sum); err != nil {
		delete(sum.Files, "summary")
		sum.NotWritten = noteNotWritten(sum.NotWritten, SummaryFile, err)
		return fmt.Errorf("%s not written: %w", SummaryFile, err)
	}
	return nil
}

// noteNotWritten says file could not be written, once: a later attempt's
// reason replaces an earlier one's.
func noteNotWritten(list []string, file string, err error) []string {
	out := list[:0:0]
	for _, x := range list {
		if !strings.HasPrefix(x, file+": ") {
			out = append(out, x)
		}
	}
	return append(out, fmt.Sprintf("%s: %v", file, err))
}

// WriteArtifacts writes the files checks produced (e.g. porcupine's picture
// of a violation) into the results directory and names them in the result.
func WriteArtifacts(dir string, results []checks.Result) error {
	for i := range results {
		r := &results[i]
		names := make([]string, 0, len(r.Artifacts))
		for n := range r.Artifacts {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			rel := filepath.Join("checks", r.Workload+"."+filepath.Base(n))
			data := r.Artifacts[n]
			if err := os.MkdirAll(filepath.Join(dir, "checks"), 0o755); err != nil {
				return err
			}
			if err := reports.WriteFileAtomic(filepath.Join(dir, rel), func(w io.Writer) error {
				_, err := w.Write(data)
				return err
			}); err != nil {
				return fmt.Errorf("check artifact %s: %w", rel, err)
			}
			r.Files = append(r.Files, rel)
		}
		r.Artifacts = nil
	}
	return nil
}

func fillWorkload(w *reports.WorkloadSummary, r *running) {
	w.Name, w.Kind, w.Executor, w.Actors = r.env.Name, r.env.Kind, r.plan.w.Executor, r.plan.w.Actors
	st := &r.stats
	w.Arrivals, w.Late, w.Dropped, w.Unserved = st.Arrivals.Load(), st.Late.Load(), st.Dropped.Load(), st.Unserved.Load()
	w.PacerLate, w.Backlog, w.PeakBacklog = st.PacerLate.Load(), st.Backlog, st.PeakBacklog.Load()
}

func hasWorkload(ws []reports.WorkloadSummary, name string) bool {
	for _, w := range ws {
		if w.Name == name {
			return true
		}
	}
	return false
}
