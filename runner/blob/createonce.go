package blob

import (
	"context"
	"fmt"
	"sync"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// createOnce is blob.create-once: actors race to create the same blob with
// If-None-Match: *, round after round. Round r of track k is the blob
// "k<k>-r<r>"; an actor's n-th iteration contends for round n of a random
// track, so every round is contested by every actor that gets that far.
// Exactly one attempt per round may succeed; the others get 409.
type createOnce struct {
	b      *Blobs
	mu     sync.Mutex
	rounds map[string]struct{}
	next   map[int]int // actor id -> its next round
}

func init() {
	workload.Register("blob.create-once", func(scenarios.Workload, *target.Target) (workload.Workload, error) {
		return &createOnce{rounds: map[string]struct{}{}, next: map[int]int{}}, nil
	})
}

func roundKey(track, round int) string { return fmt.Sprintf("k%d-r%d", track, round) }

func (w *createOnce) Setup(ctx context.Context, e *workload.Env) error {
	w.b = newBlobs(e)
	if e.AttachOnly {
		return nil
	}
	if op := w.b.createContainer(ctx, e.Actor(checks.ActorSetup), e.Prefix); op.Outcome != checks.OK {
		return target.OpError("create container", &op)
	}
	return nil
}

func (w *createOnce) Iterate(ctx context.Context, a *workload.Actor) {
	track := a.Key()
	w.mu.Lock()
	round := w.next[a.ID*1_000_003+track]
	w.next[a.ID*1_000_003+track] = round + 1
	key := roundKey(track, round)
	w.rounds[key] = struct{}{}
	w.mu.Unlock()
	pad := a.Env.Params.PayloadBytes
	w.b.put(ctx, a, "blob.create", key, func() checks.Input {
		return checks.Input{IfNoneMatch: "*", Value: checks.CounterValue{N: int64(round), Tag: a.Tag()}.Format(pad)}
	}, ConflictExists)
}

func (w *createOnce) Final(ctx context.Context, e *workload.Env) error {
	w.mu.Lock()
	keys := make([]string, 0, len(w.rounds))
	for k := range w.rounds {
		keys = append(keys, k)
	}
	w.mu.Unlock()
	if e.Sharded {
		// The other shards' rounds are known only to the container: the
		// last shard reads every blob in it.
		seen := map[string]bool{}
		for _, k := range keys {
			seen[k] = true
		}
		pager := w.b.C.NewListBlobsFlatPager(nil)
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				return fmt.Errorf("listing the other shards' rounds: %s", target.DescribeCallErr(err))
			}
			for _, b := range page.Segment.BlobItems {
				if b.Name != nil && !seen[*b.Name] {
					seen[*b.Name] = true
					keys = append(keys, *b.Name)
				}
			}
		}
	}
	workload.FinalReads(ctx, e, keys, func(ctx context.Context, a *workload.Actor, k string) { w.b.get(ctx, a, k, readOpts{}) })
	return nil
}
