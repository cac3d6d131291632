package html

import (
	"fmt"
	"strings"
	"time"

	"github.com/stormcheck/stormcheck/reports"
)

// mergedMeta is what the page's header says of a run merged from shards:
// the shards and their widening, then each merge note (a clock offset
// beyond the stated bound first, in capitals, as the text report says it).
func mergedMeta(s *reports.Summary) []htmlKV {
	if len(s.MergedFrom) == 0 {
		return nil
	}
	var shards []string
	for _, p := range s.MergedFrom {
		shards = append(shards, fmt.Sprintf("shard %d +%s widened %s", p.Index, p.Shift.Round(time.Millisecond), p.Widened.Round(time.Millisecond)))
	}
	out := []htmlKV{{"merged", fmt.Sprintf("%d shards of run %s (clock bound %s stated): %s", len(s.MergedFrom), s.RunID,
		s.MergedFrom[0].Bound, strings.Join(shards, "; "))}}
	for _, n := range s.MergeNotes {
		if rest, ok := strings.CutPrefix(n, "clock offset bound exceeded"); ok {
			n = "CLOCK OFFSET BOUND EXCEEDED" + rest
		}
		out = append(out, htmlKV{"merge note", n})
	}
	return out
}
