package runner

import (
	"context"

	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/throttle"
)

// startEmulation starts the throttling proxy in front of a managed
// Azurite: every unit is held to the scenario's capacity targets (when
// throttling is on), and every request may be delayed.
func startEmulation(ctx context.Context, o TargetOptions, inst *azurite.Instance) (*throttle.Proxy, error) {
	e, c := o.Emulation, o.Capacity
	po := throttle.Options{Blob: inst.BlobURL, Queue: inst.QueueURL, Table: inst.TableURL,
		Burst: e.Burst, Warmup: e.Warmup, Delay: e.Delay, Log: o.Progress, Clock: o.throttleClock}
	if e.Throttle {
		po.Limits = throttle.Limits{BlobRequests: c.Blob, PartitionEntities: c.Partition, QueueMessages: c.Queue, AccountRequests: c.Account}
	}
	return throttle.Start(ctx, po)
}
