package html

import (
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/reportstest"
	"github.com/stormcheck/stormcheck/reports/text"
)

// renderFixture writes a fixture run into a temporary results directory
// and renders its page.
func renderFixture(t *testing.T, names reportstest.FixtureNames) (*reports.Summary, string, string) {
	t.Helper()
	dir := t.TempDir()
	s := reportstest.WriteFixtureRun(t, dir, names)
	var b bytes.Buffer
	if err := WriteHTML(&b, s, filepath.Join(dir, "hlog")); err != nil {
		t.Fatal(err)
	}
	return s, dir, b.String()
}

var svgRE = regexp.MustCompile(`(?s)<svg .*?</svg>`)

// svgsOf returns the page's <svg> elements by id, each checked to be
// well-formed XML with a title and an aria-label.
func svgsOf(t *testing.T, page string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, s := range svgRE.FindAllString(page, -1) {
		d := xml.NewDecoder(strings.NewReader(s))
		var id, label string
		for {
			tok, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("svg is not well-formed: %v\n%.300s", err, s)
			}
			if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "svg" {
				for _, a := range se.Attr {
					switch a.Name.Local {
					case "id":
						id = a.Value
					case "aria-label":
						label = a.Value
					}
				}
			}
		}
		if id == "" || label == "" || !strings.Contains(s, "<title>") {
			t.Errorf("svg without id, aria-label or title: %.200s", s)
		}
		if _, dup := out[id]; dup {
			t.Errorf("two charts with id %q", id)
		}
		out[id] = s
	}
	return out
}

