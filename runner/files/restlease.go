package files

import (
	"context"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/lease"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// The documented refusals of file leases (Lease File; Put Range on a
// leased file).
var (
	// leaseTaken: an acquire while another id holds the (infinite) lease.
	leaseTaken = workload.Expect{Status: http.StatusConflict, Code: "LeaseAlreadyPresent"}
	// leaseIDMissing: a write without the lease id while a lease is held.
	leaseIDMissing = workload.Expect{Status: http.StatusPreconditionFailed, Code: "LeaseIdMissing"}
)

// leaseSize is the size of a leased file; a write puts leaseWrite bytes
// at its start.
const leaseSize, leaseWrite = 64, 16

// restLease is files.rest-lease: file-lease exclusion. Every actor races
// to acquire an infinite lease (file leases are infinite only) on a file
// with its own proposed id; the winner writes under its id, sometimes
// tries a write without it (which must be refused, 412 LeaseIdMissing),
// and releases. Losers get 409 LeaseAlreadyPresent and sometimes write
// without an id (refused while the lease is held). An acquire of unknown
// outcome is settled by releasing with the proposed id.
type restLease struct{ r *rest }

func init() {
	workload.Register("files.rest-lease", func(w scenarios.Workload, t *target.Target) (workload.Workload, error) {
		r, err := newREST(w.Kind, t)
		if err != nil {
			return nil, err
		}
		return &restLease{r: r}, nil
	})
}

func (w *restLease) Setup(ctx context.Context, e *workload.Env) error {
	return w.r.setupFiles(ctx, e, leaseSize, nil)
}

// leaseID is a version-4 UUID from the actor's reproducible source.
func leaseID(a *workload.Actor) string {
	h, l := a.Rand.Uint64(), a.Rand.Uint64()
	h = h&^0xf000 | 0x4000     // version 4
	l = l&^(0xc<<60) | 0x8<<60 // variant 10
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", h>>32, h>>16&0xffff, h&0xffff, l>>48, l&0xffffffffffff)
}

func (w *restLease) Iterate(ctx context.Context, a *workload.Actor) {
	key := workload.KeyName(a.Key())
	id := leaseID(a)
	op := w.acquire(ctx, a, key, id)
	switch {
	case op.Outcome == checks.OK:
		w.r.putRange(ctx, a, key, 0, []byte(fmt.Sprintf("%-*s", leaseWrite, a.Tag())), id, "")
		if a.Rand.IntN(3) == 0 {
			w.r.putRange(ctx, a, key, 0, []byte(fmt.Sprintf("%-*s", leaseWrite, a.Tag())), "", "", leaseIDMissing)
		}
		w.release(ctx, a, key, id)
	case workload.MayHaveApplied(&op):
		w.release(ctx, a, key, id) // settles it: releases the lease if the acquire took it
	case op.Outcome == checks.Conflict && a.Rand.IntN(2) == 0:
		w.r.putRange(ctx, a, key, 0, []byte(fmt.Sprintf("%-*s", leaseWrite, a.Tag())), "", "", leaseIDMissing)
	}
}

// acquire records Lease File acquire (infinite) of key with proposed id.
func (w *restLease) acquire(ctx context.Context, a *workload.Actor, key, id string) checks.Op {
	return a.Do(ctx, workload.Call{Kind: OpRESTAcquire, Key: key, Conflicts: []workload.Expect{leaseTaken}, Settle: true},
		func(ctx context.Context, _ int) (checks.Input, string, error) {
			lc, err := lease.NewFileClient(w.r.file(key), &lease.FileClientOptions{LeaseID: &id})
			if err == nil {
				_, err = lc.Acquire(ctx, nil)
			}
			return checks.Input{LeaseID: id, LeaseDuration: -1}, "", err
		})
}

// release records Lease File release of key's lease id. Sent even once
// the load stopped (the stopping stage), so no lease stays on the file.
func (w *restLease) release(ctx context.Context, a *workload.Actor, key, id string) checks.Op {
	return a.Do(a.Env.AfterStop(ctx), workload.Call{Kind: OpRESTRelease, Key: key}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		lc, err := lease.NewFileClient(w.r.file(key), &lease.FileClientOptions{LeaseID: &id})
		if err == nil {
			_, err = lc.Release(ctx, nil)
		}
		return checks.Input{LeaseID: id}, "", err
	})
}

func (w *restLease) Final(ctx context.Context, e *workload.Env) error {
	return w.r.finalAndDelete(ctx, e, nil)
}
