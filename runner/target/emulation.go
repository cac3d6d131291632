package target

import (
	"context"

	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/throttle"
)

// startEmulation starts the loopback proxy chain in front of a managed
// Azurite: the fault stages (when the scenario has HTTP faults), then the
// throttling emulation: every unit is held to the scenario's capacity
// targets (when throttling is on), and every request may be delayed.
func startEmulation(ctx context.Context, o Options, inst *azurite.Instance) (*throttle.Proxy, error) {
	c := o.Capacity
	po := throttle.Options{Blob: inst.BlobURL, Queue: inst.QueueURL, Table: inst.TableURL,
		Log: o.Progress, Clock: o.ThrottleClock}
	if e := o.Emulation; e != nil {
		po.Burst, po.Warmup, po.Delay = e.Burst, e.Warmup, e.Delay
		if e.Throttle {
			po.Limits = throttle.Limits{BlobRequests: c.Blob, PartitionEntities: c.Partition, QueueMessages: c.Queue, AccountRequests: c.Account}
		}
	}
	if o.Faults != nil && o.Faults.HasHTTP() {
		po.Wrap = o.Faults.Wrap
	}
	return throttle.Start(ctx, po)
}
