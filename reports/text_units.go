package reports

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
)

// maxUnitRows is how many of a workload's units the text report lists;
// the rest are summed on one line.
const maxUnitRows = 8

// writeUnits prints a workload's units against their targets: the busiest
// first, then how the load spread over them.
func writeUnits(w *errWriter, us []UnitSummary) {
	if len(us) == 0 {
		return
	}
	kind, measure := us[0].Kind, us[0].Measure
	t := TargetFor(kind)
	w.printf("  per %s: %s/s acknowledged, mean over the active period and busiest second; latency (ms, corrected) of all its attempts", kind, measure)
	if target := us[0].Target; target > 0 {
		source := shortSource(t.Source)
		if target != t.PerSecond {
			source = "the scenario's capacity"
		}
		w.printf("; target %s %s/s per %s (%s)", thousands(int64(target)), measure, kind, source)
	}
	w.printf("\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	width := len(string(kind))
	for i, u := range us {
		if i < maxUnitRows {
			width = max(width, len(u.Name))
		}
	}
	left := func(s string) string { return s + strings.Repeat(" ", width-len(s)) }
	cells := func(c ...string) { fmt.Fprint(tw, "  "+strings.Join(c, "\t")+"\t\n") }
	withLat := false
	for i, u := range us {
		withLat = withLat || (i < maxUnitRows && u.Latency != nil)
	}
	throttledAny := false
	for i, u := range us {
		throttledAny = throttledAny || (i < maxUnitRows && u.Throttled > 0)
	}
	head := []string{left(string(kind)), measure, "mean/s", "peak/s", "at s", "peak/target", "throttled"}
	if throttledAny {
		head = append(head, "from s")
	}
	if withLat {
		head = append(head, "p50", "p99")
	}
	cells(head...)
	var total, rest int64
	for _, u := range us {
		total += u.Amount
	}
	for i, u := range us {
		if i >= maxUnitRows {
			rest += u.Amount
			continue
		}
		util := "-"
		if u.Target > 0 {
			util = strconv.FormatFloat(100*u.Utilisation, 'f', 1, 64) + "%"
		}
		row := []string{left(u.Name), itoa(u.Amount), strconv.FormatFloat(u.Mean, 'f', 1, 64), itoa(u.Peak), itoa(u.PeakSecond), util, itoa(u.Throttled)}
		if throttledAny {
			from := "-"
			if u.Throttled > 0 {
				from = strconv.FormatFloat(u.FirstThrottled, 'f', 1, 64)
			}
			row = append(row, from)
		}
		if withLat {
			p50, p99 := "-", "-"
			if u.Latency != nil {
				p50, p99 = ms(u.Latency.P50), ms(u.Latency.P99)
			}
			row = append(row, p50, p99)
		}
		cells(row...)
	}
	tw.Flush()
	if n := len(us) - maxUnitRows; n > 0 {
		w.printf("    ... %d more %ss with %s %s (%s of the total)\n", n, kind, thousands(rest), measure, percent(rest, total))
	}
	if len(us) > 1 && total > 0 {
		w.printf("  spread: %d %ss; the busiest took %s of the %s overall, and the busiest of each second %s of that second (mean)\n",
			len(us), kind, percent(us[0].Amount, total), measure, strconv.FormatFloat(100*us[0].BusiestShare, 'f', 1, 64)+"%")
	}
}

// writeDensity prints, for the table reads of a workload, the entities
// scanned against those returned (the checklist's query density).
func writeDensity(w *errWriter, ops []OpSummary) {
	var rows []OpSummary
	for _, o := range ops {
		if o.Scanned > 0 {
			rows = append(rows, o)
		}
	}
	if len(rows) == 0 {
		return
	}
	w.printf("  query density: entities scanned vs returned by acknowledged reads (each scanned entity counts toward the targets)\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	width := len("op")
	for _, o := range rows {
		width = max(width, len(o.Op))
	}
	left := func(s string) string { return s + strings.Repeat(" ", width-len(s)) }
	cells := func(c ...string) { fmt.Fprint(tw, "  "+strings.Join(c, "\t")+"\t\n") }
	cells(left("op"), "scanned", "returned", "returned/scanned", "scanned per read")
	for _, o := range rows {
		reads := o.Outcomes["ok"]
		per := "-"
		if reads > 0 {
			per = strconv.FormatFloat(float64(o.Scanned)/float64(reads), 'f', 1, 64)
		}
		cells(left(o.Op), itoa(o.Scanned), itoa(o.Returned), percent(o.Returned, o.Scanned), per)
	}
	tw.Flush()
}

func percent(part, whole int64) string {
	if whole == 0 {
		return "-"
	}
	return strconv.FormatFloat(100*float64(part)/float64(whole), 'f', 1, 64) + "%"
}

// thousands writes n with comma separators: 20,000.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// shortSource is a target's source up to its first comma: "checklist".
func shortSource(s string) string {
	if i := strings.IndexByte(s, ','); i > 0 {
		return s[:i]
	}
	return s
}

// writeAccount prints the whole account's figures against its target.
func writeAccount(w *errWriter, us []UnitSummary) {
	for _, u := range us {
		if u.Kind != UnitAccount {
			continue
		}
		w.printf("\naccount: %s %s acknowledged, mean %s/s, busiest second %s/s at %ds", thousands(u.Amount), u.Measure,
			strconv.FormatFloat(u.Mean, 'f', 1, 64), thousands(u.Peak), u.PeakSecond)
		if u.Target > 0 {
			w.printf(", target %s/s (%s)", thousands(int64(u.Target)), percent(u.Peak, int64(u.Target)))
		}
		if u.Throttled > 0 {
			w.printf(", %d throttled", u.Throttled)
		}
		w.printf("\n")
	}
}
