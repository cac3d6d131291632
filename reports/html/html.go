package html

import (
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/text"
)

// htmlMaxUnitRows is how many of a workload's units the page lists (and
// draws) per kind; the rest are summed on one line.
const htmlMaxUnitRows = 20

var htmlTemplate = template.Must(template.New("report").Parse(withScript(htmlTemplateText)))

// WriteHTML writes the run's report as one self-contained HTML page: no
// script, font or stylesheet from elsewhere, every chart an inline SVG
// (hover and legend clicks are the page's own inline script). It
// shows the header, per workload the op table, throughput over time with
// the busiest unit against its target, outcomes over time, latency
// percentiles over time (from the logs in hlogDir; "" or a missing
// directory is said on the page), the percentile spectrum per op and the
// units' utilisation, then the checks with their violations (linking to
// their pictures), the thresholds and the files. Links are relative to the
// results directory, where the page belongs.
func WriteHTML(w io.Writer, s *reports.Summary, hlogDir string) error {
	return htmlTemplate.Execute(w, buildHTMLPage(s, ReadHlogDir(hlogDir)))
}

// WriteHTMLReport writes dir/report.html atomically from s, reading the
// latency logs from dir's hlog directory (Files["hlog"], else "hlog").
func WriteHTMLReport(dir string, s *reports.Summary) error {
	return reports.WriteFileAtomic(filepath.Join(dir, reports.HTMLFile), func(w io.Writer) error {
		return WriteHTML(w, s, HlogDirOf(dir, s))
	})
}

