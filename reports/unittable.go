package reports

import (
	"fmt"
	"strconv"
)

// unitTable is what the text and HTML reports show of a workload's units
// of one kind: a heading, the column names, a row per listed unit, the
// rest summed on one line, and how the load spread.
type unitTable struct {
	Heading string
	Head    []string
	Rows    [][]string
	More    string // "" when every unit is listed
	Spread  string // "" for a single unit
}

// buildUnitTable lays out us (one kind, busiest first), listing at most
// limit units. The throttled column (and "from s", its first second) is
// the target's own throttling; the answers faults injected on purpose have
// a column of their own after it. Columns for the first throttled second,
// injected answers and latency appear only when a listed unit has them.
func BuildUnitTable(us []UnitSummary, limit int) unitTable {
	kind, measure := us[0].Kind, us[0].Measure
	served := "acknowledged"
	if kind == UnitBlob {
		served = "served (lost races' 412/409 included)"
	}
	t := unitTable{Heading: fmt.Sprintf("per %s: %s/s %s, mean over the active period and busiest second", kind, measure, served)}
	queue := kind == UnitQueue
	if queue {
		t.Heading = fmt.Sprintf("per %s: message ops/s acknowledged (each put, each message got, each delete and update counts one, as the target counts them), mean over the active period and busiest second; messages put and consumed (deleted)", kind)
	}
	throttled, injected, latency, bytes := false, false, false, false
	for i, u := range us {
		if i < limit {
			throttled = throttled || u.Throttled > 0
			injected = injected || u.InjectedThrottled > 0
			latency = latency || u.Latency != nil
			// Bandwidth columns only when some unit used a visible share
			// of its bandwidth target (tiny bodies would show 0.0 %).
			bytes = bytes || (u.BandwidthTarget > 0 && float64(u.PeakBytes) >= 0.001*u.BandwidthTarget)
		}
	}
	if injected {
		t.Heading += "; throttled: the target's own 503/500 answers; injected: the 503/500 answers faults gave on purpose, not the target's"
	}
	if latency {
		t.Heading += "; latency (ms, corrected) of all its attempts"
	}
	if target := us[0].Target; target > 0 {
		src := TargetFor(kind)
		source := shortSource(src.Source)
		if target != src.PerSecond {
			source = "the scenario's capacity"
		}
		t.Heading += fmt.Sprintf("; target %s %s/s per %s (%s)", Thousands(int64(target)), measure, kind, source)
	}
	t.Head = []string{string(kind), measure, "mean/s", "peak/s", "at s", "peak/target", "throttled"}
	if queue {
		t.Head = append(t.Head[:2], append([]string{"put", "consumed"}, t.Head[2:]...)...)
	}
	if throttled {
		t.Head = append(t.Head, "from s")
	}
	if injected {
		t.Head = append(t.Head, "injected")
	}
	if latency {
		t.Head = append(t.Head, "p50", "p99")
	}
	if bytes {
		t.Head = append(t.Head, "peak MiB/s", "of "+mib(us[0].BandwidthTarget)+" MiB/s")
		t.Heading += "; bandwidth: request and response bodies"
	}
	var total, rest int64
	for _, u := range us {
		total += u.Amount
	}
	for i, u := range us {
		if i >= limit {
			rest += u.Amount
			continue
		}
		util := "-"
		if u.Target > 0 {
			util = strconv.FormatFloat(100*u.Utilisation, 'f', 1, 64) + "%"
		}
		row := []string{u.Name, Itoa(u.Amount), strconv.FormatFloat(u.Mean, 'f', 1, 64), Itoa(u.Peak), Itoa(u.PeakSecond), util, Itoa(u.Throttled)}
		if queue {
			row = append(row[:2], append([]string{Itoa(u.Put), Itoa(u.Consumed)}, row[2:]...)...)
		}
		if throttled {
			from := "-"
			if u.Throttled > 0 {
				from = strconv.FormatFloat(u.FirstThrottled, 'f', 1, 64)
			}
			row = append(row, from)
		}
		if injected {
			row = append(row, Itoa(u.InjectedThrottled))
		}
		if latency {
			p50, p99 := "-", "-"
			if u.Latency != nil {
				p50, p99 = Ms(u.Latency.P50), Ms(u.Latency.P99)
			}
			row = append(row, p50, p99)
		}
		if bytes {
			row = append(row, mib(float64(u.PeakBytes)), Percent(u.PeakBytes, int64(u.BandwidthTarget)))
		}
		t.Rows = append(t.Rows, row)
	}
	if n := len(us) - limit; n > 0 {
		t.More = fmt.Sprintf("... %d more %ss with %s %s (%s of the total)", n, kind, Thousands(rest), measure, Percent(rest, total))
	}
	if len(us) > 1 && total > 0 {
		t.Spread = fmt.Sprintf("spread: %d %ss; the busiest took %s of the %s overall, and the busiest of each second %s of that second (mean)",
			len(us), kind, Percent(us[0].Amount, total), measure, strconv.FormatFloat(100*us[0].BusiestShare, 'f', 1, 64)+"%")
	}
	return t
}

// mib writes bytes as MiB with one decimal.
func mib(b float64) string { return strconv.FormatFloat(b/(1<<20), 'f', 1, 64) }
