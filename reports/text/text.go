package text

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
)

// maxTextViolations bounds the violations the text report shows per check.
const maxTextViolations = 3

// uncorrectedLabel names the second row of an op whose uncorrected
// (call-to-return) latencies differ from the corrected ones.
const uncorrectedLabel = "  uncorrected"

// WriteText writes the end-of-run report for the terminal: the header, a
// table per workload, the harness ops, the checks (verdict, name, workload,
// summary line, and for failures the first violations with their ops) and
// the files.
//
// Latency cells are milliseconds from the intended start (corrected for
// coordinated omission, as wrk2 reports by default). Where the uncorrected
// (call-to-return, service-time) figures differ, they follow on an
// "uncorrected" row beneath, so both read in the same columns.
//
// The report fits in TextWidth (80) columns: tables too wide are split
// into column groups, prose wraps with a hanging indent. Only a
// violation's recorded operations and the files' paths may be longer:
// they are copied, not read, and wrapping would break them.
func WriteText(w io.Writer, s *reports.Summary) error {
	out := &reports.ErrWriter{W: w}
	var buf bytes.Buffer
	ew := &reports.ErrWriter{W: &buf}
	flush := func() {
		for _, line := range strings.SplitAfter(buf.String(), "\n") {
			if line == "" {
				continue
			}
			if rest, ok := strings.CutPrefix(line, noWrap); ok {
				out.Printf("%s", rest)
				continue
			}
			for _, l := range wrapLine(strings.TrimSuffix(line, "\n")) {
				out.Printf("%s\n", l)
			}
		}
	}
	ran := AnyOps(s)
	if line := reports.BreaksLine(s); line != "" {
		ew.Printf("%s\n", line)
	}
	writeHeader(ew, s, ran)
	if ran { // a run that failed before its first operation shows only its error
		for i := range s.Workloads {
			writeWorkload(ew, &s.Workloads[i], UnitsOf(s.Units, s.Workloads[i].Name), s.ClientCPU)
		}
		writeSpread(ew, s)
		WriteAccount(ew, s.Units, s.Capacity)
		writeHarness(ew, s.Harness)
		writeMemory(ew, s)
		writeFaults(ew, s)
		if s.Shard != nil && s.Shard.Count > 1 && len(s.Checks) == 0 && s.ChecksError == "" {
			ew.Printf("\nchecks: left to stormcheck merge (a shard's history is part of the run's)\n")
		} else {
			writeChecks(ew, s.Checks, s.ChecksError)
		}
		writeThresholds(ew, s.Thresholds)
	}
	writeFiles(ew, s.Files)
	flush()
	return errors.Join(ew.Err, out.Err)
}

// anyOps reports whether the run recorded any operation at all.
func AnyOps(s *reports.Summary) bool {
	if len(s.Harness) > 0 || len(s.Checks) > 0 {
		return true
	}
	for _, w := range s.Workloads {
		if len(w.Ops) > 0 {
			return true
		}
	}
	return false
}

func writeHeader(w *reports.ErrWriter, s *reports.Summary, ran bool) {
	name := s.Scenario
	if name == "" {
		name = "(unnamed scenario)"
	}
	var meta []string
	if s.File != "" {
		meta = append(meta, s.File)
	}
	meta = append(meta, "seed "+strconv.FormatInt(s.Seed, 10))
	w.Printf("scenario  %s (%s)\n", name, strings.Join(meta, ", "))
	if s.Target != "" {
		w.Printf("target    %s\n", s.Target)
	}
	when := ""
	if !s.Started.IsZero() {
		when = "started " + s.Started.UTC().Format("2006-01-02 15:04:05 UTC") + ", "
	}
	w.Printf("run       %selapsed %s%s\n", when, s.Elapsed.Round(100*time.Millisecond), TimeBase(s))
	writeShard(w, s.Shard)
	writeCapacity(w, s.Capacity)
	if busy := reports.MachineBusy(s); busy != "" {
		writeWrapped(w, "machine   ", "          ", "busy: "+busy+"; the figures measure that work as much as the target")
	}
	writeMerged(w, s)
	if s.Interrupted {
		w.Printf("INTERRUPTED: stopped before the end; the figures and checks cover what ran\n")
	}
	if s.Error != "" {
		w.Printf("ERROR: %s\n", s.Error)
	}
	for _, nw := range s.NotWritten {
		w.Printf("NOT WRITTEN: %s\n", nw)
	}
	for _, nr := range s.NotRun {
		w.Printf("NOT RUN: %s\n", nr)
	}
	if s.CleanupError != "" {
		w.Printf("LEFT ON THE TARGET: %s\n", s.CleanupError)
	}
	w.Printf("\n")
	writeVerdict(w, s)
	if ran && len(s.Workloads) > 0 {
		w.Printf("\n")
		writeWrapped(w, "", "         ", "rate/s:  ok+conflict attempts per second over the workload's active period")
		writeWrapped(w, "", "         ", "latency: ms from the intended start (corrected); \"uncorrected\" rows, where they differ: call to return")
	}
}

