package html

import (
	"fmt"
	"math"
	"strconv"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
)

// This file builds the HTML report's charts from a summary's figures: what
// each chart shows, its series and its labels. svg.go draws them.

// chartMaxPoints is how many points a time series draws at most; longer
// runs are cut into buckets of several seconds.
const chartMaxPoints = 600

// timeChartHeight is the height of the charts over time of one op; they
// span the page, as every chart over time does, so that their time axes
// line up.
const timeChartHeight = 230

// runSeconds is how many seconds the run's per-second series cover: the
// one time axis every chart over time shares.
func runSeconds(s *reports.Summary) int {
	n := 0
	for i := range s.Workloads {
		n = max(n, workloadSeconds(&s.Workloads[i]), len(s.Workloads[i].InFlight))
	}
	for _, u := range s.Units {
		n = max(n, len(u.PerSecond))
	}
	return n
}

// onTimeAxis puts a chart over time on the run's time axis, [0, seconds].
func onTimeAxis(c *lineChart, seconds int) *lineChart {
	c.x.min, c.x.max = 0, math.Max(float64(seconds), c.x.max)
	return c
}

// timeAxisLabel names the x axis of the charts over time, saying when a
// point stands for several seconds.
func timeAxisLabel(k int) string {
	if k > 1 {
		return fmt.Sprintf("seconds since the run started (each point: %d s)", k)
	}
	return "seconds since the run started"
}

// workloadSeconds is how many seconds the workload's per-second series
// cover (the longest op's).
func workloadSeconds(ws *reports.WorkloadSummary) int {
	n := 0
	for _, o := range ws.Ops {
		n = max(n, len(o.PerSecond))
	}
	return n
}

// okConflict is an op's ok+conflict attempts per second.
func okConflict(o *reports.OpSummary) []float64 {
	out := make([]float64, len(o.PerSecond))
	for i, c := range o.PerSecond {
		out[i] = float64(c[checks.OK] + c[checks.Conflict])
	}
	return out
}

// busiestUnits returns, per unit kind of the workload (in first-seen
// order), the busiest unit that kept its per-second series.
func busiestUnits(units []reports.UnitSummary) []reports.UnitSummary {
	var out []reports.UnitSummary
	seen := map[reports.UnitKind]bool{}
	for _, u := range units {
		if seen[u.Kind] || len(u.PerSecond) == 0 {
			continue
		}
		seen[u.Kind] = true
		out = append(out, u)
	}
	return out
}

// throughputChart draws each op's ok+conflict per second, and the busiest
// unit's acknowledged amount per second against its target.
func throughputChart(id string, ws *reports.WorkloadSummary, units []reports.UnitSummary) *lineChart {
	n := workloadSeconds(ws)
	for _, u := range busiestUnits(units) {
		n = max(n, len(u.PerSecond))
	}
	k := chartBucketSize(n)
	c := &lineChart{
		id:    id,
		title: "workload " + ws.Name + ": throughput, ok+conflict per second",
		x:     chartAxis{label: timeAxisLabel(k), min: 0, max: math.Max(float64(n), 1)},
		y:     chartAxis{label: "per second"},
		empty: "no operations recorded per second",
		unit:  "/s", xfmt: "time",
	}
	for i := range ws.Ops {
		o := &ws.Ops[i]
		if len(o.PerSecond) == 0 {
			continue
		}
		xs, ys := chartBuckets(okConflict(o), k)
		c.lines = append(c.lines, chartLine{
			name: o.Op + " ok+conflict/s", color: chartColours[i%len(chartColours)], dash: chartDashes[i%len(chartDashes)],
			x: xs, y: ys,
			tip: fmt.Sprintf("%s: ok+conflict per second, %s/s over the active period", o.Op, strconv.FormatFloat(o.Rate, 'f', 1, 64)),
		})
	}
	for _, u := range busiestUnits(units) {
		per := make([]float64, len(u.PerSecond))
		for i, v := range u.PerSecond {
			per[i] = float64(v)
		}
		xs, ys := chartBuckets(per, k)
		c.lines = append(c.lines, chartLine{
			name: fmt.Sprintf("busiest %s %s (%s/s)", u.Kind, u.Name, u.Measure), color: palPurple, dash: "2 2", width: 2.5,
			x: xs, y: ys,
			tip: fmt.Sprintf("busiest %s %s: peak %d %s/s at %d s", u.Kind, u.Name, u.Peak, u.Measure, u.PeakSecond),
		})
		if u.Target > 0 {
			c.refs = append(c.refs, chartRefLine{y: u.Target, color: palBlack, dash: "8 4",
				label: fmt.Sprintf("target %s %s/s per %s", reports.Thousands(int64(u.Target)), u.Measure, u.Kind)})
		}
	}
	return c
}

