package compare

import (
	"math"
	"regexp"
	"sort"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
)

// Comparing two runs of a scenario ("did this build get slower?"): per
// workload and operation, the change in throughput and in each latency
// percentile, each with a noise estimate from the runs' own per-second
// variation. A change is flagged only when it is larger than both the noise
// and the tolerance the scenario sets. Latency is compared on the whole
// run's HdrHistograms (corrected), as distributions: percentiles are read
// from each run's full distribution, never averaged, and the distance
// between the two distributions (Kolmogorov–Smirnov) is reported beside.

// Options tunes a comparison.
type Options struct {
	// Tolerance is the relative change never flagged (0.1 = 10 %).
	Tolerance float64
	// BaseHlog and NewHlog are the runs' hlog directories (per-second
	// latency histograms), for the latency noise; "" when absent (the
	// latency is then judged against the tolerance alone).
	BaseHlog, NewHlog string
}

// Change is one figure compared.
type Change struct {
	// Metric is "throughput" (ops/s) or a latency percentile ("p50" ...,
	// ms).
	Metric    string  `json:"metric"`
	Base      float64 `json:"base"`
	New       float64 `json:"new"`
	Relative  float64 `json:"relative"` // (new - base) / base
	Noise     float64 `json:"noise"`    // relative; -1 unknown, FewSamples too few samples to judge
	Regressed bool    `json:"regressed"`
	// P is the rank test's p-value, when several runs a side were judged.
	P        *float64 `json:"p,omitempty"`
	Improved bool     `json:"improved"`
	// Unjudged says why a change beyond the tolerance is not judged: its
	// own noise is as large as the change ("" when judged or within the
	// tolerance).
	Unjudged string `json:"unjudged,omitempty"`
}

// OpComparison compares one (workload, op).
type OpComparison struct {
	Workload string   `json:"workload"`
	Op       string   `json:"op"`
	Changes  []Change `json:"changes"`
	// KS is the Kolmogorov–Smirnov distance between the corrected latency
	// distributions (0: identical, 1: disjoint).
	KS float64 `json:"ks"`
}

// Comparison is the result of comparing two runs.
type Comparison struct {
	Base      string         `json:"base"`
	New       string         `json:"new"`
	Tolerance float64        `json:"tolerance"`
	Ops       []OpComparison `json:"ops"`
	// Units compares the units both runs list (same workload, kind and
	// name): acknowledged rate, and latency where both have it.
	Units        []UnitComparison `json:"units,omitempty"`
	Regressions  int              `json:"regressions"`
	Improvements int              `json:"improvements"`
	// Notes list what could not be compared (an op only one run has).
	Notes []string `json:"notes,omitempty"`
	// Incomparable lists why the runs cannot be judged against each other
	// (see Incomparable); when set, no change is flagged.
	Incomparable []string `json:"incomparable,omitempty"`
	// Weak says on what a one-run-a-side verdict rests; Runs is how many
	// runs each side had when more than one.
	Weak              string `json:"weak,omitempty"`
	BaseRuns, NewRuns int    `json:"-"`
}

// NoiseMargin is how many times its own noise a change must exceed to be
// judged (as well as the tolerance).
const NoiseMargin = 2

// FewSamples is a Change's Noise when a percentile has too few samples
// beyond it to be judged (see minTail).
const FewSamples = -2

// minTail is how many samples a run needs beyond a percentile for a change
// in it to be flagged: p99 needs 1,000 samples, p99.9 10,000.
const MinTail = 10

func tooFew(h *hdrhistogram.Histogram, q float64) bool { return few(h.TotalCount(), q) }

func few(n int64, q float64) bool { return float64(n)*(1-q/100) < MinTail }

// comparedPercentiles are the latency figures compared.
var comparedPercentiles = []struct {
	name string
	q    float64
}{{"p50", 50}, {"p90", 90}, {"p99", 99}, {"p99.9", 99.9}}