// unitsOf returns a workload's units, in the order given.
func UnitsOf(all []reports.UnitSummary, workload string) []reports.UnitSummary {
	var out []reports.UnitSummary
	for _, u := range all {
		if u.Workload == workload {
			out = append(out, u)
		}
	}
	return out
}

// workloadDesc is a workload's kind, loop and actors: "blob.lww, closed
// loop, 4 actors".
func WorkloadDesc(ws *reports.WorkloadSummary) string {
	var desc []string
	if ws.Kind != "" {
		desc = append(desc, ws.Kind)
	}
	switch ws.Executor {
	case "":
	case "closed", "open":
		desc = append(desc, ws.Executor+" loop")
	default:
		desc = append(desc, ws.Executor)
	}
	if ws.Actors > 0 {
		desc = append(desc, Plural(int64(ws.Actors), "actor"))
	}
	return strings.Join(desc, ", ")
}

func writeWorkload(w *reports.ErrWriter, ws *reports.WorkloadSummary, units []reports.UnitSummary, clientCPU float64) {
	w.Printf("\nworkload %s", ws.Name)
	if desc := WorkloadDesc(ws); desc != "" {
		w.Printf(" (%s)", desc)
	}
	w.Printf("\n")

	if len(ws.Ops) == 0 {
		w.Printf("  no operations recorded\n")
	} else {
		WriteAchieved(w, ws)
		writeOpTable(w, ws.Ops)
		writeInjected(w, ws)
		writeLatencyTable(w, ws.Ops)
		writeResponses(w, ws.Ops)
	}
	if line := reports.ArrivalsLine(*ws); line != "" {
		w.Printf("  %s\n", line)
	}
	if line := reports.ScheduleLagLine(*ws); line != "" {
		w.Printf("  %s\n", line)
	}
	writeLimitedBy(w, *ws, units, clientCPU)
	writeDensity(w, ws.Ops)
	var kinds []reports.UnitKind
	for _, u := range units {
		if !slices.Contains(kinds, u.Kind) {
			kinds = append(kinds, u.Kind)
		}
	}
	for _, k := range kinds {
		var of []reports.UnitSummary
		for _, u := range units {
			if u.Kind == k {
				of = append(of, u)
			}
		}
		writeUnits(w, of)
	}
}

// writeAchieved says what the workload achieved (its Goal), at what
// rate over its active period.
func WriteAchieved(w *reports.ErrWriter, ws *reports.WorkloadSummary) {
	if ws.Goal == "" {
		return
	}
	rate := ""
	if ws.Active > 0 {
		rate = fmt.Sprintf(" (%s/s over %s)", strconv.FormatFloat(float64(ws.Achieved)/ws.Active.Seconds(), 'f', 1, 64), ws.Active.Round(100*time.Millisecond))
	}
	perWin := ""
	if ws.AcquiresPerWin > 0 {
		perWin = fmt.Sprintf("; %s acquires per lease won", strconv.FormatFloat(ws.AcquiresPerWin, 'f', -1, 64))
	}
	writeWrapped(w, "  ", "    ", fmt.Sprintf("achieved: %s %s%s%s", reports.Thousands(ws.Achieved), ws.Goal, rate, perWin))
}

// writeOpTable writes the attempts per op by outcome, and the rate.
func writeOpTable(w *reports.ErrWriter, ops []reports.OpSummary) {
	t := textTable{indent: "  ", head: []string{"op", "count", "ok", "conflict", "throttled", "error", "unknown", "rate/s"}}
	for _, o := range ops {
		row := []string{o.Op, reports.Itoa(o.Count)}
		for _, oc := range checks.Outcomes {
			row = append(row, reports.Itoa(o.Outcomes[oc.String()]))
		}
		t.add(append(row, strconv.FormatFloat(o.Rate, 'f', 1, 64))...)
	}
	t.write(w)
}

