package blob

import (
	"context"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
)

// setupKeys creates the workload's container, then each key k0..kN-1 with
// create, as the setup actor (recorded as setup); an attached shard sends
// nothing. The first call that fails ends it with that call's error.
func setupKeys(ctx context.Context, e *workload.Env, b *Blobs, create func(a *workload.Actor, key string) checks.Op) error {
	if e.AttachOnly {
		return nil
	}
	a := e.Actor(checks.ActorSetup)
	if op := b.createContainer(ctx, a, e.Prefix); op.Outcome != checks.OK {
		return target.OpError("create container", &op)
	}
	for i := 0; i < e.Keys; i++ {
		k := workload.KeyName(i)
		if op := create(a, k); op.Outcome != checks.OK {
			return target.OpError("create "+k, &op)
		}
	}
	return nil
}
