package text

import (
	"strings"
	"time"

	"github.com/stormcheck/stormcheck/reports"
)

// writeMerged tells, for a run merged from shards, which shards it holds,
// where each one's times went, and what the merge found worth saying: a
// clock offset beyond the stated bound comes first, in capitals.
func writeMerged(w *reports.ErrWriter, s *reports.Summary) {
	if len(s.MergedFrom) == 0 {
		return
	}
	bound := s.MergedFrom[0].Bound
	w.Printf("merged    %d shards of run %s; each shard's intervals widened by its clock bound (%s stated)\n", len(s.MergedFrom), s.RunID, bound)
	for _, p := range s.MergedFrom {
		var parts []string
		parts = append(parts, "+"+p.Shift.Round(time.Millisecond).String())
		if p.ClockOffset.Samples > 0 && p.ClockOffset.Lo <= p.ClockOffset.Hi {
			parts = append(parts, "clock "+p.ClockOffset.Lo.Round(time.Millisecond).String()+" to "+p.ClockOffset.Hi.Round(time.Millisecond).String()+" off the service")
		}
		parts = append(parts, "widened "+p.Widened.Round(time.Millisecond).String())
		if p.Late > 0 {
			parts = append(parts, "load started "+p.Late.Round(time.Millisecond).String()+" late")
		}
		parts = append(parts, reports.Itoa(p.Ops)+" ops", "exit "+reports.Itoa(int64(p.ExitCode)))
		writeWrapped(w, "  shard "+reports.Itoa(int64(p.Index))+"  ", "           ", strings.Join(parts, ", "))
	}
	for _, n := range s.MergeNotes {
		if strings.HasPrefix(n, "clock offset bound exceeded") {
			n = "CLOCK OFFSET BOUND EXCEEDED" + strings.TrimPrefix(n, "clock offset bound exceeded")
		}
		writeWrapped(w, "  ", "    ", n)
	}
}
