package text

import (
	"fmt"
	"strings"
	"time"

	"github.com/stormcheck/stormcheck/reports"
)

// writeShard is the text report's shard line.
func writeShard(w *reports.ErrWriter, sh *reports.ShardInfo) {
	if sh == nil {
		return
	}
	writeWrapped(w, "shard     ", "          ", ShardText(sh))
}

// shardText says which part of which run a shard is, when its load started
// against the agreed start, what its clock is against the service's, and
// which of the run's one-time duties it did.
func ShardText(sh *reports.ShardInfo) string {
	parts := []string{fmt.Sprintf("%d of %d, run %s", sh.Index, sh.Count, sh.RunID)}
	switch {
	case sh.StartAt != "":
		parts = append(parts, "start at "+sh.StartAt)
	case sh.Rendezvous != "":
		parts = append(parts, "start at "+sh.Rendezvous+" (stamped by shard 0)")
	}
	if sh.Late > 0 {
		parts = append(parts, "LATE by "+sh.Late.Round(time.Millisecond).String())
	}
	if c := sh.ClockOffset; c.Samples > 0 {
		parts = append(parts, fmt.Sprintf("clock %s..%s from the service's (%d responses; bound %s)",
			reports.SignedDuration(c.Lo), reports.SignedDuration(c.Hi), c.Samples, sh.ClockOffsetBound))
	}
	var did, not []string
	for _, d := range []struct {
		name string
		done bool
	}{{"setup", sh.Setup}, {"final reads", sh.FinalReads}, {"cleanup", sh.Cleanup}} {
		if d.done {
			did = append(did, d.name)
		} else {
			not = append(not, d.name)
		}
	}
	if len(did) > 0 {
		parts = append(parts, "did the run's "+strings.Join(did, ", "))
	}
	if len(not) > 0 && sh.Count > 1 {
		parts = append(parts, strings.Join(not, ", ")+" by other shards")
	}
	return strings.Join(parts, "; ")
}
