package reports

import (
	"fmt"
	"strings"
	"time"
)

// FormatProgressLine renders one plain progress line for output that is not
// a terminal (logs, CI), e.g.
//
//	[  5s] counter: 1234 ops 246/s ok 1000 conflict 234 err 0 | create: 80 ops 16/s ok 16 conflict 64 err 0
//
// Throttled and unknown counts appear only when non-zero. The line has no
// trailing newline.
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
		fmt.Fprintf(&b, " %s: %d ops %.0f/s ok %d conflict %d err %d", w.Workload, w.Ops, w.Rate, w.OK, w.Conflicts, w.Errors)
		if w.Throttled > 0 {
			fmt.Fprintf(&b, " throttled %d", w.Throttled)
		}
		if w.Unknown > 0 {
			fmt.Fprintf(&b, " unknown %d", w.Unknown)
		}
	}
	return b.String()
}
