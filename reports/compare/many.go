package compare

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// Alpha is the p-value under which the rank test calls a change.
const Alpha = 0.05

// Many compares several runs per side. With one run a side it is Saved,
// and Weak says the verdict rests on one pair of runs. With more, each
// op's throughput and percentiles are judged across runs: the medians'
// relative change must exceed the tolerance and the Mann-Whitney U test
// give p < Alpha; a change beyond the tolerance with a larger p is "too
// noisy", and one the runs are too few to ever make significant is "too
// thin" (FewSamples). Units are compared only one run against one. Runs
// that are not comparable (any run against the first base run) get no
// verdict.
func Many(bases, news []Run, o Options) *Comparison {
	c := Saved(bases[0], news[0], o)
	if len(bases) == 1 && len(news) == 1 {
		c.Weak = "one run a side: each change is judged against the noise of the two runs' own seconds, not against the spread between runs; give several runs a side (BASE... -- NEW...) for a rank test"
		return c
	}
	c.BaseRuns, c.NewRuns = len(bases), len(news)
	c.Units = nil
	c.Notes = append(c.Notes, "units are compared one run against one; with several runs a side only operations are compared")
	var why []string
	for _, r := range append(append([]Run(nil), bases[1:]...), news...) {
		for _, w := range Incomparable(bases[0], r) {
			if !slices.Contains(why, w) {
				why = append(why, w)
			}
		}
	}
	baseVals, newVals := figures(bases), figures(news)
	c.Regressions, c.Improvements = 0, 0
	thin := MinP(len(bases), len(news)) >= Alpha
	for i := range c.Ops {
		oc := &c.Ops[i]
		for j := range oc.Changes {
			ch := &oc.Changes[j]
			k := oc.Workload + "\x00" + oc.Op + "\x00" + ch.Metric
			bv, nv := baseVals[k], newVals[k]
			*ch = Change{Metric: ch.Metric, Noise: -1}
			if len(bv) == 0 || len(nv) == 0 {
				ch.Noise = FewSamples
				continue
			}
			// A percentile with under MinTail samples beyond it in any run
			// is shown, never judged (as with one run a side).
			fewTail := len(baseVals[k+"\x00few"])+len(newVals[k+"\x00few"]) > 0
			ch.Base, ch.New = median(bv), median(nv)
			if ch.Base != 0 {
				ch.Relative = (ch.New - ch.Base) / ch.Base
			}
			p := MannWhitney(bv, nv)
			ch.P = &p
			if math.Abs(ch.Relative) <= o.Tolerance || ch.Base == 0 {
				continue
			}
			switch {
			case thin || fewTail:
				ch.Noise = FewSamples
			case p >= Alpha:
				ch.Unjudged = "noise"
			default:
				worse := ch.Relative > 0
				if ch.Metric == "throughput" {
					worse = !worse
				}
				ch.Regressed, ch.Improved = worse, !worse
				if worse {
					c.Regressions++
				} else {
					c.Improvements++
				}
			}
		}
	}
	if thin {
		c.Notes = append(c.Notes, fmt.Sprintf("%d and %d runs are too few for the rank test to call any change at p < %g (4 a side are needed)", len(bases), len(news), Alpha))
	}
	if len(why) > 0 {
		withhold(c, why)
	}
	return c
}

// figures reads every run's throughput and compared percentiles, by
// workload, op and metric.
func figures(runs []Run) map[string][]float64 {
	out := map[string][]float64{}
	for _, r := range runs {
		for k, o := range opsByKey(r.Summary) {
			prefix := k.workload + "\x00" + k.op + "\x00"
			out[prefix+"throughput"] = append(out[prefix+"throughput"], o.Rate)
			h, err := decodeCorrected(o)
			if err != nil || h.TotalCount() == 0 {
				continue
			}
			for _, p := range comparedPercentiles {
				if tooFew(h, p.q) {
					out[prefix+p.name+"\x00few"] = append(out[prefix+p.name+"\x00few"], 1)
				}
				out[prefix+p.name] = append(out[prefix+p.name], float64(h.ValueAtQuantile(p.q))/1000)
			}
		}
	}
	return out
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