// outcomeChart stacks an op's attempts per second by outcome (the outcomes
// it had), from ok at the bottom to unknown at the top.
func outcomeChart(id, workload string, o *reports.OpSummary, seconds int) *lineChart {
	k := chartBucketSize(seconds)
	c := &lineChart{
		id:     id,
		title:  "workload " + workload + ", " + o.Op + ": attempts per second by outcome",
		height: timeChartHeight,
		x:      chartAxis{label: timeAxisLabel(k), min: 0, max: math.Max(float64(seconds), 1)},
		y:      chartAxis{label: "attempts per second"},
		empty:  "no attempts recorded",
		unit:   "/s", xfmt: "time",
	}
	if len(o.PerSecond) == 0 {
		return c
	}
	stacked := make([]float64, len(o.PerSecond))
	var below []float64 // the previous layer's top, bucketed; nil: zero
	for oi, oc := range checks.Outcomes {
		if o.Outcomes[oc.String()] == 0 {
			continue
		}
		own := make([]float64, len(o.PerSecond))
		for i, cnt := range o.PerSecond {
			stacked[i] += float64(cnt[oc])
			own[i] = float64(cnt[oc])
		}
		xs, ys := chartBuckets(stacked, k)
		_, vals := chartBuckets(own, k)
		c.lines = append(c.lines, chartLine{
			name: oc.String(), color: chartOutcomeColours[oi], fill: true, x: xs, y: ys, base: below, vals: vals,
			tip: fmt.Sprintf("%s: %s %s", o.Op, reports.Thousands(o.Outcomes[oc.String()]), oc.String()),
		})
		below = ys
	}
	return c
}

// latencyChart draws an op's p50, p90 and p99 per second from its latency
// log (corrected: from hlog/corrected/, as the tables; else uncorrected),
// on a log scale when they span more than a factor of 20.
func latencyChart(id, workload string, ls *LatencySeries, seconds int, corrected bool) *lineChart {
	k := chartBucketSize(seconds)
	which := "uncorrected"
	if corrected {
		which = "corrected"
	}
	c := &lineChart{
		id:     id,
		title:  "workload " + workload + ", " + ls.Op + ": latency per second (" + which + ", ms)",
		height: timeChartHeight,
		x:      chartAxis{label: timeAxisLabel(k), min: 0, max: math.Max(float64(seconds), 1)},
		y:      chartAxis{label: "latency (ms)"},
		empty:  "the latency log has no intervals",
		unit:   " ms", xfmt: "time",
	}
	lo, hi := math.Inf(1), 0.0
	for i := range ls.Second {
		if ls.P50[i] > 0 {
			lo = math.Min(lo, ls.P50[i])
		}
		hi = math.Max(hi, ls.P99[i])
	}
	c.y.log = hi > 0 && !math.IsInf(lo, 1) && hi/lo > 20
	if c.y.log {
		c.y.label = "latency (ms, log scale)"
	}
	for i, q := range []struct {
		name  string
		v     []float64
		color string
	}{{"p50", ls.P50, palBlue}, {"p90", ls.P90, palOrange}, {"p99", ls.P99, palVermilion}} {
		xs := make([]float64, len(ls.Second))
		for j, s := range ls.Second {
			xs[j] = s + 0.5
		}
		xs, ys := chartBucketsMax(xs, q.v, k)
		name := q.name
		if k > 1 {
			name += " (worst second of each point)"
		}
		c.lines = append(c.lines, chartLine{name: name, color: q.color, dash: chartDashes[i], x: xs, y: ys,
			tip: fmt.Sprintf("%s %s per second", ls.Op, q.name)})
	}
	return c
}

