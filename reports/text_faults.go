package reports

import "fmt"

// writeFaults prints the fault table, and the crashes that may explain a
// failed check.
func writeFaults(w *ErrWriter, s *Summary) {
	if len(s.Faults) == 0 {
		return
	}
	w.printf("\nfaults injected on purpose (windows since time zero; attempts started in each)\n")
	t := textTable{indent: "  ", head: []string{"fault", "kind", "window", "attempts", "ok", "unknown", "throttled", "conflict", "error", "retries", "touched"}}
	for _, f := range s.Faults {
		t.add(f.Fault, f.Kind, fmt.Sprintf("+%s..+%s", Secs(f.From), Secs(f.To)),
			Itoa(f.Attempts), Itoa(f.OK), Itoa(f.Unknown), Itoa(f.Throttled), Itoa(f.Conflict), Itoa(f.Error), Itoa(f.Retries), Itoa(f.Touched))
	}
	t.write(w)
	for _, f := range s.Faults {
		if f.Err != "" {
			w.printf("  %s: %s\n", f.Fault, f.Err)
		}
	}
	if c := firstCrash(s.Faults); c != nil && anyFailed(s.Checks) {
		w.printf("  a failed check after crash %s (+%s): a crashed Azurite loses what LokiJS had not saved yet (every 5 s), acknowledged writes included; a lost update after it is the true verdict, caused by the crash\n", c.Fault, Secs(c.From))
	}
}
