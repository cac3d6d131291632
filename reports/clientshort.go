package reports

import "fmt"

// ClientShort says, from a run's own figures, whether the client (not the
// target) may be what limited it: the harness used most of the machine's
// CPU, or an open loop's pacer placed arrivals late with room in its
// backlog. "" when neither.
func ClientShort(s *Summary) string {
	if s.ClientCPU >= cpuBusy {
		return fmt.Sprintf("the harness used %s of the machine's CPU", Pct(s.ClientCPU))
	}
	for _, w := range s.Workloads {
		if w.Arrivals > 0 && float64(w.PacerLate) > lateShare*float64(w.Arrivals) {
			return fmt.Sprintf("workload %s's pacer placed %d of %d arrivals late with room in its backlog", w.Name, w.PacerLate, w.Arrivals)
		}
	}
	return ""
}

// ArrivalsLost says how many of an open loop's arrivals were never served
// (dropped from a full backlog, or still waiting when the load ended); ""
// for a closed loop or an open one that served every arrival.
func ArrivalsLost(w WorkloadSummary) string {
	if lost := w.Dropped + w.Unserved; w.Arrivals > 0 && lost > 0 {
		return fmt.Sprintf("%d of %d arrivals not served (%d dropped, %d never served)", lost, w.Arrivals, w.Dropped, w.Unserved)
	}
	return ""
}

// MachineBusy says whether other work competed with the run for the
// machine: processes other than the harness and its target used at least
// otherBusy of its CPU while the load ran. "" when not, or not measured.
func MachineBusy(s *Summary) string {
	if s.OtherCPU == nil || *s.OtherCPU < otherBusy {
		return ""
	}
	return fmt.Sprintf("other processes used %s of the machine's CPU during the load", Pct(*s.OtherCPU))
}

// otherBusy is the share of the machine's CPU other work may take before
// a run's figures are taken to measure it as much as the target.
const otherBusy = 0.25
