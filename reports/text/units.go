package text

import (
	"strconv"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
)

// maxUnitRows is how many of a workload's units the text report lists;
// the rest are summed on one line.
const MaxUnitRows = 8

// writeUnits prints a workload's units against their targets: the busiest
// first, then how the load spread over them.
func writeUnits(w *reports.ErrWriter, us []reports.UnitSummary) {
	if len(us) == 0 {
		return
	}
	u := reports.BuildUnitTable(us, MaxUnitRows)
	writeWrapped(w, "  ", "    ", u.Heading)
	t := textTable{indent: "    ", head: textHeads(u.Head), rows: u.Rows}
	t.write(w)
	if u.More != "" {
		writeWrapped(w, "    ", "      ", u.More)
	}
	if u.Spread != "" {
		writeWrapped(w, "  ", "    ", u.Spread)
	}
}

// textHeads breaks long column names over two header lines, so that the
// text tables fit in 80 columns: "peak/target" becomes "peak/" over
// "target".
func textHeads(head []string) []string {
	out := make([]string, len(head))
	for i, h := range head {
		switch {
		case reports.Width(h) <= 8:
			out[i] = h
		case strings.Contains(h, " "):
			// the space that makes the longer line shortest
			best := -1
			for j, c := range h {
				if c == ' ' && (best < 0 || max(j, len(h)-j-1) < max(best, len(h)-best-1)) {
					best = j
				}
			}
			out[i] = h[:best] + "\n" + h[best+1:]
		case strings.Contains(h, "/"):
			j := strings.Index(h, "/")
			out[i] = h[:j+1] + "\n" + h[j+1:]
		default:
			out[i] = h
		}
	}
	return out
}

// writeDensity prints, for the table reads of a workload, the entities
// scanned against those returned (the checklist's query density).
func writeDensity(w *reports.ErrWriter, ops []reports.OpSummary) {
	t := textTable{indent: "  ", head: []string{"op", "scanned", "returned", "returned/\nscanned", "scanned\nper read"}}
	for _, o := range ops {
		if o.Scanned == 0 {
			continue
		}
		reads := o.Outcomes["ok"]
		per := "-"
		if reads > 0 {
			per = strconv.FormatFloat(float64(o.Scanned)/float64(reads), 'f', 1, 64)
		}
		t.add(o.Op, reports.Itoa(o.Scanned), reports.Itoa(o.Returned), reports.Percent(o.Returned, o.Scanned), per)
	}
	if len(t.rows) == 0 {
		return
	}
	writeWrapped(w, "  ", "    ", "query density: entities scanned vs returned by acknowledged reads (each scanned entity counts toward the targets)")
	t.write(w)
}

// writeAccount prints the whole account's figures against its targets:
// operations, the target's throttled answers apart from those faults
// injected, and ingress and egress (request and response bodies).
func WriteAccount(w *reports.ErrWriter, us []reports.UnitSummary, c *reports.CapacityInfo) {
	for _, u := range us {
		if u.Kind != reports.UnitAccount {
			continue
		}
		w.Printf("\naccount: %s %s served, mean %s/s, busiest second %s/s at %ds", reports.Thousands(u.Amount), u.Measure,
			strconv.FormatFloat(u.Mean, 'f', 1, 64), reports.Thousands(u.Peak), u.PeakSecond)
		if u.Target > 0 {
			w.Printf(", target %s/s (%s)", reports.Thousands(int64(u.Target)), reports.Percent(u.Peak, int64(u.Target)))
		}
		switch {
		case u.InjectedThrottled > 0:
			// Faults' answers are not the account's throttling.
			w.Printf(", %d throttled by the target, %d answered 503/500 on purpose by faults", u.Throttled, u.InjectedThrottled)
		case u.Throttled > 0:
			w.Printf(", %d throttled", u.Throttled)
		}
		w.Printf("\n")
		if u.PeakSent > 0 || u.PeakReceived > 0 {
			in, out := float64(reports.AccountIngress), float64(reports.AccountEgress)
			if c != nil && c.Targets["ingress_gbps"] > 0 {
				in, out = c.Targets["ingress_gbps"]*1e9/8, c.Targets["egress_gbps"]*1e9/8
			}
			w.Printf("         ingress busiest second %s (%s of %s Gbps), egress %s (%s of %s Gbps)\n",
				ByteRate(u.PeakSent), reports.Percent(u.PeakSent, int64(in)), reports.Number(in*8/1e9),
				ByteRate(u.PeakReceived), reports.Percent(u.PeakReceived, int64(out)), reports.Number(out*8/1e9))
		}
	}
}

// byteRate writes bytes per second in the largest unit that keeps a
// whole number in front: 512 B/s, 3.4 KiB/s, 12.0 MiB/s.
func ByteRate(b int64) string {
	switch {
	case b >= 1<<20:
		return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) + " MiB/s"
	case b >= 1<<10:
		return strconv.FormatFloat(float64(b)/(1<<10), 'f', 1, 64) + " KiB/s"
	}
	return strconv.FormatInt(b, 10) + " B/s"
}

// harnessLine is the harness's ops on one line: count per op, with the
// outcomes other than ok when there are any.
func HarnessLine(ops []reports.OpSummary) string {
	parts := make([]string, 0, len(ops))
	for _, o := range ops {
		part := o.Op + " " + reports.Itoa(o.Count)
		var bad []string
		for _, oc := range checks.Outcomes[1:] {
			if n := o.Outcomes[oc.String()]; n > 0 {
				bad = append(bad, reports.Itoa(n)+" "+oc.String())
			}
		}
		if len(bad) > 0 {
			part += " (" + strings.Join(bad, ", ") + ")"
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ", ")
}