// HlogDirOf is where a saved run in dir keeps its latency logs.
func HlogDirOf(dir string, s *reports.Summary) string {
	rel := "hlog"
	if s != nil && s.Files["hlog"] != "" {
		rel = s.Files["hlog"]
	}
	return filepath.Join(dir, filepath.FromSlash(strings.TrimRight(rel, `/\`)))
}

// The page's view of the summary: everything formatted, every chart drawn.
type htmlPage struct {
	// Breaks is set when the run broke a promise of the service on
	// purpose: the page says so first.
	Breaks      string
	Title       string
	Scenario    string
	Meta        []htmlKV
	ExitCode    int
	ExitMeaning string
	Interrupted bool
	Error       string
	// NotWritten, LeftOnTarget and ChecksError say what went wrong after
	// the load (see Summary).
	NotWritten []string
	// NotRun names the workloads the target could not run, with why.
	NotRun       []string
	LeftOnTarget string
	ChecksError  string
	Ran          bool
	Tally        string
	// Verdict is pass, fail or undecided (the badge's class), VerdictText
	// the exit code and what was judged; Failures what failed by how
	// much. They open the page.
	Verdict, VerdictText string
	Failures             []htmlFailure
	MoreFailures         string // the items left out of Failures, in a sentence
	Workloads            []htmlWorkload
	Harness              string
	// Summary is the top of the page: verdict, headline figures, a row
	// per workload.
	Summary htmlSummary
	// AcrossTables compare the key patterns of workloads side by side;
	// Account is the whole account's figures as the text report words them.
	AcrossTables []htmlAcross
	Account      string
	Checks       []htmlCheck
	Thresholds   []htmlThreshold
	Files        []htmlFile
	HlogNote     string
	HlogIssues   []string
}

type htmlKV struct{ Key, Value string }

// htmlFailure is one line of the verdict: a check that failed or could not
// decide, a threshold that failed, and by how much.
type htmlFailure struct {
	Verdict, What, Detail string
	Threshold             bool
}

type htmlFigure struct {
	Caption string
	SVG     template.HTML
	Note    string
}

type htmlWorkload struct {
	Anchor     string
	Name       string
	Desc       string
	Empty      bool
	Ops        []htmlOpRow
	LateDrop   string
	SchedLag   string
	LimitedBy  []string
	Throughput htmlFigure
	Outcomes   []htmlFigure
	Latency    []htmlFigure
	LatencyMsg string
	Spectrum   []htmlFigure
	Histogram  []htmlFigure
	InFlight   htmlFigure
	Achieved   string
	Responses  [][]string
	Density    []htmlDensityRow
	Units      []htmlUnits
}

type htmlOpRow struct {
	Op          string
	Uncorrected bool
	Cells       []string
}

type htmlDensityRow struct {
	Op                            string
	Scanned, Returned, Ratio, Per string
}

type htmlUnits struct {
	Title   string
	Heading string
	Rows    [][]string
	Head    []string
	More    string
	Spread  string
	Chart   htmlFigure
}

type htmlCheck struct {
	Verdict    string
	Check      string
	Workload   string
	Summary    string
	Violations []htmlViolation
	More       string
	Files      []htmlFile
	// Known are the known divergences of the target: a line and an example.
	Known []htmlKnown
}

type htmlKnown struct {
	Line    string
	Example *htmlViolation
}

type htmlViolation struct {
	Key     string
	Message string
	Ops     string
}

type htmlThreshold struct {
	Verdict   string
	Threshold string
	Measured  string
}

type htmlFile struct {
	Label string
	Path  string
	Href  string
}

func buildHTMLPage(s *reports.Summary, hl *hlogData) *htmlPage {
	name := s.Scenario
	if name == "" {
		name = "(unnamed scenario)"
	}
	p := &htmlPage{
		Title:       "stormcheck report: " + name,
		Scenario:    name,
		ExitCode:    text.ExitCode(s),
		Interrupted: s.Interrupted,
		Error:       s.Error,
		NotWritten:  s.NotWritten, NotRun: s.NotRun, LeftOnTarget: s.CleanupError, ChecksError: s.ChecksError,
		Ran:        text.AnyOps(s),
		Breaks:     reports.BreaksLine(s),
		HlogIssues: hl.problems,
	}
	p.ExitMeaning = text.ExitMeanings[p.ExitCode]
	p.Verdict, p.VerdictText = text.VerdictWord(p.ExitCode), text.VerdictLine(s)
	items, more := text.CapVerdictItems(text.VerdictItems(s))
	p.MoreFailures = more
	for _, it := range items {
		p.Failures = append(p.Failures, htmlFailure{Verdict: it.Verdict, What: it.What, Detail: it.Detail, Threshold: it.Threshold})
	}
	if s.File != "" {
		p.Meta = append(p.Meta, htmlKV{"file", s.File})
	}
	p.Meta = append(p.Meta, htmlKV{"seed", strconv.FormatInt(s.Seed, 10)})
	if s.Target != "" {
		p.Meta = append(p.Meta, htmlKV{"target", s.Target})
	}
	if !s.Started.IsZero() {
		p.Meta = append(p.Meta, htmlKV{"started", s.Started.UTC().Format("2006-01-02 15:04:05 UTC")})
	}
	p.Meta = append(p.Meta, htmlKV{"elapsed", s.Elapsed.Round(100*time.Millisecond).String() + text.TimeBase(s)})
	if c := s.Capacity; c != nil {
		p.Meta = append(p.Meta, htmlKV{"capacity", capacityText(c)})
		if c.Emulation != "" {
			p.Meta = append(p.Meta, htmlKV{"emulation", c.Emulation})
		}
	}
	if busy := reports.MachineBusy(s); busy != "" {
		p.Meta = append(p.Meta, htmlKV{"machine", "busy: " + busy + "; the figures measure that work as much as the target"})
	}
	if s.Shard != nil {
		p.Meta = append(p.Meta, htmlKV{"shard", text.ShardText(s.Shard)})
	}
	p.Meta = append(p.Meta, mergedMeta(s)...)
	if hl.dirMissing && p.Ran {
		p.HlogNote = "This run has no latency logs (hlog/ is missing), so latency over time is not shown; the percentile spectra come from summary.json."
	}
	var tally [3]int
	for _, r := range s.Checks {
		switch r.Verdict {
		case checks.Pass:
			tally[0]++
		case checks.Fail:
			tally[1]++
		default:
			tally[2]++
		}
	}
	p.Tally = fmt.Sprintf("%d pass, %d fail, %d undecided", tally[0], tally[1], tally[2])
	if p.Ran {
		for i := range s.Workloads {
			p.Workloads = append(p.Workloads, buildHTMLWorkload(i, &s.Workloads[i], text.UnitsOf(s.Units, s.Workloads[i].Name), hl, s.ClientCPU, s.Faults, runSeconds(s)))
		}
		p.Harness = text.HarnessLine(s.Harness)
		p.Summary = buildHTMLSummary(s)
		p.AcrossTables = buildHTMLAcross(s)
		var account strings.Builder
		text.WriteAccount(&reports.ErrWriter{W: &account}, s.Units, s.Capacity)
		p.Account = strings.TrimPrefix(strings.Join(strings.Fields(account.String()), " "), "account: ")
		for _, r := range s.Checks {
			p.Checks = append(p.Checks, buildHTMLCheck(r))
		}
		for _, t := range s.Thresholds {
			p.Thresholds = append(p.Thresholds, BuildHTMLThreshold(t))
		}
	}
	labels := make([]string, 0, len(s.Files))
	for l := range s.Files {
		labels = append(labels, l)
	}
	sort.Strings(labels)
	for _, l := range labels {
		p.Files = append(p.Files, htmlFileOf(l, s.Files[l]))
	}
	return p
}

// htmlFileOf links a path relative to the results directory.
func htmlFileOf(label, path string) htmlFile {
	return htmlFile{Label: label, Path: path, Href: filepath.ToSlash(path)}
}

func capacityText(c *reports.CapacityInfo) string {
	parts := reports.CapacityParts(c)
	t := "profile " + c.Profile
	if c.Scale != 1 && c.Scale != 0 {
		t += " scaled by " + reports.Number(c.Scale)
	}
	if len(c.Overridden) > 0 {
		t += ", overridden: " + strings.Join(c.Overridden, ", ")
	}
	if len(parts) > 0 {
		t += " (" + strings.Join(parts, ", ") + ")"
	}
	return t
}

// buildHTMLWorkload draws a workload's charts; those over time span
// seconds, the run's time axis.
func buildHTMLWorkload(i int, ws *reports.WorkloadSummary, units []reports.UnitSummary, hl *hlogData, clientCPU float64, faults []reports.FaultWindow, seconds int) htmlWorkload {
	id := "w" + strconv.Itoa(i+1)
	hw := htmlWorkload{Anchor: id, Name: ws.Name, Desc: text.WorkloadDesc(ws), Empty: len(ws.Ops) == 0, LimitedBy: reports.LimitedBy(*ws, units, clientCPU)}
	hw.LateDrop = reports.ArrivalsLine(*ws)
	hw.SchedLag = reports.ScheduleLagLine(*ws)
	hw.Responses = text.ResponseRows(ws.Ops)
	if ws.Goal != "" {
		hw.Achieved = fmt.Sprintf("%s %s", reports.Thousands(ws.Achieved), ws.Goal)
		if ws.Active > 0 {
			hw.Achieved += fmt.Sprintf(", %s/s over %s", strconv.FormatFloat(float64(ws.Achieved)/ws.Active.Seconds(), 'f', 1, 64), ws.Active.Round(100*time.Millisecond))
		}
	}
	for _, o := range ws.Ops {
		row := []string{reports.Itoa(o.Count)}
		for _, oc := range checks.Outcomes {
			row = append(row, reports.Itoa(o.Outcomes[oc.String()]))
		}
		row = append(row, strconv.FormatFloat(o.Rate, 'f', 1, 64))
		cor, unc := text.LatencyCells(o.Corrected), text.LatencyCells(o.Latency)
		hw.Ops = append(hw.Ops, htmlOpRow{Op: o.Op, Cells: append(row, cor...)})
		if strings.Join(cor, " ") != strings.Join(unc, " ") {
			blank := make([]string, len(row))
			hw.Ops = append(hw.Ops, htmlOpRow{Op: "uncorrected", Uncorrected: true, Cells: append(blank, unc...)})
		}
		if o.Scanned > 0 {
			per := "-"
			if reads := o.Outcomes["ok"]; reads > 0 {
				per = strconv.FormatFloat(float64(o.Scanned)/float64(reads), 'f', 1, 64)
			}
			hw.Density = append(hw.Density, htmlDensityRow{o.Op, reports.Itoa(o.Scanned), reports.Itoa(o.Returned), reports.Percent(o.Returned, o.Scanned), per})
		}
	}
	if hw.Empty {
		return hw
	}
	if len(ws.InFlight) > 0 {
		hw.InFlight = htmlFigure{Caption: "actors busy: mean calls in flight per second", SVG: withFaultBands(onTimeAxis(inFlightChart(id+"-inflight", ws), seconds), faults).render()}
	}
	tc := withFaultBands(onTimeAxis(throughputChart(id+"-throughput", ws, units), seconds), faults)
	hw.Throughput = htmlFigure{Caption: "ok+conflict per second, per op", SVG: tc.render()}
	if len(busiestUnits(units)) > 0 {
		hw.Throughput.Caption += ", and the busiest unit against its target"
	}
	for j := range ws.Ops {
		o := &ws.Ops[j]
		oc := withFaultBands(outcomeChart(fmt.Sprintf("%s-outcomes-%d", id, j+1), ws.Name, o, seconds), faults)
		hw.Outcomes = append(hw.Outcomes, htmlFigure{Caption: o.Op, SVG: oc.render()})
		sc, err := spectrumChart(fmt.Sprintf("%s-spectrum-%d", id, j+1), ws.Name, o)
		fig := htmlFigure{Caption: o.Op, SVG: sc.render()}
		if h := o.Histograms; h != nil && h.Latency == h.Corrected {
			fig.Caption += " (corrected and uncorrected coincide: no operation started late)"
		}
		if err != nil {
			fig.Note = err.Error()
		}
		hw.Spectrum = append(hw.Spectrum, fig)
		hc, err := latencyHistogramChart(fmt.Sprintf("%s-histogram-%d", id, j+1), ws.Name, o)
		hf := htmlFigure{Caption: o.Op, SVG: hc.render()}
		if err != nil {
			hf.Note = err.Error()
		}
		hw.Histogram = append(hw.Histogram, hf)
		if hl.dirMissing {
			continue
		}
		ls, corrected, dir := hl.corrected[LatencyKeyOf{ws.Name, o.Op}], true, "hlog/"+reports.CorrectedHlogDir+"/"
		if ls == nil {
			ls, corrected, dir = hl.Series[LatencyKeyOf{ws.Name, o.Op}], false, "hlog/"
		}
		if ls == nil {
			hw.Latency = append(hw.Latency, htmlFigure{Caption: o.Op, Note: "no latency log for this op in hlog/"})
			continue
		}
		lc := withFaultBands(latencyChart(fmt.Sprintf("%s-latency-%d", id, j+1), ws.Name, ls, seconds, corrected), faults)
		lf := htmlFigure{Caption: o.Op + " (" + dir + ls.File + ")", SVG: lc.render()}
		if !corrected {
			lf.Note = "This run has no corrected latency logs (hlog/corrected/, written since stormcheck kept them): the chart shows uncorrected latency, call to return."
		}
		hw.Latency = append(hw.Latency, lf)
	}
	if hl.dirMissing {
		hw.LatencyMsg = "Not shown: this run has no hlog/ directory with per-second latency logs."
	}
	var kinds []reports.UnitKind
	for _, u := range units {
		if !slices.Contains(kinds, u.Kind) {
			kinds = append(kinds, u.Kind)
		}
	}
	for n, k := range kinds {
		var of []reports.UnitSummary
		for _, u := range units {
			if u.Kind == k {
				of = append(of, u)
			}
		}
		hw.Units = append(hw.Units, buildHTMLUnits(fmt.Sprintf("%s-units-%d", id, n+1), of))
	}
	return hw
}

func buildHTMLUnits(id string, us []reports.UnitSummary) htmlUnits {
	kind := us[0].Kind
	t := reports.BuildUnitTable(us, htmlMaxUnitRows)
	hu := htmlUnits{
		Title:   fmt.Sprintf("Per-%s utilisation", kind),
		Heading: strings.ToUpper(t.Heading[:1]) + t.Heading[1:],
		Head:    t.Head,
		Rows:    t.Rows,
		More:    t.More,
	}
	if t.Spread != "" {
		hu.Spread = strings.ToUpper(t.Spread[:1]) + t.Spread[1:] + "."
	}
	bc := utilisationChart(id, us, htmlMaxUnitRows)
	if len(bc.bars) > 0 {
		hu.Chart = htmlFigure{Caption: fmt.Sprintf("Busiest second against the target, per %s (busiest first)", kind), SVG: bc.render()}
	} else {
		hu.Chart = htmlFigure{Note: fmt.Sprintf("No target applies to these %ss, so no utilisation is drawn.", kind)}
	}
	return hu
}

func buildHTMLCheck(r checks.Result) htmlCheck {
	hc := htmlCheck{Verdict: string(r.Verdict), Check: r.Check, Workload: r.Workload, Summary: r.Summary + text.DecidedNote(r)}
	for _, v := range r.Violations {
		hc.Violations = append(hc.Violations, buildHTMLViolation(v))
	}
	for _, k := range r.Known {
		hk := htmlKnown{Line: k.Line() + " (does not fail the check)"}
		if len(k.Examples) > 0 {
			v := buildHTMLViolation(k.Examples[0])
			hk.Example = &v
		}
		hc.Known = append(hc.Known, hk)
	}
	if more := r.Total - len(r.Violations); more > 0 {
		hc.More = "... and " + text.Plural(int64(more), "more violation")
	}
	for _, f := range r.Files {
		hc.Files = append(hc.Files, htmlFileOf("picture", f))
	}
	return hc
}

func buildHTMLViolation(v checks.Violation) htmlViolation {
	var ops []string
	for i := range v.Ops {
		ops = append(ops, v.Ops[i].String())
	}
	return htmlViolation{Key: v.Key, Message: v.Message, Ops: strings.Join(ops, "\n")}
}

func BuildHTMLThreshold(t reports.ThresholdResult) htmlThreshold {
	ht := htmlThreshold{Verdict: "fail", Threshold: t.Threshold}
	if t.Pass {
		ht.Verdict = "pass"
	}
	ht.Measured = t.Measured()
	return ht
}
