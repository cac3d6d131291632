package seqnum

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

// simulate writes the history of actors racing CASes on keys page blobs
// against a correct service: each CAS is conditioned on the number some
// earlier read returned (possibly stale: then it is refused), and some
// answers are lost (unknown outcome, landed or not). With inject, one
// acknowledged CAS is let through on a stale number, as a service that
// ignored x-ms-if-sequence-number-eq would: its answer is the number plus
// one, not N+1.
func simulate(r *rand.Rand, keys, steps int, inject bool) []checks.Op {
	h := newHist()
	cur := make([]int64, keys)
	for k := range keys {
		h.create("k"+strconv.Itoa(k), 0)
	}
	injected := false
	for i := 0; i < steps; i++ {
		k := r.IntN(keys)
		key := "k" + strconv.Itoa(k)
		actor := r.IntN(6)
		from := cur[k] - int64(r.IntN(2)) // a read that may be one step stale
		if from < 0 {
			from = 0
		}
		switch {
		case inject && !injected && from < cur[k] && i > steps/2:
			cur[k]++
			h.cas(actor, key, from, checks.OK, cur[k])
			injected = true
		case from < cur[k]:
			h.cas(actor, key, from, checks.Conflict, 0)
		case r.IntN(10) == 0: // the answer is lost
			if r.IntN(2) == 0 {
				cur[k]++
			}
			h.cas(actor, key, from, checks.Unknown, 0)
		default:
			cur[k]++
			h.cas(actor, key, from, checks.OK, cur[k])
		}
	}
	for k := range keys {
		h.read(checks.ActorFinal, "k"+strconv.Itoa(k), cur[k])
	}
	return h.Ops
}

// The check reaches the same verdict and summary fed whole or one group of
// keys at a time (checks.KeyLocal), passes every simulated history of a
// correct service and fails every one with a CAS let through on a stale
// number.
func TestChainSimulatedAndGrouped(t *testing.T) {
	for seed := range uint64(80) {
		inject := seed%2 == 1
		ops := simulate(rand.New(rand.NewPCG(seed, 7)), 1+int(seed%4), 200, inject)
		whole := checks.Run(ops, New())[0]
		grouped := checkstest.FeedGrouped(ops, New(), 3)
		if whole.Verdict != grouped.Verdict || whole.Total != grouped.Total || whole.Decided != grouped.Decided {
			t.Fatalf("seed %d: whole %s %d %q, grouped %s %d %q", seed, whole.Verdict, whole.Total, whole.Summary, grouped.Verdict, grouped.Total, grouped.Summary)
		}
		switch {
		case inject && whole.Verdict != checks.Fail:
			t.Errorf("seed %d: a CAS on a stale number not caught: %s", seed, whole.Summary)
		case !inject && whole.Verdict != checks.Pass:
			t.Errorf("seed %d: a correct history judged %s: %s %+v", seed, whole.Verdict, whole.Summary, whole.Violations)
		}
	}
}