// spectrumChart draws an op's latency percentile spectrum, corrected and
// uncorrected, over the percentile on the usual log scale (0%, 90%, 99%,
// 99.9% ...). It reports an error when a histogram cannot be decoded.
func spectrumChart(id, workload string, o *reports.OpSummary) (*lineChart, error) {
	decades := spectrumDecades(o.Count)
	var ticks []chartTick
	for x := 0; x <= decades; x++ {
		ticks = append(ticks, chartTick{float64(x), spectrumLabel(x)})
	}
	c := &lineChart{
		id:     id,
		title:  "workload " + workload + ", " + o.Op + ": latency by percentile",
		width:  560,
		height: 280,
		x:      chartAxis{label: "percentile", min: 0, max: float64(decades), ticks: ticks},
		y:      chartAxis{label: "latency (ms)"},
		empty:  "no latency histogram in the summary",
		unit:   " ms", xfmt: "pct",
	}
	if o.Histograms == nil {
		return c, nil
	}
	for i, h := range []struct {
		name, enc, color string
		maxMs            float64
		width            float64
	}{
		{"corrected (from intended start)", o.Histograms.Corrected, palVermilion, o.Corrected.Max, 3},
		{"uncorrected (call to return)", o.Histograms.Latency, palBlue, o.Latency.Max, 2},
	} {
		if h.enc == "" {
			continue
		}
		hist, err := reports.DecodeHistogram(h.enc)
		if err != nil {
			return c, fmt.Errorf("%s %s histogram: %w", o.Op, h.name, err)
		}
		pts := percentileSpectrum(hist, decades, h.maxMs)
		xs, ys := make([]float64, len(pts)), make([]float64, len(pts))
		for j, p := range pts {
			xs[j], ys[j] = p.x, p.ms
		}
		c.lines = append(c.lines, chartLine{name: h.name, color: h.color, dash: chartDashes[i], width: h.width, x: xs, y: ys,
			tip: fmt.Sprintf("%s %s: p50 %s ms, p99 %s ms, max %s ms", o.Op, h.name, reports.Ms(capMs(hist.ValueAtQuantile(50), h.maxMs)), reports.Ms(capMs(hist.ValueAtQuantile(99), h.maxMs)), reports.Ms(h.maxMs))})
	}
	return c, nil
}

// utilisationChart draws each unit's busiest second against its target
// (peak/target), busiest first, for the units a target applies to.
func utilisationChart(id string, units []reports.UnitSummary, limit int) *barChart {
	c := &barChart{
		id:       id,
		xLabel:   "busiest second / target",
		ref:      1,
		refLabel: "target",
		format:   func(v float64) string { return strconv.FormatFloat(100*v, 'f', 0, 64) + "%" },
	}
	if len(units) > 0 {
		c.title = fmt.Sprintf("workload %s: peak %s per second against the target, per %s", units[0].Workload, units[0].Measure, units[0].Kind)
	}
	for _, u := range units {
		if u.Target <= 0 {
			continue
		}
		if len(c.bars) == limit {
			break
		}
		color := palBlue
		if u.Utilisation >= 1 {
			color = palVermilion
		}
		c.bars = append(c.bars, chartBar{
			label: u.Name, value: u.Utilisation, color: color,
			text: fmt.Sprintf("%s%% (%s/s)", strconv.FormatFloat(100*u.Utilisation, 'f', 1, 64), reports.Thousands(u.Peak)),
			tip:  fmt.Sprintf("%s %s: peak %d %s/s at %d s, target %s/s", u.Kind, u.Name, u.Peak, u.Measure, u.PeakSecond, reports.Thousands(int64(u.Target))),
		})
	}
	return c
}

// capMs converts microseconds to milliseconds, capped at maxMs when it is
// positive (the exact maximum, as the tables show).
func capMs(us int64, maxMs float64) float64 {
	v := float64(us) / 1e3
	if maxMs > 0 {
		v = math.Min(v, maxMs)
	}
	return v
}

// histogramBinsPerDecade is how finely the latency histogram cuts each
// factor of ten.
const histogramBinsPerDecade = 10

