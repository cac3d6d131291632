package reports

import (
	"strings"
)

// writeThresholds prints each criterion with its verdict and the value
// measured.
func writeThresholds(w *ErrWriter, rs []ThresholdResult) {
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
	w.printf("\nthresholds: %d pass, %d fail\n", pass, len(rs)-pass)
	for _, r := range rs {
		verdict := "PASS"
		if !r.Pass {
			verdict = "FAIL"
		}
		w.printf("  %-4s  %-*s  %s\n", verdict, width, r.Threshold, r.Measured())
	}
}

// writeCapacity says which targets the units were measured against.
func writeCapacity(w *ErrWriter, c *CapacityInfo) {
	if c == nil {
		return
	}
	var parts []string
	for _, k := range []string{"blob", "partition", "queue", "account"} {
		if v, ok := c.Targets[k]; ok {
			parts = append(parts, k+" "+Number(v)+"/s")
		}
	}
	w.printf("capacity  profile %s", c.Profile)
	if c.Scale != 1 {
		w.printf(" scaled by %s", Number(c.Scale))
	}
	if len(c.Overridden) > 0 {
		w.printf(", overridden: %s", strings.Join(c.Overridden, ", "))
	}
	w.printf(" (%s)\n", strings.Join(parts, ", "))
	if c.Emulation != "" {
		w.printf("emulation %s\n", c.Emulation)
	}
}
