package reports

import (
	"fmt"
	"strings"
	"time"
)

// FormatProgressLine renders one plain progress line for output that is not
// a terminal (logs, CI), e.g.
//
//	[  5s] counter: 190 increments 38/s, 1234 calls 246/s, conflict 1000 err 0 | create: 16 creations 3/s, 80 calls 16/s, conflict 64 err 0
//
// The line has no trailing newline.
func FormatProgressLine(elapsed time.Duration, p []WorkloadProgress) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%3ds]", int64(elapsed/time.Second))
	if len(p) == 0 {
		b.WriteString(" no operations yet")
		return b.String()
	}
	for i, w := range p {
		if i > 0 {
			b.WriteString(" |")
		}
		fmt.Fprintf(&b, " %s: %s", w.Workload, ProgressText(w))
	}
	return b.String()
}

// ProgressText is one workload's progress in words, for a bar or a line:
// first what it achieved (its Goal: increments acknowledged, creations,
// messages consumed) and at what rate over the last full second, then the
// calls it made and how they went. Lost races are "conflict"; throttled
// and unknown appear only when non-zero. A workload with no goal shows its
// ok calls instead.
func ProgressText(w WorkloadProgress) string {
	var b strings.Builder
	if w.Goal != "" {
		fmt.Fprintf(&b, "%d %s %.0f/s, %d calls %.0f/s,", w.Achieved, w.Goal, w.AchievedRate, w.Ops, w.Rate)
	} else {
		fmt.Fprintf(&b, "%d calls %.0f/s, ok %d", w.Ops, w.Rate, w.OK)
	}
	fmt.Fprintf(&b, " conflict %d", w.Conflicts)
	if w.Throttled > 0 {
		fmt.Fprintf(&b, " throttled %d", w.Throttled)
	}
	fmt.Fprintf(&b, " err %d", w.Errors)
	if w.Unknown > 0 {
		fmt.Fprintf(&b, " unknown %d", w.Unknown)
	}
	return b.String()
}
