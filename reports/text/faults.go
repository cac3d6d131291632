package text

import (
	"fmt"

	"github.com/stormcheck/stormcheck/reports"
)

// writeFaults prints the fault table, and the crashes that may explain a
// failed check.
func writeFaults(w *reports.ErrWriter, s *reports.Summary) {
	if len(s.Faults) == 0 {
		return
	}
	w.Printf("\nfaults injected on purpose (windows since time zero; attempts started in each)\n")
	t := textTable{indent: "  ", head: []string{"fault", "kind", "window", "attempts", "ok", "unknown", "throttled", "conflict", "error", "retries", "touched"}}
	for _, f := range s.Faults {
		t.add(f.Fault, f.Kind, fmt.Sprintf("+%s..+%s", reports.Secs(f.From), reports.Secs(f.To)),
			reports.Itoa(f.Attempts), reports.Itoa(f.OK), reports.Itoa(f.Unknown), reports.Itoa(f.Throttled), reports.Itoa(f.Conflict), reports.Itoa(f.Error), reports.Itoa(f.Retries), reports.Itoa(f.Touched))
	}
	t.write(w)
	for _, f := range s.Faults {
		if f.Err != "" {
			w.Printf("  %s: %s\n", f.Fault, f.Err)
		}
	}
	if c := reports.FirstCrash(s.Faults); c != nil && reports.AnyFailed(s.Checks) {
		w.Printf("  a failed check after crash %s (+%s): a crashed Azurite loses what LokiJS had not saved yet (every 5 s), acknowledged writes included; a lost update after it is the true verdict, caused by the crash\n", c.Fault, reports.Secs(c.From))
	}
}