// Saved compares two saved runs: Runs, then no verdict at all when they
// are not comparable (Incomparable says why).
func Saved(base, new Run, o Options) *Comparison {
	c := Runs(base.Summary, new.Summary, o)
	if why := Incomparable(base, new); len(why) > 0 {
		withhold(c, why)
	}
	return c
}

// Runs compares new against base.
func Runs(base, new *reports.Summary, o Options) *Comparison {
	c := &Comparison{Base: base.Scenario, New: new.Scenario, Tolerance: o.Tolerance}
	baseNoise, newNoise := latencyNoise(o.BaseHlog), latencyNoise(o.NewHlog)
	baseOps := opsByKey(base)
	newOps := opsByKey(new)
	for _, k := range sortedKeys(baseOps, newOps) {
		b, inBase := baseOps[k]
		n, inNew := newOps[k]
		switch {
		case !inBase:
			c.Notes = append(c.Notes, k.workload+" "+k.op+": only in the new run")
			continue
		case !inNew:
			c.Notes = append(c.Notes, k.workload+" "+k.op+": only in the base run")
			continue
		}
		oc := OpComparison{Workload: k.workload, Op: k.op}
		oc.Changes = append(oc.Changes, Judge(Change{Metric: "throughput", Base: b.Rate, New: n.Rate,
			Noise: rateNoise(b.PerSecond, n.PerSecond, b.Rate)}, o.Tolerance, true))
		bh, berr := decodeCorrected(b)
		nh, nerr := decodeCorrected(n)
		if berr == nil && nerr == nil && bh.TotalCount() > 0 && nh.TotalCount() > 0 {
			for _, p := range comparedPercentiles {
				bv, nv := float64(bh.ValueAtQuantile(p.q))/1000, float64(nh.ValueAtQuantile(p.q))/1000
				ch := Change{Metric: p.name, Base: bv, New: nv}
				if tooFew(bh, p.q) || tooFew(nh, p.q) {
					// A percentile with under minTail samples beyond it is
					// one or two outliers: shown, never flagged.
					ch.Noise = FewSamples
					if bv != 0 {
						ch.Relative = (nv - bv) / bv
					}
					oc.Changes = append(oc.Changes, ch)
					continue
				}
				ch.Noise = combineNoise(noiseOf(baseNoise, k, p.name), noiseOf(newNoise, k, p.name), bv)
				oc.Changes = append(oc.Changes, Judge(ch, o.Tolerance, false))
			}
			oc.KS = ksDistance(bh, nh)
		}
		for _, ch := range oc.Changes {
			if ch.Regressed {
				c.Regressions++
			}
			if ch.Improved {
				c.Improvements++
			}
		}
		c.Ops = append(c.Ops, oc)
	}
	compareUnits(c, base, new, o.Tolerance)
	return c
}

// UnitComparison compares one unit (a blob, partition or queue).
type UnitComparison struct {
	Workload string           `json:"workload"`
	Kind     reports.UnitKind `json:"kind"`
	Name     string           `json:"name"`
	Changes  []Change         `json:"changes"`
}

