package text

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/reports/compare"
)

// WriteComparison prints a comparison: per workload and op, each figure's
// base, new, change, noise and verdict.
func WriteComparison(w io.Writer, c *compare.Comparison, baseName, newName string) error {
	ew := &reports.ErrWriter{W: w}
	ew.Printf("base  %s\nnew   %s\n", baseName, newName)
	if c.BaseRuns == 0 {
		ew.Printf("a change is flagged when it exceeds both the tolerance (%s) and the noise (twice the standard error of\n", reports.Pct(c.Tolerance))
		ew.Printf("the difference, from each run's per-second variation); latency percentiles come from each run's whole\n")
		ew.Printf("HdrHistogram (corrected), and KS is the Kolmogorov-Smirnov distance between the two distributions;\n")
		ew.Printf("a percentile with fewer than %d samples beyond it in either run is shown but not judged (\"few samples\");\n", compare.MinTail)
		ew.Printf("a change beyond the tolerance but not %d times its own noise is shown as \"noisy, not judged\"; a noise of \"?\"\n", compare.NoiseMargin)
		ew.Printf("is unknown (a run with under 3 steady seconds, or no hlog/ for latency: give results directories, not\n")
		ew.Printf("summary.json files): such a figure is judged against the tolerance alone; a unit's latency is shown, not judged\n")
	}
	if c.BaseRuns > 0 {
		ew.Printf("%d base runs against %d new: each figure is the median of its runs, and a change is flagged when it\n", c.BaseRuns, c.NewRuns)
		ew.Printf("exceeds the tolerance (%s) ", reports.Pct(c.Tolerance))
		ew.Printf("and the Mann-Whitney U test gives p < %g (the noise column shows p)\n", compare.Alpha)
	}
	last := ""
	var tw *tabwriter.Writer
	flush := func() {
		if tw != nil {
			tw.Flush()
		}
	}
	for _, o := range c.Ops {
		if o.Workload != last {
			flush()
			ew.Printf("\nworkload %s\n", o.Workload)
			tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "  op\tmetric\tbase\tnew\tchange\tnoise\tverdict")
			last = o.Workload
		}
		for i, ch := range o.Changes {
			op := ""
			if i == 0 {
				op = o.Op
			}
			unit := "ms"
			if ch.Metric == "throughput" {
				unit = "/s"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s%s\t%s%s\t%s\t%s\t%s\n", op, ch.Metric, reports.Number(ch.Base), unit, reports.Number(ch.New), unit, signed(ch.Relative), noiseText(ch), VerdictText(ch))
		}
		if len(o.Changes) > 1 {
			fmt.Fprintf(tw, "  \tKS\t\t\t%s\t\t\n", strconv.FormatFloat(o.KS, 'f', 2, 64))
		}
	}
	flush()
	if len(c.Units) > 0 {
		ew.Printf("\nunits (the busiest of each run, by name; rate acknowledged per second, latency corrected)\n")
		tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  workload\tunit\tmetric\tbase\tnew\tchange\tnoise\tverdict")
		for _, u := range c.Units {
			for i, ch := range u.Changes {
				w, name := "", ""
				if i == 0 {
					w, name = u.Workload, unitLabel(u.Kind, u.Name)
				}
				unit := "ms"
				if ch.Metric == "rate" {
					unit = "/s"
				}
				fmt.Fprintf(tw, "  %s\t%s\t%s\t%s%s\t%s%s\t%s\t%s\t%s\n", w, name, ch.Metric, reports.Number(ch.Base), unit, reports.Number(ch.New), unit, signed(ch.Relative), noiseText(ch), VerdictText(ch))
			}
		}
		tw.Flush()
	}
	for _, n := range c.Notes {
		ew.Printf("note: %s\n", n)
	}
	judged, noisy, thin := c.Tally()
	tally := fmt.Sprintf("%d of %d figures judged, %d too noisy and %d too thin (few samples) to judge", judged, judged+noisy+thin, noisy, thin)
	if len(c.Incomparable) > 0 {
		ew.Printf("\nthe runs are not comparable, so no change is called a regression or an improvement:\n")
		for _, why := range c.Incomparable {
			ew.Printf("  - %s\n", why)
		}
		ew.Printf("\nresult: no verdict (runs not comparable); %d figures shown\n", judged+noisy+thin)
		return ew.Err
	}
	verdict := "no regression"
	if c.Regressions > 0 {
		verdict = Plural(int64(c.Regressions), "regression")
	}
	if c.Weak != "" {
		ew.Printf("\nweak verdict: %s\n", c.Weak)
	}
	ew.Printf("\nresult: %s, %s; %s\n", verdict, Plural(int64(c.Improvements), "improvement"), tally)
	return ew.Err
}

func signed(f float64) string {
	s := reports.Pct(f)
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s
}

func VerdictText(ch compare.Change) string {
	switch {
	case ch.Regressed:
		return "REGRESSION"
	case ch.Improved:
		return "improved"
	case ch.Unjudged == "incomparable":
		return "not judged (runs not comparable)"
	case ch.Unjudged != "":
		return "noisy, not judged"
	}
	return ""
}

// unitLabel names a unit in a table: "queue q0", "partition hot", and the
// account as just "account".
func unitLabel(k reports.UnitKind, name string) string {
	if k == reports.UnitAccount || string(k) == name {
		return string(k)
	}
	return string(k) + " " + name
}

func noiseText(ch compare.Change) string {
	switch {
	case ch.P != nil && ch.Noise != compare.FewSamples:
		return "p=" + strconv.FormatFloat(*ch.P, 'f', 3, 64)
	case ch.Noise >= 0:
		return "±" + reports.Pct(ch.Noise)
	case ch.Noise == compare.FewSamples:
		return "few samples"
	}
	return "?"
}