// writeInjected says which of the table's throttled answers faults
// injected on purpose, and how many are the target's own.
func writeInjected(w *reports.ErrWriter, ws *reports.WorkloadSummary) {
	injected := reports.InjectedThrottled(*ws)
	if injected == 0 {
		return
	}
	var throttled int64
	for _, o := range ws.Ops {
		throttled += o.Outcomes[checks.Throttled.String()]
	}
	faults := make([]string, 0, len(ws.Injected))
	for f, n := range ws.Injected {
		faults = append(faults, fmt.Sprintf("%d by fault %s", n, f))
	}
	sort.Strings(faults)
	writeWrapped(w, "  ", "    ", fmt.Sprintf("throttled: %s injected on purpose (%s), %s the target's own",
		reports.Thousands(injected), strings.Join(faults, ", "), reports.Thousands(throttled-injected)))
}

// writeLatencyTable writes each op's latency percentiles, max and mean
// (corrected), with an "uncorrected" row beneath where those differ.
func writeLatencyTable(w *reports.ErrWriter, ops []reports.OpSummary) {
	t := textTable{indent: "  ", head: []string{"latency ms", "p50", "p90", "p95", "p99", "p99.9", "max", "mean"}}
	for _, o := range ops {
		cor, unc := LatencyCells(o.Corrected), LatencyCells(o.Latency)
		t.add(append([]string{o.Op}, cor...)...)
		if strings.Join(cor, " ") != strings.Join(unc, " ") {
			t.add(append([]string{uncorrectedLabel}, unc...)...)
		}
	}
	t.write(w)
}

func LatencyCells(p reports.Percentiles) []string {
	if p.Count == 0 {
		return []string{"-", "-", "-", "-", "-", "-", "-"}
	}
	p95 := "-" // a summary written before p95 was kept
	if p.P95 > 0 || p.P90 == 0 {
		p95 = reports.Ms(p.P95)
	}
	return []string{reports.Ms(p.P50), reports.Ms(p.P90), p95, reports.Ms(p.P99), reports.Ms(p.P999), reports.Ms(p.Max), reports.Ms(p.Mean)}
}

// writeResponses breaks down, per op, the attempts that were not answered
// 2xx by HTTP status and x-ms-error-code: a lost If-Match race (412
// ConditionNotMet) and a lease held by another (409 LeaseAlreadyPresent)
// tell different stories.
func writeResponses(w *reports.ErrWriter, ops []reports.OpSummary) {
	rows := ResponseRows(ops)
	if len(rows) == 0 {
		return
	}
	t := textTable{indent: "  ", head: append([]string{"not 2xx"}, responseHead[1:]...), rows: rows, left: []int{2}}
	t.write(w)
}

// responseHead names the columns of responseRows.
var responseHead = []string{"op", "status", "x-ms-error-code", "count", "of op"}

// responseRows are, per op, the attempts not answered 2xx by status and
// error code, with their share of the op's attempts. An SMB call's row
// has status "SMB" and the NT status name (STATUS_SHARING_VIOLATION) in
// the code column; its successes are not listed.
func ResponseRows(ops []reports.OpSummary) [][]string {
	var rows [][]string
	for _, o := range ops {
		for _, r := range o.Responses {
			if r.Status >= 200 && r.Status < 300 {
				continue
			}
			status, code := strconv.Itoa(r.Status), r.Code
			if reports.SMBOp(o.Op) {
				// An SMB call's answer is an NT status, not HTTP.
				if code == reports.SMBSuccess {
					continue
				}
				status = "SMB"
				if code == "" {
					code = "(no answer)"
				}
				if r.Status < 0 {
					status = "other"
				}
				rows = append(rows, []string{o.Op, status, code, reports.Itoa(r.Count), reports.Percent(r.Count, o.Count)})
				continue
			}
			switch {
			case r.Status < 0:
				status = "other" // beyond maxResponses distinct ones
			case r.Status == 0:
				status, code = "none", "(no response)"
			case code == "":
				code = "-"
			}
			rows = append(rows, []string{o.Op, status, code, reports.Itoa(r.Count), reports.Percent(r.Count, o.Count)})
		}
	}
	return rows
}

func Plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return reports.Itoa(n) + " " + word + "s"
}