// compareUnits compares the units both runs list with a per-second series
// (the busiest ones): mean rate, judged against its noise from the
// per-second variation, and p50/p99 latency, shown but not judged (a unit
// keeps percentiles, not the per-second histograms a noise estimate needs).
func compareUnits(c *Comparison, base, new *reports.Summary, tolerance float64) {
	type key struct {
		w    string
		k    reports.UnitKind
		name string
	}
	baseUnits := map[key]reports.UnitSummary{}
	for _, u := range base.Units {
		if u.PerSecond != nil {
			baseUnits[key{u.Workload, u.Kind, LogicalUnitName(u.Workload, u.Name)}] = u
		}
	}
	for _, n := range new.Units {
		name := LogicalUnitName(n.Workload, n.Name)
		b, ok := baseUnits[key{n.Workload, n.Kind, name}]
		if !ok || n.PerSecond == nil || n.Name == reports.OtherUnits {
			continue
		}
		uc := UnitComparison{Workload: n.Workload, Kind: n.Kind, Name: name}
		uc.Changes = append(uc.Changes, Judge(Change{Metric: "rate", Base: b.Mean, New: n.Mean,
			Noise: unitRateNoise(b.PerSecond, n.PerSecond, b.Mean)}, tolerance, true))
		if b.Latency != nil && n.Latency != nil {
			for _, p := range []struct {
				name     string
				q        float64
				base, nv float64
			}{{"p50", 50, b.Latency.P50, n.Latency.P50}, {"p99", 99, b.Latency.P99, n.Latency.P99}} {
				ch := Change{Metric: p.name, Base: p.base, New: p.nv, Noise: -1}
				if few(b.Latency.Count, p.q) || few(n.Latency.Count, p.q) {
					ch.Noise = FewSamples
					if ch.Base != 0 {
						ch.Relative = (ch.New - ch.Base) / ch.Base
					}
					uc.Changes = append(uc.Changes, ch)
					continue
				}
				// No noise estimate for a unit's latency (it keeps
				// percentiles, not per-second histograms): shown, not judged;
				// the operations' latency is judged above.
				if ch.Base != 0 {
					ch.Relative = (ch.New - ch.Base) / ch.Base
				}
				uc.Changes = append(uc.Changes, ch)
			}
		}
		for _, ch := range uc.Changes {
			if ch.Regressed {
				c.Regressions++
			}
			if ch.Improved {
				c.Improvements++
			}
		}
		c.Units = append(c.Units, uc)
	}
	sort.Slice(c.Units, func(i, j int) bool {
		a, b := c.Units[i], c.Units[j]
		if a.Workload != b.Workload {
			return a.Workload < b.Workload
		}
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.Name < b.Name
	})
}

// unitRateNoise is rateNoise for a unit's per-second amounts.
func unitRateNoise(base, new []int64, baseMean float64) float64 {
	toCounts := func(xs []int64) []reports.Counts {
		out := make([]reports.Counts, len(xs))
		for i, x := range xs {
			out[i][checks.OK] = x
		}
		return out
	}
	return rateNoise(toCounts(base), toCounts(new), baseMean)
}

// judge sets a change's relative size and flags. higherIsBetter is true for
// throughput, false for latency.
func Judge(ch Change, tolerance float64, higherIsBetter bool) Change {
	if ch.Base == 0 {
		return ch
	}
	ch.Relative = (ch.New - ch.Base) / ch.Base
	size := math.Abs(ch.Relative)
	if size <= tolerance {
		return ch
	}
	if ch.Noise >= 0 && size <= NoiseMargin*ch.Noise {
		// The noise is a 95 % band estimated from one run's seconds, itself
		// rough: a change not clearly beyond it cannot be told from chance.
		ch.Unjudged = "noise"
		return ch
	}
	worse := ch.Relative > 0
	if higherIsBetter {
		worse = !worse
	}
	ch.Regressed, ch.Improved = worse, !worse
	return ch
}

type opKey struct{ workload, op string }

func (k opKey) key() string { return k.workload + "\x00" + k.op }

func opsByKey(s *reports.Summary) map[opKey]reports.OpSummary {
	m := map[opKey]reports.OpSummary{}
	for _, w := range s.Workloads {
		for _, o := range w.Ops {
			m[opKey{w.Name, o.Op}] = o
		}
	}
	return m
}

func sortedKeys(a, b map[opKey]reports.OpSummary) []opKey {
	seen := map[opKey]bool{}
	var keys []opKey
	for _, m := range []map[opKey]reports.OpSummary{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].workload != keys[j].workload {
			return keys[i].workload < keys[j].workload
		}
		return keys[i].op < keys[j].op
	})
	return keys
}

func decodeCorrected(o reports.OpSummary) (*hdrhistogram.Histogram, error) {
	if o.Histograms == nil {
		return reports.NewHistogram(), nil
	}
	return reports.DecodeHistogram(o.Histograms.Corrected)
}

