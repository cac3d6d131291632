package text

import (
	"strings"

	"github.com/stormcheck/stormcheck/reports"
)

func writeLimitedBy(w *reports.ErrWriter, ws reports.WorkloadSummary, units []reports.UnitSummary, clientCPU float64) {
	if ls := reports.LimitedBy(ws, units, clientCPU); len(ls) > 0 {
		w.Printf("  limited by %s\n", strings.Join(ls, "; "))
	}
}
