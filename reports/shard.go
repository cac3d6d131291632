package reports

import (
	"time"
)

// ShardInfo says which shard of a sharded run a results directory holds
// (`stormcheck run --shard I/N`), and what a merge needs to put it on the
// same time line as the other shards.
type ShardInfo struct {
	// Index is the shard's number, 0-based; Count the run's shards.
	Index int `json:"index"`
	Count int `json:"count"`
	// RunID is the run id every shard of the run shares.
	RunID string `json:"run_id"`
	// StartAt is the instant (RFC 3339) every shard's load was to start;
	// "" when the shards met at the run marker instead (Rendezvous).
	StartAt string `json:"start_at"`
	// Rendezvous is the start the shards agreed on through the run marker
	// (RFC 3339, set by shard 0), when StartAt was not given.
	Rendezvous string `json:"rendezvous,omitempty"`
	// Late is how much later than the agreed start this shard's load
	// started, by its own clock (0: on time).
	Late time.Duration `json:"late_ns"`
	// ClockOffsetBound is the scenario's stated bound on the clocks'
	// offsets (clock_offset_bound).
	ClockOffsetBound time.Duration `json:"clock_offset_bound_ns"`
	// ClockOffset is what the responses' Date headers show of this shard's
	// wall clock minus the service's.
	ClockOffset ClockOffset `json:"clock_offset"`
	// FinalReads, Setup and Cleanup say whether this shard did the run's
	// final reads, its setup, its cleanup (each is done by one shard).
	FinalReads bool `json:"final_reads"`
	Setup      bool `json:"setup"`
	Cleanup    bool `json:"cleanup"`
}

// ClockOffset is an interval known to hold this machine's wall clock minus
// the service's clock, from the Date header of every response: a response
// whose call went out at local wall time c and returned at r with Date D
// (whole seconds) was stamped in [D, D+1s) at some instant in [c, r], so
// the offset is in (c - (D+1s), r - D]. The intersection over all
// responses is [Lo, Hi]. Samples = 0: no response carried a Date.
type ClockOffset struct {
	Lo      time.Duration `json:"lo_ns"`
	Hi      time.Duration `json:"hi_ns"`
	Samples int64         `json:"samples"`
}

// Contains reports whether d lies in the interval.
func (c ClockOffset) Contains(d time.Duration) bool {
	return c.Samples > 0 && c.Lo <= d && d <= c.Hi
}

// signedDuration prints a duration with its sign, rounded to 0.1 ms.
func SignedDuration(d time.Duration) string {
	s := d.Round(100 * time.Microsecond).String()
	if d >= 0 {
		s = "+" + s
	}
	return s
}
