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

// containerLeaseWL is container.lease: leases on containers enforce
// exclusivity only on Delete Container (the seeds); every other container
// operation succeeds without the lease id. Actors acquire, renew and release
// leases on a few containers while others set metadata and ACLs, read
// properties and now and then try to delete without the lease id, which a
// leased container must refuse with 412. A delete that succeeds (nobody held
// a lease) is followed by re-creating the container.
type containerLeaseWL struct {
	mu   sync.Mutex
	held map[int]map[string]string // actor -> container -> lease id it holds
}

func init() {
	workload.Register("container.lease", func(scenarios.Workload, *target.Target) (workload.Workload, error) {
		return &containerLeaseWL{held: map[int]map[string]string{}}, nil
	})
}

func containerName(e *workload.Env, i int) string { return fmt.Sprintf("%s-c%d", e.Prefix, i) }

func (w *containerLeaseWL) Setup(ctx context.Context, e *workload.Env) error {
	return containersSetup(ctx, e)
}

// containersSetup creates the workload's containers, recorded as setup.
func containersSetup(ctx context.Context, e *workload.Env) error {
	if e.AttachOnly {
		return nil
	}
	a := e.Actor(checks.ActorSetup)
	for i := 0; i < e.Keys; i++ {
		name := containerName(e, i)
		if op := containerCreate(ctx, a, e.Target.Blob.NewContainerClient(name), name); op.Outcome != checks.OK {
			return target.OpError("create container "+name, &op)
		}
	}
	return nil
}

// containersFinal reads every container's properties once the load stopped.
func containersFinal(ctx context.Context, e *workload.Env) {
	names := make([]string, e.Keys)
	for i := range names {
		names[i] = containerName(e, i)
	}
	workload.FinalReads(ctx, e, names, func(ctx context.Context, a *workload.Actor, name string) {
		containerGetProps(ctx, a, e.Target.Blob.NewContainerClient(name), name)
	})
}

func (w *containerLeaseWL) holding(actor int, name string) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.held[actor][name]
}

func (w *containerLeaseWL) setHeld(actor int, name, id string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.held[actor] == nil {
		w.held[actor] = map[string]string{}
	}
	if id == "" {
		delete(w.held[actor], name)
	} else {
		w.held[actor][name] = id
	}
}

func (w *containerLeaseWL) Iterate(ctx context.Context, a *workload.Actor) {
	name := containerName(a.Env, a.Key())
	c := a.Env.Target.Blob.NewContainerClient(name)
	r := a.Rand.Float64()
	var op checks.Op
	if id := w.holding(a.ID, name); id != "" {
		switch {
		case r < 0.4:
			op = containerSetMeta(ctx, a, c, name, containerCall{LeaseID: id})
		case r < 0.6:
			if op = containerLeaseRenew(ctx, a, c, name, id); op.Outcome == checks.Conflict {
				w.setHeld(a.ID, name, "") // expired and taken, or the container was replaced
			}
		default:
			op = containerLeaseRelease(ctx, a, c, name, id)
			w.setHeld(a.ID, name, "")
		}
	} else {
		switch {
		case r < 0.35:
			id := newLeaseID(a)
			op = containerLeaseAcquire(ctx, a, c, name, id, leaseSeconds(a.Env.Params.LeaseDuration))
			if workload.MayHaveApplied(&op) {
				// settle it: a renew with the id succeeds only if it took effect
				op = containerLeaseRenew(ctx, a, c, name, id)
			}
			if op.Outcome == checks.OK || workload.MayHaveApplied(&op) {
				w.setHeld(a.ID, name, id) // held, or maybe (release it later)
			}
		case r < 0.55:
			op = containerSetMeta(ctx, a, c, name, containerCall{}) // no lease id: must succeed even when leased
		case r < 0.70:
			op = containerGetProps(ctx, a, c, name)
		case r < 0.90:
			op = containerSetACL(ctx, a, c, name, containerCall{}) // no lease id: must succeed even when leased
		default:
			// No lease id: refused (412) while leased; otherwise the
			// container goes, and comes back.
			if op = containerDelete(ctx, a, c, name, containerCall{}); op.Outcome == checks.OK {
				containerCreate(ctx, a, c, name)
				return
			}
		}
	}
	// A delete whose answer was lost may have taken the container: it
	// comes back as soon as a call finds it gone.
	if op.Out.ErrorCode == "ContainerNotFound" {
		w.setHeld(a.ID, name, "")
		containerCreate(ctx, a, c, name)
	}
}

func (w *containerLeaseWL) Final(ctx context.Context, e *workload.Env) error {
	containersFinal(ctx, e)
	// Let go of the leases still held, so the containers can be deleted.
	w.mu.Lock()
	defer w.mu.Unlock()
	a := e.Actor(checks.ActorFinal)
	for _, m := range w.held {
		for name, id := range m {
			containerLeaseRelease(ctx, a, e.Target.Blob.NewContainerClient(name), name, id)
		}
	}
	w.held = map[int]map[string]string{}
	return nil
}