// rateNoise is the relative noise of a throughput difference: twice the
// standard error of the difference of the mean per-second rates (about a
// 95 % band), over each run's steady seconds (its first and last seconds
// with operations are partial and left out). -1 when a run has fewer than
// three steady seconds.
func rateNoise(base, new []reports.Counts, baseRate float64) float64 {
	sb, okb := stderrOfSeconds(base)
	sn, okn := stderrOfSeconds(new)
	if !okb || !okn || baseRate == 0 {
		return -1
	}
	return 2 * math.Sqrt(sb*sb+sn*sn) / baseRate
}

// stderrOfSeconds is the standard error of the mean of the per-second
// ok+conflict counts over the steady seconds.
func stderrOfSeconds(ps []reports.Counts) (float64, bool) {
	first, last := -1, -1
	for i, c := range ps {
		if c.Total() > 0 {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 || last-first-1 < 3 {
		return 0, false
	}
	var xs []float64
	for _, c := range ps[first+1 : last] {
		xs = append(xs, float64(c[checks.OK]+c[checks.Conflict]))
	}
	return stderr(xs), true
}

func stderr(xs []float64) float64 {
	n := float64(len(xs))
	var mean float64
	for _, x := range xs {
		mean += x
	}
	mean /= n
	var ss float64
	for _, x := range xs {
		ss += (x - mean) * (x - mean)
	}
	return math.Sqrt(ss/(n-1)) / math.Sqrt(n)
}

// noiseOf is a percentile's standard error from latencyNoise, -1 unknown.
func noiseOf(m map[string]map[string]float64, k opKey, name string) float64 {
	if v, ok := m[k.key()][name]; ok {
		return v
	}
	return -1
}

// combineNoise turns two standard errors (ms) into a relative noise of a
// difference against base; -1 when either is unknown.
func combineNoise(sb, sn, base float64) float64 {
	if sb < 0 || sn < 0 || base == 0 {
		return -1
	}
	return 2 * math.Sqrt(sb*sb+sn*sn) / base
}

// ksDistance is the largest gap between the two cumulative distributions
// (the Kolmogorov–Smirnov statistic), walking both histograms' buckets once.
func ksDistance(a, b *hdrhistogram.Histogram) float64 {
	ca, cb := cumulative(a), cumulative(b)
	i, j := 0, 0
	fa, fb, d := 0.0, 0.0, 0.0
	for i < len(ca) || j < len(cb) {
		v := int64(math.MaxInt64)
		if i < len(ca) {
			v = ca[i].to
		}
		if j < len(cb) && cb[j].to < v {
			v = cb[j].to
		}
		for i < len(ca) && ca[i].to <= v {
			fa = ca[i].frac
			i++
		}
		for j < len(cb) && cb[j].to <= v {
			fb = cb[j].frac
			j++
		}
		d = math.Max(d, math.Abs(fa-fb))
	}
	return d
}

type cdfPoint struct {
	to   int64
	frac float64
}

// cumulative is a histogram's cumulative distribution at the top of each
// non-empty bucket.
func cumulative(h *hdrhistogram.Histogram) []cdfPoint {
	total := float64(h.TotalCount())
	var out []cdfPoint
	var n int64
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		n += bar.Count
		out = append(out, cdfPoint{bar.To, float64(n) / total})
	}
	return out
}

// runScoped matches a resource name scoped to its run and workload:
// sc<run id>-<workload>-<rest> (a queue: sc1a2b3c4d-qhot-q0).
var runScoped = regexp.MustCompile(`^sc[0-9a-f]+-(.+)$`)

// LogicalUnitName is a unit's name without what differs from run to run:
// a queue named sc<run id>-<workload>-q0 is q0 in every run of the
// scenario (blobs and partitions are named by their keys already), so
// that two runs' units can be matched.
func LogicalUnitName(workload, name string) string {
	m := runScoped.FindStringSubmatch(name)
	if m == nil {
		return name
	}
	if rest, ok := strings.CutPrefix(m[1], workload+"-"); ok && rest != "" {
		return rest
	}
	return name
}
