package reports

import "strings"

func writeLimitedBy(w *ErrWriter, ws WorkloadSummary, units []UnitSummary, clientCPU float64) {
	if ls := LimitedBy(ws, units, clientCPU); len(ls) > 0 {
		w.printf("  limited by %s\n", strings.Join(ls, "; "))
	}
}
