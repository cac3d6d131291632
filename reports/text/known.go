package text

import (
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
)

// writeKnown lists a check's known divergences of the target (shapes the
// target is known to produce that do not fail the check), each with its
// first example.
func writeKnown(w *reports.ErrWriter, ks []checks.KnownDivergence) {
	for _, k := range ks {
		w.Printf(noWrap+"    ~ %s (does not fail the check)\n", k.Line())
		if len(k.Examples) == 0 {
			continue
		}
		v := k.Examples[0]
		w.Printf(noWrap+"      e.g. %s: %s\n", v.Key, v.Message)
		for i := range v.Ops {
			w.Printf(noWrap+"        %s\n", v.Ops[i].String())
		}
	}
}
