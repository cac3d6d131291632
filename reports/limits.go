package reports

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
)

// LimitedBy says what limited a workload's throughput, from its figures:
// throttling (the service refused work: 503 ServerBusy or 500 Operation
// Timeout, first seen at some second); the client (an open loop's arrivals
// dropped because every actor was busy, or the harness using most of the
// machine's CPU, clientCPU); or the target's capacity (an open loop whose
// operations started late because answers came back slower than arrivals,
// with the client not saturated; a closed loop's actors all waiting on the
// service, so its latency bounds the rate). Empty when nothing stands out.
func LimitedBy(w WorkloadSummary, units []UnitSummary, clientCPU float64) []string {
	var out []string
	var total, throttled int64
	for _, o := range w.Ops {
		total += o.Count
		throttled += o.Outcomes[checks.Throttled.String()]
	}
	if throttled > 0 && total > 0 {
		first, where := -1.0, ""
		for _, u := range units {
			if u.Workload == w.Name && u.Throttled > 0 && (first < 0 || u.FirstThrottled < first) {
				first, where = u.FirstThrottled, string(u.Kind)+" "+u.Name
			}
		}
		s := fmt.Sprintf("throttling: %s of the attempts were answered 503/500 (%d)", pct(float64(throttled)/float64(total)), throttled)
		if where != "" {
			s += fmt.Sprintf(", first at %ss on %s", strconv.FormatFloat(first, 'f', 1, 64), where)
		}
		out = append(out, s)
	}
	if w.Dropped > 0 {
		out = append(out, fmt.Sprintf("the client: %d arrivals dropped because all %d actors were busy (raise actors, or the target is too slow for the rate)", w.Dropped, w.Actors))
	}
	busy := clientCPU >= cpuBusy
	if busy {
		out = append(out, fmt.Sprintf("the client: the harness used %s of the machine's CPU during the load (figures may understate the target)", pct(clientCPU)))
	}
	if w.Executor == "open" && throttled == 0 && !busy && total > 0 && float64(w.Late) > lateShare*float64(total) {
		out = append(out, fmt.Sprintf("the target's capacity: %d of %d operations started late (answers slower than the arrival rate) without throttling or a busy client", w.Late, total))
	}
	if w.Executor == "closed" && w.Actors > 0 && len(out) == 0 {
		out = append(out, fmt.Sprintf("the target's latency: %d closed-loop actors each wait for every answer, so throughput is actors / latency", w.Actors))
	}
	return out
}

// cpuBusy is the harness CPU share above which the client may be the
// limit; lateShare the share of late starts that says the target fell
// behind an open loop.
const (
	cpuBusy   = 0.85
	lateShare = 0.05
)

func writeLimitedBy(w *errWriter, ws WorkloadSummary, units []UnitSummary, clientCPU float64) {
	if ls := LimitedBy(ws, units, clientCPU); len(ls) > 0 {
		w.printf("  limited by %s\n", strings.Join(ls, "; "))
	}
}
