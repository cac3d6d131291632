package text

import (
	"strings"

	"github.com/stormcheck/stormcheck/reports"
)

// writeThresholds prints each criterion with its verdict and the value
// measured.
func writeThresholds(w *reports.ErrWriter, rs []reports.ThresholdResult) {
	if len(rs) == 0 {
		return
	}
	pass := 0
	width := 0
	for _, r := range rs {
		if r.Pass {
			pass++
		}
		width = max(width, len(r.Threshold))
	}
	w.Printf("\nthresholds: %d pass, %d fail\n", pass, len(rs)-pass)
	for _, r := range rs {
		verdict := "PASS"
		if !r.Pass {
			verdict = "FAIL"
		}
		w.Printf("  %-4s  %-*s  %s\n", verdict, width, r.Threshold, r.Measured())
	}
}

// writeCapacity says which targets the units were measured against.
func writeCapacity(w *reports.ErrWriter, c *reports.CapacityInfo) {
	if c == nil {
		return
	}
	parts := reports.CapacityParts(c)
	w.Printf("capacity  profile %s", c.Profile)
	if c.Scale != 1 {
		w.Printf(" scaled by %s", reports.Number(c.Scale))
	}
	if len(c.Overridden) > 0 {
		w.Printf(", overridden: %s", strings.Join(c.Overridden, ", "))
	}
	w.Printf(" (%s)\n", strings.Join(parts, ", "))
	if c.Emulation != "" {
		w.Printf("emulation %s\n", c.Emulation)
	}
}
