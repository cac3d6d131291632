package blob

import (
	"context"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/workload"
)

// Every Lease Blob call, recorded with what the lease checkers need. Each
// call builds its lease client with the id it sends, so what is recorded is
// exactly what went on the wire.

// conflictLeaseOp are the 409s a lease call gets when the lease is not in a
// state that allows it (someone else holds it, it is breaking or broken,
// the id does not match): the documented answers of a lost race.
var conflictLeaseOp = []workload.Expect{{Status: 409}}

func (b *Blobs) leaseClient(key, id string) *lease.BlobClient {
	lc, _ := lease.NewBlobClient(b.block(key), &lease.BlobClientOptions{LeaseID: &id}) // err only for a malformed id; ours are GUIDs
	return lc
}

// leaseAcquire asks for a lease with the proposed id; seconds -1 is infinite.
func (b *Blobs) leaseAcquire(ctx context.Context, a *workload.Actor, key, id string, seconds int32) checks.Op {
	return a.Do(ctx, workload.Call{Kind: "blob.lease.acquire", Key: key, Conflicts: conflictLeaseOp, Settle: true}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		_, err := b.leaseClient(key, id).AcquireLease(ctx, seconds, nil)
		return checks.Input{LeaseID: id, LeaseDuration: int(seconds)}, id, err
	})
}

func (b *Blobs) leaseRelease(ctx context.Context, a *workload.Actor, key, id string) checks.Op {
	return a.Do(ctx, workload.Call{Kind: "blob.lease.release", Key: key, Conflicts: conflictLeaseOp}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		_, err := b.leaseClient(key, id).ReleaseLease(ctx, nil)
		return checks.Input{LeaseID: id}, "", err
	})
}

func (b *Blobs) leaseRenew(ctx context.Context, a *workload.Actor, key, id string) checks.Op {
	return a.Do(ctx, workload.Call{Kind: "blob.lease.renew", Key: key, Conflicts: conflictLeaseOp}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		_, err := b.leaseClient(key, id).RenewLease(ctx, nil)
		return checks.Input{LeaseID: id}, "", err
	})
}

// leaseChange replaces the lease id id with next.
func (b *Blobs) leaseChange(ctx context.Context, a *workload.Actor, key, id, next string) checks.Op {
	return a.Do(ctx, workload.Call{Kind: "blob.lease.change", Key: key, Conflicts: conflictLeaseOp, Settle: true}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		_, err := b.leaseClient(key, id).ChangeLease(ctx, next, nil)
		return checks.Input{LeaseID: id, ProposedLeaseID: next}, next, err
	})
}

// leaseBreak breaks whatever lease the blob has; period < 0 sends none.
func (b *Blobs) leaseBreak(ctx context.Context, a *workload.Actor, key string, period int) checks.Op {
	return a.Do(ctx, workload.Call{Kind: "blob.lease.break", Key: key, Conflicts: conflictLeaseOp}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		in := checks.Input{}
		o := &lease.BlobBreakOptions{}
		if period >= 0 {
			p32 := int32(period)
			o.BreakPeriod, in.BreakPeriod = &p32, &period
		}
		// Break needs no lease id; the client's id is not sent.
		_, err := b.leaseClient(key, newGUID(a.Rand.Uint64(), a.Rand.Uint64())).BreakLease(ctx, o)
		return in, "", err
	})
}
