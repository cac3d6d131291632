package reports

import (
	"fmt"
	"math"
	"sort"
	"strconv"

	"github.com/stormcheck/stormcheck/checks"
)

// LimitedBy says what limited a workload's throughput, from its figures:
// throttling (the service refused work: 503 ServerBusy or 500 Operation
// Timeout, first seen at some second); the client (the harness using most
// of the machine's CPU, clientCPU, or an open loop's pacer falling behind,
// or too few actors for the rate at the target's typical latency); or the
// target (an open loop whose arrivals were served late, dropped or never
// served although its actors suffice at the target's typical latency: the
// target's latency grew while arrivals kept their schedule; a closed
// loop's actors all waiting on the service, so its latency bounds the
// rate). Open-loop shares are of arrivals, not of operations (an
// iteration may make several calls). Empty when nothing stands out.
func LimitedBy(w WorkloadSummary, units []UnitSummary, clientCPU float64) []string {
	var out []string
	var total, throttled int64
	for _, o := range w.Ops {
		total += o.Count
		throttled += o.Outcomes[checks.Throttled.String()]
	}
	// Answers a fault injected are not the target's throttling: each is
	// named with its fault, the rest are the target's own.
	faults := make([]string, 0, len(w.Injected))
	for f := range w.Injected {
		faults = append(faults, f)
	}
	sort.Strings(faults)
	for _, f := range faults {
		if n := w.Injected[f]; n > 0 && total > 0 {
			out = append(out, fmt.Sprintf("throttling injected by fault %s: %s of the attempts were answered 503/500 on purpose (%d)", f, Pct(float64(n)/float64(total)), n))
		}
	}
	injected := InjectedThrottled(w)
	throttled -= injected
	if throttled > 0 && total > 0 {
		// The units' Throttled and FirstThrottled are the target's own:
		// the first unit it throttled, whatever faults injected beside.
		first, where := -1.0, ""
		for _, u := range units {
			if u.Workload == w.Name && u.Throttled > 0 && (first < 0 || u.FirstThrottled < first) {
				first, where = u.FirstThrottled, string(u.Kind)+" "+u.Name
			}
		}
		what := "throttling"
		if injected > 0 {
			what = "the target's own throttling"
		}
		s := fmt.Sprintf("%s: %s of the attempts were answered 503/500 (%d)", what, Pct(float64(throttled)/float64(total)), throttled)
		if where != "" {
			s += fmt.Sprintf(", first at %ss on %s", strconv.FormatFloat(first, 'f', 1, 64), where)
		}
		out = append(out, s)
	}
	busy := clientCPU >= cpuBusy
	if busy {
		out = append(out, fmt.Sprintf("the client: the harness used %s of the machine's CPU during the load (figures may understate the target)", Pct(clientCPU)))
	}
	if w.Executor == "open" && throttled == 0 {
		out = append(out, openLoopLimits(w, busy)...)
	}
	if w.Executor == "closed" && w.Actors > 0 && len(out) == 0 {
		out = append(out, fmt.Sprintf("the target's latency: %d closed-loop actors each wait for every answer, so throughput is actors / latency", w.Actors))
	}
	return out
}

// openLoopLimits tells, for an open loop that fell behind its schedule,
// what held it back: the client's pacer (short of CPU: it placed arrivals
// late with room in the backlog), too few actors (by Little's law at the
// target's median service time), or the target (its latency grew while
// arrivals kept their schedule). The pacer's line comes with one of the
// other two: a machine short of CPU does not hide a stalled target. Empty
// when the loop kept up.
func openLoopLimits(w WorkloadSummary, busy bool) []string {
	if w.Arrivals <= 0 {
		return nil
	}
	behind := w.Late + w.Dropped + w.Unserved
	if float64(behind) <= lateShare*float64(w.Arrivals) {
		return nil
	}
	var out []string
	what := fmt.Sprintf("%d of %d arrivals served late, %d dropped (backlog bound %d), %d never served", w.Late, w.Arrivals, w.Dropped, w.Backlog, w.Unserved)
	if float64(w.PacerLate) > lateShare*float64(w.Arrivals) {
		out = append(out, fmt.Sprintf("the client: its pacer placed %d of %d arrivals more than 5 ms late with room in the backlog (short of CPU)", w.PacerLate, w.Arrivals))
	}
	served := w.Arrivals - w.Dropped - w.Unserved
	var perIter float64 // median service time of one iteration, in ms
	var p50, p99 float64
	for _, o := range w.Ops {
		if served > 0 {
			perIter += float64(o.Count) / float64(served) * o.Latency.P50
		}
		p50, p99 = max(p50, o.Latency.P50), max(p99, o.Latency.P99)
	}
	rate := 0.0
	if w.Active > 0 {
		rate = float64(w.Arrivals) / w.Active.Seconds()
	}
	switch needed := rate * perIter / 1000; {
	case served > 0 && needed > float64(w.Actors):
		out = append(out, fmt.Sprintf("the client: %d actors are too few for %.0f arrivals/s at the target's median service time (%.1f ms per iteration needs about %.0f actors; raise actors); %s",
			w.Actors, rate, perIter, math.Ceil(needed), what))
	case busy:
		// The CPU line already names the client; the figures may be its.
	default:
		out = append(out, fmt.Sprintf("the target: its latency grew while arrivals kept their schedule (service time p99 %.1f ms against p50 %.1f ms; %d actors suffice at the median); %s",
			p99, p50, w.Actors, what))
	}
	return out
}

// ArrivalsLine is an open loop's schedule in one line: every arrival,
// served late, dropped from a full backlog, never served. Empty for a
// closed loop that started nothing late.
func ArrivalsLine(ws WorkloadSummary) string {
	if ws.Executor != "open" && ws.Late == 0 && ws.Dropped == 0 {
		return ""
	}
	s := fmt.Sprintf("late starts %d, dropped starts %d", ws.Late, ws.Dropped)
	if ws.Arrivals > 0 {
		s = fmt.Sprintf("arrivals %d: %s (backlog bound %d), never served %d; deepest backlog %d",
			ws.Arrivals, s, ws.Backlog, ws.Unserved, ws.PeakBacklog)
		if ws.PacerLate > 0 {
			s += fmt.Sprintf("; placed late by the pacer %d", ws.PacerLate)
		}
	}
	return s
}

// cpuBusy is the harness CPU share above which the client may be the
// limit; lateShare the share of late starts that says the target fell
// behind an open loop.
const (
	cpuBusy   = 0.85
	lateShare = 0.05
)