// latencyHistogramChart draws an op's latency distribution as a histogram
// over a log latency axis: the share of attempts in each bin (ten per
// factor of ten), corrected filled, uncorrected as a line.
func latencyHistogramChart(id, workload string, o *reports.OpSummary) (*lineChart, error) {
	c := &lineChart{
		id:     id,
		title:  "workload " + workload + ", " + o.Op + ": latency histogram",
		width:  560,
		height: 280,
		x:      chartAxis{label: "latency (ms, log scale)"},
		y:      chartAxis{label: "share of attempts (%)"},
		empty:  "no latency histogram in the summary",
		unit:   "%", xfmt: "logms",
	}
	if o.Histograms == nil {
		return c, nil
	}
	type series struct {
		name, enc, color string
		fill             bool
	}
	all := []series{{"corrected (from intended start)", o.Histograms.Corrected, palVermilion, true}, {"uncorrected (call to return)", o.Histograms.Latency, palBlue, false}}
	shares := map[string]map[int]float64{} // series -> bin -> % of attempts
	lo, hi := math.MaxInt, math.MinInt
	for _, s := range all {
		if s.enc == "" {
			continue
		}
		h, err := reports.DecodeHistogram(s.enc)
		if err != nil {
			return c, fmt.Errorf("%s %s histogram: %w", o.Op, s.name, err)
		}
		total := float64(h.TotalCount())
		if total == 0 {
			continue
		}
		share := map[int]float64{}
		for _, b := range h.Distribution() {
			if b.Count == 0 {
				continue
			}
			mid := math.Max(float64(b.From+b.To)/2/1e3, 0.001) // ms
			bin := int(math.Floor(math.Log10(mid) * histogramBinsPerDecade))
			share[bin] += 100 * float64(b.Count) / total
			lo, hi = min(lo, bin), max(hi, bin)
		}
		shares[s.name] = share
	}
	if lo > hi {
		return c, nil
	}
	for _, s := range all {
		counts, ok := shares[s.name]
		if !ok {
			continue
		}
		var xs, ys []float64
		for bin := lo; bin <= hi; bin++ {
			x0, x1 := float64(bin)/histogramBinsPerDecade, float64(bin+1)/histogramBinsPerDecade
			xs = append(xs, x0, x1)
			ys = append(ys, counts[bin], counts[bin])
		}
		c.lines = append(c.lines, chartLine{name: s.name, color: s.color, fill: s.fill, width: 2, x: xs, y: ys,
			tip: fmt.Sprintf("%s %s: share of attempts per latency bin", o.Op, s.name)})
	}
	c.x.min, c.x.max = float64(lo)/histogramBinsPerDecade, float64(hi+1)/histogramBinsPerDecade
	for d := math.Floor(c.x.min); d <= math.Ceil(c.x.max); d++ {
		for _, m := range []float64{1, 2, 5} {
			x := d + math.Log10(m)
			if x >= c.x.min-1e-9 && x <= c.x.max+1e-9 {
				c.x.ticks = append(c.x.ticks, chartTick{x, strconv.FormatFloat(math.Round(m*math.Pow(10, d)*1000)/1000, 'f', -1, 64)})
			}
		}
	}
	return c, nil
}

// inFlightChart draws the workload's calls in flight per second (the mean
// over each second): its actors busy with the service, as k6 draws VUs.
func inFlightChart(id string, ws *reports.WorkloadSummary) *lineChart {
	k := chartBucketSize(len(ws.InFlight))
	c := &lineChart{
		id:     id,
		title:  "workload " + ws.Name + ": actors busy (mean calls in flight per second)",
		width:  chartFullWidth,
		height: 220,
		x:      chartAxis{label: timeAxisLabel(k), min: 0, max: math.Max(float64(len(ws.InFlight)), 1)},
		y:      chartAxis{label: "calls in flight"},
		empty:  "no calls recorded",
		unit:   " in flight", xfmt: "time",
	}
	xs, ys := chartBuckets(ws.InFlight, k)
	c.lines = append(c.lines, chartLine{name: "calls in flight", color: palGreen, fill: true, width: 2, x: xs, y: ys,
		tip: fmt.Sprintf("%s: mean calls in flight per second", ws.Name)})
	if ws.Actors > 0 {
		c.refs = append(c.refs, chartRefLine{y: float64(ws.Actors), label: fmt.Sprintf("%d actors", ws.Actors), color: palGrey, dash: "6 3"})
	}
	return c
}