// writeHarness writes the harness ops on one line: count per op, with the
// outcomes other than ok when there are any.
func writeHarness(w *reports.ErrWriter, ops []reports.OpSummary) {
	if len(ops) == 0 {
		return
	}
	w.Printf("\nharness (setup, final reads; not in the figures above): %s\n", HarnessLine(ops))
}

// writeMemory says how much memory the harness held at its peak (the
// bounded-memory promise, and what a shard's pod must be given).
func writeMemory(w *reports.ErrWriter, s *reports.Summary) {
	if s.PeakRSS <= 0 {
		return
	}
	who := "harness memory: peak"
	if len(s.MergedFrom) > 0 {
		who = "harness memory: the largest shard's peak"
	}
	w.Printf("%s %.1f MiB resident (load, final reads and checks)\n", who, float64(s.PeakRSS)/(1<<20))
}

func writeChecks(w *reports.ErrWriter, rs []checks.Result, failed string) {
	if failed != "" {
		w.Printf("\nchecks: FAILED TO RUN: %s\n", failed)
		return
	}
	if len(rs) == 0 {
		w.Printf("\nchecks: none configured\n")
		return
	}
	n := map[checks.Verdict]int{}
	width, wwidth := 0, 0
	for _, r := range rs {
		n[r.Verdict]++
		width = max(width, len(r.Check))
		wwidth = max(wwidth, len(r.Workload))
	}
	w.Printf("\nchecks: %d pass, %d fail, %d undecided\n", n[checks.Pass], n[checks.Fail], n[checks.Undecided])
	for _, r := range rs {
		prefix := fmt.Sprintf("  %-9s  %-*s  ", strings.ToUpper(string(r.Verdict)), width, r.Check)
		if wwidth > 0 { // a workload column only when some result names one
			prefix += fmt.Sprintf("%-*s  ", wwidth, r.Workload)
		}
		hang := strings.Repeat(" ", len(prefix)) // the summary wraps under itself
		if len(prefix) > reports.TextWidth/2 {
			hang = "    "
		}
		for _, l := range breakLine(prefix+r.Summary+DecidedNote(r), len(prefix), hang) {
			w.Printf(noWrap+"%s\n", l)
		}
		writeKnown(w, r.Known)
		if r.Verdict != checks.Fail {
			continue
		}
		shown := min(len(r.Violations), maxTextViolations)
		for _, v := range r.Violations[:shown] {
			if v.Key != "" {
				w.Printf("    - %s: %s\n", v.Key, v.Message)
			} else {
				w.Printf("    - %s\n", v.Message)
			}
			for i := range v.Ops {
				w.Printf(noWrap+"        %s\n", v.Ops[i].String())
			}
		}
		if more := max(r.Total, len(r.Violations)) - shown; more > 0 {
			w.Printf("    ... and %s\n", Plural(int64(more), "more violation"))
		}
		for _, f := range r.Files {
			w.Printf("    picture: %s\n", f)
		}
	}
}

func writeFiles(w *reports.ErrWriter, files map[string]string) {
	if len(files) == 0 {
		return
	}
	labels := make([]string, 0, len(files))
	width := 0
	for l := range files {
		labels = append(labels, l)
		width = max(width, len(l))
	}
	sort.Strings(labels)
	w.Printf("\nfiles\n")
	for _, l := range labels {
		w.Printf(noWrap+"  %-*s  %s\n", width, l, files[l])
	}
}

// timeBase says where the load starts on the run's clock and how long the
// target took to be ready before it (set-up, not in the run's times).
func TimeBase(s *reports.Summary) string {
	var parts []string
	// Times that round to nothing (an account's client set up in
	// milliseconds) are left out rather than shown as "0s".
	if d := s.LoadStart.Round(100 * time.Millisecond); d > 0 {
		parts = append(parts, "load from +"+d.String())
	}
	if d := s.Startup.Round(100 * time.Millisecond); d > 0 {
		parts = append(parts, "target start "+d.String()+" before, not counted")
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// decidedNote is what a check result adds to its line: how many operations
// it decided and, where it judges writes of unknown outcome, what became of
// them.
func DecidedNote(r checks.Result) string {
	if r.Decided == 0 && r.Unknown == nil {
		return "" // a result from before the count, or one that decided nothing (it says so)
	}
	note := fmt.Sprintf(" [%s decided", Plural(int64(r.Decided), "operation"))
	if u := r.Unknown; u != nil {
		note += fmt.Sprintf("; unknown writes: %d applied, %d not applied, %d open", u.Applied, u.NotApplied, u.Open)
	}
	return note + "]"
}
