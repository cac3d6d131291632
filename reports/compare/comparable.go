package compare

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/stormcheck/stormcheck/reports"
)

// Run is one saved run to compare: its summary and, when it was kept
// beside it, the scenario it ran (after its --set overrides).
type Run struct {
	Summary  *reports.Summary
	Scenario []byte
}

// Incomparable lists why two runs' figures cannot be judged against each
// other: a change between them could be the setup's, not the code's. Empty
// when they are comparable. Each reason names what differs and where.
func Incomparable(base, new Run) []string {
	b, n := base.Summary, new.Summary
	var out []string
	if b.Scenario != n.Scenario {
		out = append(out, fmt.Sprintf("different scenarios: %q (base) and %q (new)", b.Scenario, n.Scenario))
	} else if base.Scenario != nil && new.Scenario != nil {
		if d := firstDifference(base.Scenario, new.Scenario); d != "" {
			out = append(out, "the scenario files differ (the file or its --set overrides): "+d)
		}
	}
	if b.Target != n.Target {
		out = append(out, fmt.Sprintf("different targets: %s (base) and %s (new)", b.Target, n.Target))
	}
	bs, ns := reports.ClientShort(b), reports.ClientShort(n)
	switch {
	case bs != "" && ns == "":
		out = append(out, "the client was short of CPU in the base run only ("+bs+"): its figures may be the client's, not the target's")
	case ns != "" && bs == "":
		out = append(out, "the client was short of CPU in the new run only ("+ns+"): its figures may be the client's, not the target's")
	}
	// Other work on the machine in either run (not only in one): figures
	// taken beside it measure the neighbours as much as the target, and
	// two busy runs are rarely busy alike.
	// One run compared with itself has nothing to differ in.
	bb, nb := reports.MachineBusy(b), reports.MachineBusy(n)
	switch {
	case sameRun(b, n):
	case bb != "" && nb != "":
		out = append(out, "the machine was busy with other work during both runs ("+bb+" in the base run; "+nb+" in the new): their figures measure the neighbours as much as the target")
	case bb != "":
		out = append(out, "the machine was busy with other work during the base run ("+bb+"): its figures measure the neighbours as much as the target")
	case nb != "":
		out = append(out, "the machine was busy with other work during the new run ("+nb+"): its figures measure the neighbours as much as the target")
	}
	nw := map[string]reports.WorkloadSummary{}
	for _, w := range n.Workloads {
		nw[w.Name] = w
	}
	for _, bw := range b.Workloads {
		w, ok := nw[bw.Name]
		if !ok {
			continue
		}
		bl, nl := reports.ArrivalsLost(bw), reports.ArrivalsLost(w)
		switch {
		case bl != "" && nl == "":
			out = append(out, fmt.Sprintf("workload %s's open loop fell behind in the base run only (%s): its latency and rate measure the backlog", bw.Name, bl))
		case nl != "" && bl == "":
			out = append(out, fmt.Sprintf("workload %s's open loop fell behind in the new run only (%s): its latency and rate measure the backlog", bw.Name, nl))
		}
	}
	return out
}

// sameRun reports whether two summaries are of one run (a run compared
// with itself, or two copies of its results).
func sameRun(a, b *reports.Summary) bool {
	return a.RunID != "" && a.RunID == b.RunID && a.Started.Equal(b.Started)
}

// firstDifference names the first line two scenario files differ on.
func firstDifference(a, b []byte) string {
	if bytes.Equal(bytes.TrimSpace(a), bytes.TrimSpace(b)) {
		return ""
	}
	al, bl := strings.Split(strings.TrimSpace(string(a)), "\n"), strings.Split(strings.TrimSpace(string(b)), "\n")
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = strings.TrimSpace(al[i])
		}
		if i < len(bl) {
			y = strings.TrimSpace(bl[i])
		}
		if x != y {
			return fmt.Sprintf("line %d is %q in the base run, %q in the new", i+1, x, y)
		}
	}
	return ""
}

// withhold keeps a comparison of incomparable runs from a verdict: every
// change stays shown, none is flagged.
func withhold(c *Comparison, why []string) {
	c.Incomparable = why
	c.Regressions, c.Improvements = 0, 0
	unflag := func(chs []Change) {
		for i := range chs {
			if chs[i].Regressed || chs[i].Improved {
				chs[i].Regressed, chs[i].Improved, chs[i].Unjudged = false, false, "incomparable"
			}
		}
	}
	for i := range c.Ops {
		unflag(c.Ops[i].Changes)
	}
	for i := range c.Units {
		unflag(c.Units[i].Changes)
	}
}

// Tally counts a comparison's figures: judged (a verdict, or within the
// tolerance), too noisy, and too thin (too few samples) to judge. A unit's
// latency, shown and never judged, is not counted.
func (c *Comparison) Tally() (judged, noisy, thin int) {
	count := func(ch Change) {
		switch {
		case ch.Noise == FewSamples:
			thin++
		case ch.Unjudged != "":
			noisy++
		default:
			judged++
		}
	}
	for _, o := range c.Ops {
		for _, ch := range o.Changes {
			count(ch)
		}
	}
	for _, u := range c.Units {
		for _, ch := range u.Changes {
			if ch.Metric == "rate" {
				count(ch)
			}
		}
	}
	return judged, noisy, thin
}