func TestHTMLReportHasEveryChart(t *testing.T) {
	s, _, page := renderFixture(t, reportstest.PlainNames)
	svgs := svgsOf(t, page)
	want := []string{
		"w1-throughput", "w1-outcomes-1", "w1-outcomes-2", "w1-latency-1", "w1-latency-2", "w1-spectrum-1", "w1-spectrum-2", "w1-units-1",
		"w2-throughput", "w2-outcomes-1", "w2-latency-1", "w2-spectrum-1", "w2-units-1",
		"w1-histogram-1", "w1-histogram-2", "w2-histogram-1", "w1-inflight", "w2-inflight",
	}
	for _, id := range want {
		if svgs[id] == "" {
			t.Errorf("no chart %s", id)
		}
	}
	if len(svgs) != len(want) {
		t.Errorf("%d charts, want %d: %v", len(svgs), len(want), keys(svgs))
	}
	for _, w := range []string{
		"<title>stormcheck report: report-fixture</title>",
		"managed Azurite 3.37.0 (127.0.0.1:41839)", "2026-11-22 04:48:16 UTC", "24.3s",
		"<strong>1</strong>: a check found a violation",
		"1 pass, 1 fail, 1 undecided",
		"profile checklist (blob 500/s, partition 2000/s, queue 2000/s, account 20000/s)",
		`id="w1"`, `<a href="#w2">hot</a>`,
		"Workload idle <small>(blob.lww, closed loop, 2 actors)</small>", "No operations recorded.",
		"late starts 412, dropped starts 0",
		"<strong>Limited by</strong> throttling: ",
		"<h2>Across workloads</h2>", "<strong>Account:</strong> 16,776 operations served",
		// the summary at the top: verdict, headline figures, a row per workload
		`<div class="verdict"><span class="badge fail">fail</span><span>exit code 1, a check found a violation; 1 of 3 checks pass, 1 of 2 thresholds pass</span></div>`,
		// what failed, by how much, with units, before any figure
		`<li class="failure" data-verdict="fail"><span class="badge fail">fail</span> <strong>linearizable (hot)</strong>: 3 violations: 1 key not linearizable</li>`,
		`<li class="failure" data-verdict="fail"><span class="badge fail">fail</span> <strong>throughput(table.insert)</strong> 298/s &lt; 400/s (worst at 15s-20s)</li>`,
		`<li class="failure" data-verdict="undecided"><span class="badge undecided">undecided</span> <strong>version-chain (hot)</strong>: the final read is missing</li>`,
		`<div class="k">worst p99 (corrected)</div>`, `<div class="k">errors</div><div class="v">4</div>`,
		`<td><a href="#w1">counter</a></td><td>415 increments</td>`,
		`<span class="badge pass" title="pass">no-lost-updates</span>`,
		// the error-code table, by status and x-ms-error-code
		`<tr><td>blob.put</td><td>412</td><td class="l">ConditionNotMet</td><td>4442</td><td>91.4%</td></tr>`,
		`<tr><td>table.insert</td><td>503</td><td class="l">ServerBusy</td><td>136</td><td>1.9%</td></tr>`,
		"<h3>Active actors over time</h3>", "<h3>Latency histogram</h3>", "<strong>Achieved:</strong> 415 increments",
		"&nbsp;&nbsp;uncorrected", // the open-loop workload's corrected and uncorrected rows differ
		"busiest blob k0 (requests/s)", "target 500 requests/s per blob", "target 2,000 entities/s per partition",
		"Per-partition utilisation", "Spread: 12 partitions",
		`<span class="badge fail">fail</span>`, `<a href="checks/hot.linearizable-p0.html">checks/hot.linearizable-p0.html</a>`,
		"a read returned a value older than one already read", "... and 2 more violations",
		"throughput(table.insert) &gt; 400/s over 5s", "measured 298/s (worst at 15s-20s)",
		`<a href="history.jsonl">history.jsonl</a>`, `<a href="hlog/">hlog/</a>`,
		"Setup and final reads, not in the figures above: blob.get 1, blob.put 1",
		`default-src 'none'`,
	} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	// the op table's figures are the summary's
	for _, o := range s.Workloads[0].Ops {
		row := "<td>" + o.Op + "</td><td>" + reports.Itoa(o.Count) + "</td><td>" + reports.Itoa(o.Outcomes["ok"]) + "</td><td>" + reports.Itoa(o.Outcomes["conflict"]) + "</td>"
		if !strings.Contains(page, row) {
			t.Errorf("page lacks the row %q", row)
		}
		if !strings.Contains(page, "<td>"+reports.Ms(o.Corrected.P99)+"</td>") {
			t.Errorf("page lacks %s p99 %s", o.Op, reports.Ms(o.Corrected.P99))
		}
	}
	// self-contained: nothing to fetch, no script but the page's own (its
	// hash in the policy)
	if !strings.Contains(page, "script-src '"+reportScriptHash+"'") {
		t.Error("the policy does not allow the page's script by its hash")
	}
	for _, bad := range []string{"http://", "https://", "<script", "<link", "@import", "url("} {
		if strings.Contains(withoutOwnScript(t, page), bad) {
			t.Errorf("page contains %q", bad)
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestHTMLChartNumbers(t *testing.T) {
	s, dir, _ := renderFixture(t, reportstest.PlainNames)
	counter := &s.Workloads[0]
	units := text.UnitsOf(s.Units, counter.Name)

	// throughput: each op's ok+conflict in each second, the busiest blob
	// and its target
	tc := throughputChart("t", counter, units)
	if len(tc.lines) != 3 || len(tc.refs) != 1 || tc.refs[0].y != 500 {
		t.Fatalf("throughput lines %d refs %+v", len(tc.lines), tc.refs)
	}
	get := counter.Ops[0]
	if get.Op != "blob.get" {
		t.Fatalf("first op %s", get.Op)
	}
	for sec, c := range get.PerSecond {
		if tc.lines[0].x[sec] != float64(sec)+0.5 || tc.lines[0].y[sec] != float64(c[checks.OK]+c[checks.Conflict]) {
			t.Fatalf("second %d: point (%v, %v), want %d", sec, tc.lines[0].x[sec], tc.lines[0].y[sec], c[checks.OK]+c[checks.Conflict])
		}
	}
	blob := units[0]
	if blob.Name != "k0" || tc.lines[2].y[3] != float64(blob.PerSecond[3]) {
		t.Errorf("unit line %v, want %v", tc.lines[2].y[:4], blob.PerSecond[:4])
	}

	// outcomes: stacked, the top layer's top is every attempt of the second
	put := counter.Ops[1]
	oc := outcomeChart("o", counter.Name, &put, len(put.PerSecond))
	names := []string{}
	for _, l := range oc.lines {
		names = append(names, l.name)
	}
	if strings.Join(names, ",") != "ok,conflict,unknown" {
		t.Errorf("outcome layers %v", names)
	}
	top := oc.lines[len(oc.lines)-1]
	for sec, c := range put.PerSecond {
		if top.y[sec] != float64(c.Total()) {
			t.Fatalf("second %d: stack top %v, want %d", sec, top.y[sec], c.Total())
		}
	}
	if oc.lines[1].base[4] != oc.lines[0].y[4] {
		t.Errorf("conflict layer does not sit on ok")
	}

	// spectrum: at 90%, 99% and 99.9% it reads what the table says
	hot := &s.Workloads[1].Ops[0]
	sc, err := spectrumChart("s", "hot", hot)
	if err != nil {
		t.Fatal(err)
	}
	cor, unc := sc.lines[0], sc.lines[1]
	for x, want := range map[int]float64{1: hot.Corrected.P90, 2: hot.Corrected.P99, 3: hot.Corrected.P999} {
		if got := cor.y[x*spectrumSteps]; got != want {
			t.Errorf("corrected spectrum at %s: %v, want %v", spectrumLabel(x), got, want)
		}
	}
	if got := unc.y[2*spectrumSteps]; got != hot.Latency.P99 {
		t.Errorf("uncorrected p99 %v, want %v", got, hot.Latency.P99)
	}
	if last := cor.y[len(cor.y)-1]; last != hot.Corrected.Max || cor.x[len(cor.x)-1] != float64(spectrumDecades(hot.Count)) {
		t.Errorf("spectrum ends at (%v, %v), want the max %v", cor.x[len(cor.x)-1], last, hot.Corrected.Max)
	}
	if hot.Corrected.P99 <= hot.Latency.P99 {
		t.Errorf("the fixture should fall behind: corrected p99 %v, uncorrected %v", hot.Corrected.P99, hot.Latency.P99)
	}

	// latency over time: the hlog's intervals hold every op of the series
	hl := ReadHlogDir(filepath.Join(dir, "hlog"))
	ls := hl.Series[LatencyKeyOf{"counter", "blob.put"}]
	if ls == nil || len(hl.problems) > 0 {
		t.Fatalf("no blob.put log: %v", hl.problems)
	}
	var n int64
	for _, c := range ls.Count {
		n += c
	}
	if n != put.Count || len(ls.Second) != len(put.PerSecond) {
		t.Errorf("log holds %d ops in %d seconds, summary %d in %d", n, len(ls.Second), put.Count, len(put.PerSecond))
	}
	if ls.P99[13] < 3*ls.P99[5] {
		t.Errorf("the spike at 12-14 s does not show: p99 %v at 13 s, %v at 5 s", ls.P99[13], ls.P99[5])
	}
	lc := latencyChart("l", "counter", ls, len(put.PerSecond), false)
	if len(lc.lines) != 3 || lc.lines[2].name != "p99" || lc.lines[2].y[13] != ls.P99[13] || lc.lines[2].x[13] != 13.5 {
		t.Errorf("latency chart lines %d, p99 line %+v", len(lc.lines), lc.lines[2].y[:14])
	}
	// The chart over time is of corrected latency, as the tables: the hot
	// workload fell behind at 15-18 s, where its corrected p99 per second
	// is above the uncorrected one, and the page draws the corrected log.
	hc, hu := hl.corrected[LatencyKeyOf{"hot", "table.insert"}], hl.Series[LatencyKeyOf{"hot", "table.insert"}]
	if hc == nil || hu == nil || hc.P99[16] <= hu.P99[16] || !reportstest.Almost(hc.P50[3], hu.P50[3], 0.01) {
		t.Fatalf("corrected log %+v beside uncorrected %+v", hc, hu)
	}
	var page strings.Builder
	if err := WriteHTML(&page, s, filepath.Join(dir, "hlog")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), "table.insert: latency per second (corrected, ms)") || strings.Contains(page.String(), "latency per second (uncorrected") {
		t.Errorf("the page's latency over time is not the corrected figure")
	}

	// utilisation: peak over target, busiest first
	pu := text.UnitsOf(s.Units, "hot")
	bc := utilisationChart("u", pu, 20)
	if len(bc.bars) != 12 || bc.bars[0].label != "p0" || bc.bars[0].value != float64(pu[0].Peak)/2000 {
		t.Fatalf("bars %+v", bc.bars[:1])
	}
	if want := strconv.FormatFloat(100*float64(pu[0].Peak)/2000, 'f', 1, 64) + "%"; !strings.HasPrefix(bc.bars[0].text, want) {
		t.Errorf("bar text %q, want %s", bc.bars[0].text, want)
	}
}

func TestReadLatencyLogPercentiles(t *testing.T) {
	dir := t.TempDir()
	m := reports.NewMetrics(reports.MetricsOptions{HlogDir: dir})
	for i := 1; i <= 100; i++ { // second 0: 1..100 ms
		m.Record(reportstest.MkOp("w-1", "blob.get", 0, checks.OK, float64(i), float64(i), 0))
	}
	for i := 0; i < 10; i++ { // second 3: all 5 ms
		m.Record(reportstest.MkOp("w-1", "blob.get", 0, checks.OK, 3000+float64(i), 5, 0))
	}
	if err := m.Close(); err != nil {
		t.Fatal(err)
	}
	ls, err := ReadLatencyLog(filepath.Join(dir, "w-1.blob.get.hlog"))
	if err != nil {
		t.Fatal(err)
	}
	if ls.Workload != "w-1" || ls.Op != "blob.get" || len(ls.Second) != 2 || ls.Second[0] != 0 || ls.Second[1] != 3 {
		t.Fatalf("series %+v", ls)
	}
	for _, c := range []struct{ got, want float64 }{
		{ls.P50[0], 50}, {ls.P90[0], 90}, {ls.P99[0], 99}, {ls.Max[0], 100}, {ls.P50[1], 5}, {ls.P99[1], 5},
	} {
		if !reportstest.Almost(c.got, c.want, 0.002) {
			t.Errorf("got %v ms, want %v", c.got, c.want)
		}
	}
	if ls.Count[0] != 100 || ls.Count[1] != 10 {
		t.Errorf("counts %v", ls.Count)
	}

	// a log without the stormcheck header is named by its file
	b, _ := os.ReadFile(filepath.Join(dir, "w-1.blob.get.hlog"))
	plain := regexp.MustCompile(`(?m)^#\[stormcheck.*\n`).ReplaceAll(b, nil)
	other := filepath.Join(dir, "x.table.get.hlog")
	os.WriteFile(other, plain, 0o644)
	if ls, err := ReadLatencyLog(other); err != nil || ls.Workload != "x" || ls.Op != "table.get" || len(ls.Second) != 2 {
		t.Errorf("headerless log: %v %+v", err, ls)
	}
	os.WriteFile(other, []byte("0.000,1.000,0.1,NOTAHISTOGRAM\n"), 0o644)
	if _, err := ReadLatencyLog(other); err == nil || !strings.Contains(err.Error(), "x.table.get.hlog: line 1") {
		t.Errorf("bad log: %v", err)
	}
	hl := ReadHlogDir(dir)
	if len(hl.problems) != 1 || hl.Series[LatencyKeyOf{"w-1", "blob.get"}] == nil {
		t.Errorf("dir read: problems %v", hl.problems)
	}
}

// withoutOwnScript is the page without its one inline script, which must be
// there once, as script.go wrote it.
func withoutOwnScript(t *testing.T, page string) string {
	t.Helper()
	own := "<script>" + reportScript + "</script>"
	if strings.Count(page, own) != 1 {
		t.Fatalf("the page has its script %d times", strings.Count(page, own))
	}
	return strings.Replace(page, own, "", 1)
}

func TestHTMLEscapesEverything(t *testing.T) {
	_, _, page := renderFixture(t, reportstest.HostileNames)
	page = withoutOwnScript(t, page)
	for _, bad := range []string{"<script", "<img", "<b>", "<i>", "<u>", "<svg onload", `href="javascript:`, `counter"`, "onerror=alert(1)>"} {
		if strings.Contains(page, bad) {
			i := strings.Index(page, bad)
			t.Errorf("page contains %q unescaped: ...%s...", bad, page[max(0, i-80):min(len(page), i+80)])
		}
	}
	for _, want := range []string{
		"&lt;script&gt;alert(&#34;scenario&#34;)&lt;/script&gt;",
		"counter&#34;&gt;&lt;b&gt;",
		"k0&lt;img src=x onerror=alert(1)&gt;",
		"&lt;/pre&gt;&lt;/td&gt;&lt;script&gt;alert(3)&lt;/script&gt;",
		"&lt;u&gt;log&lt;/u&gt;", `href="#ZgotmplZ"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks the escaped %q", want)
		}
	}
	svgsOf(t, page) // still well-formed
}

func TestHTMLWithoutUnitsHlogOrHistograms(t *testing.T) {
	s, _, _ := renderFixture(t, reportstest.PlainNames)
	s.Units, s.Capacity, s.Thresholds = nil, nil, nil
	for i := range s.Workloads {
		for j := range s.Workloads[i].Ops {
			s.Workloads[i].Ops[j].Histograms = nil // a summary from before histograms were kept
		}
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, s, filepath.Join(t.TempDir(), "no-hlog")); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	svgs := svgsOf(t, page)
	for _, w := range []string{"hlog/ is missing", "this run has no hlog/ directory", "no latency histogram in the summary"} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	if strings.Contains(page, "utilisation") || svgs["w1-units-1"] != "" || svgs["w1-latency-1"] != "" {
		t.Error("units or latency charts without units or logs")
	}
	if svgs["w1-throughput"] == "" || svgs["w1-spectrum-1"] == "" {
		t.Error("throughput or spectrum chart missing")
	}

	// a log directory without this op's log says so for that op
	dir := t.TempDir()
	var b2 bytes.Buffer
	if err := WriteHTML(&b2, s, dir); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b2.String(), "no latency log for this op in hlog/") {
		t.Error("missing op log not noted")
	}
}

func TestHTMLRunThatFailedEarly(t *testing.T) {
	s := &reports.Summary{Scenario: "broken", Seed: 3, Error: "azurite: did not start <in 30s>", Interrupted: true,
		Files: map[string]string{"scenario": "scenario.yaml"}}
	var b bytes.Buffer
	if err := WriteHTML(&b, s, ""); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, w := range []string{"<strong>Error:</strong> azurite: did not start &lt;in 30s&gt;", "<strong>Interrupted:</strong>",
		"<strong>130</strong>: interrupted", `<a href="scenario.yaml">`} {
		if !strings.Contains(page, w) {
			t.Errorf("page lacks %q", w)
		}
	}
	if strings.Contains(page, "<svg") || strings.Contains(page, "Workload") {
		t.Error("a run without operations draws charts")
	}
}

func TestHTMLExitCode(t *testing.T) {
	fail := checks.Result{Verdict: checks.Fail}
	und := checks.Result{Verdict: checks.Undecided}
	for _, c := range []struct {
		s    reports.Summary
		want int
	}{
		{reports.Summary{}, 0},
		{reports.Summary{ExitCode: 6}, 6},
		{reports.Summary{Checks: []checks.Result{und, fail}, Interrupted: true}, 1},
		{reports.Summary{Checks: []checks.Result{und}, Interrupted: true}, 130},
		{reports.Summary{Checks: []checks.Result{und}, Error: "x"}, 3},
		{reports.Summary{Checks: []checks.Result{und}, Thresholds: []reports.ThresholdResult{{Pass: false}}}, 5},
		{reports.Summary{Checks: []checks.Result{und}}, 4},
	} {
		if got := text.ExitCode(&c.s); got != c.want {
			t.Errorf("%+v: exit code %d, want %d", c.s, got, c.want)
		}
	}
}

func TestWriteHTMLReportFile(t *testing.T) {
	dir := t.TempDir()
	s := reportstest.WriteFixtureRun(t, dir, reportstest.PlainNames)
	s.Files["hlog"] = "hlog/"
	if err := WriteHTMLReport(dir, s); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, reports.HTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `id="w1-latency-1"`) {
		t.Error("the report did not read dir/hlog")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".report.html.tmp-*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
	if got := HlogDirOf(dir, &reports.Summary{}); got != filepath.Join(dir, "hlog") {
		t.Errorf("default hlog dir %s", got)
	}
}

func TestChartPrimitives(t *testing.T) {
	labels := func(ts []chartTick) string {
		var l []string
		for _, t := range ts {
			l = append(l, t.label)
		}
		return strings.Join(l, " ")
	}
	for _, c := range []struct {
		got, want string
	}{
		{labels(chartLinearTicks(0, 100, 5)), "0 20 40 60 80 100"},
		{labels(chartLinearTicks(0, 0.9, 5)), "0 0.2 0.4 0.6 0.8"},
		{labels(chartLinearTicks(0, 40000, 4)), "0 10k 20k 30k 40k"},
		{labels(chartLogTicks(1, 100)), "1 2 5 10 20 50 100"},
		{labels(chartLogTicks(0.1, 1e5)), "0.1 1 10 100 1000 10k 100k"},
		{spectrumLabel(0) + " " + spectrumLabel(1) + " " + spectrumLabel(2) + " " + spectrumLabel(4), "0% 90% 99% 99.99%"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if lo, hi := chartLogRange(3, 70); lo != 2 || hi != 100 {
		t.Errorf("log range %v..%v", lo, hi)
	}
	if chartNiceMax(387, 5) != 400 || chartBucketSize(600) != 1 || chartBucketSize(1801) != 4 {
		t.Error("nice max or bucket size")
	}
	xs, ys := chartBuckets([]float64{1, 2, 3, 4, 5}, 2)
	if len(xs) != 3 || xs[0] != 1 || ys[0] != 1.5 || xs[2] != 4.5 || ys[2] != 5 {
		t.Errorf("buckets %v %v", xs, ys)
	}
	mx, my := chartBucketsMax([]float64{0.5, 1.5, 2.5, 7.5}, []float64{1, 9, 2, 4}, 2)
	if len(mx) != 3 || my[0] != 9 || my[1] != 2 || mx[2] != 7 {
		t.Errorf("max buckets %v %v", mx, my)
	}
	// an empty chart says so; a chart with data draws its series and legend
	empty := (&lineChart{id: "e", title: "t", empty: "nothing <here>"}).render()
	if !strings.Contains(string(empty), "nothing &lt;here&gt;") {
		t.Errorf("empty chart: %s", empty)
	}
	c := (&lineChart{id: "c", title: "t", x: chartAxis{label: "x"}, y: chartAxis{label: "y"},
		lines: []chartLine{{name: "a&b", color: palBlue, x: []float64{0, 1, 2}, y: []float64{1, math.NaN(), 3}}},
		refs:  []chartRefLine{{y: 5, label: "target", color: palBlack}}}).render()
	for _, w := range []string{`<polyline`, `a&amp;b`, `>target</text>`, `stroke="#0072B2"`} {
		if !strings.Contains(string(c), w) {
			t.Errorf("chart lacks %q: %s", w, c)
		}
	}
	svgsOf(t, string(c))
	// the spectrum of a histogram reaches its maximum at the right edge
	h := hdrhistogram.New(1, 3600e6, 3)
	for i := int64(1); i <= 1000; i++ {
		h.RecordValue(i * 1000)
	}
	pts := percentileSpectrum(h, spectrumDecades(h.TotalCount()), 0)
	if len(pts) != 3*spectrumSteps+1 || !reportstest.Almost(pts[spectrumSteps].ms, 900, 0.002) || !reportstest.Almost(pts[len(pts)-1].ms, 1000, 0.002) {
		t.Errorf("spectrum %v ... %v", pts[spectrumSteps], pts[len(pts)-1])
	}
	_ = time.Second
}

// TestHTMLSaysTheMachineWasBusy: a run beside other work says so among
// the run's facts.
func TestHTMLSaysTheMachineWasBusy(t *testing.T) {
	s, _, page := renderFixture(t, reportstest.PlainNames)
	if strings.Contains(page, "busy: other processes") {
		t.Fatal("a run with no other_cpu says the machine was busy")
	}
	other := 0.48
	s.OtherCPU = &other
	var b bytes.Buffer
	if err := WriteHTML(&b, s, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "busy: other processes used 48.0% of the machine&#39;s CPU during the load") {
		t.Error("the busy machine is not named")
	}
}
