package runner

import (
	"context"
	"fmt"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/scenarios"
)

// leaseMutex is blob.lease-mutex: the pessimistic pattern. An actor acquires
// a lease on a counter blob (409 while someone else holds it), reads the
// counter and writes it back plus one with its lease id (no If-Match: the
// lease is the only guard), holds for a while, then releases. If two actors
// ever held the lease together, increments are lost and no-lost-updates says
// so.
type leaseMutex struct{ b *blobs }

func init() {
	registerWorkload("blob.lease-mutex", func(scenarios.Workload, *Target) (Workload, error) { return &leaseMutex{}, nil })
}

func (w *leaseMutex) Setup(ctx context.Context, e *Env) error {
	w.b = newBlobs(e)
	return counterSetup(ctx, e, w.b)
}

// leaseSeconds is the duration the Lease Blob call takes (-1: infinite).
func leaseSeconds(d time.Duration) int32 {
	if d == scenarios.Infinite {
		return -1
	}
	return int32(d / time.Second)
}

func (w *leaseMutex) Iterate(ctx context.Context, a *Actor) {
	key := KeyName(a.Key())
	id := newLeaseID(a)
	lc, err := lease.NewBlobClient(w.b.block(key), &lease.BlobClientOptions{LeaseID: &id})
	if err != nil {
		return
	}
	dur := leaseSeconds(a.env.Params.LeaseDuration)
	acq := a.Do(ctx, Call{Kind: "blob.lease.acquire", Key: key, Conflicts: conflictLease}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		_, err := lc.AcquireLease(ctx, dur, nil)
		return checks.Input{LeaseID: id}, id, err
	})
	switch acq.Outcome {
	case checks.OK:
	case checks.Unknown:
		w.release(ctx, a, lc, key, id) // we may hold it: do not block the others for a whole lease
		return
	default:
		return
	}
	defer w.release(ctx, a, lc, key, id)
	get := w.b.get(ctx, a, key, id)
	if get.Outcome != checks.OK {
		return
	}
	cur, err := checks.ParseCounterValue(get.Out.Value)
	if err != nil {
		return
	}
	pad := a.env.Params.PayloadBytes
	w.b.put(ctx, a, "blob.put", key, func() checks.Input {
		return checks.Input{LeaseID: id, Value: checks.CounterValue{N: cur.N + 1, Tag: a.Tag()}.Format(pad)}
	}, conflictPrecondition)
	if h := a.env.Params.Hold; h > 0 {
		select {
		case <-ctx.Done():
		case <-time.After(h):
		}
	}
}

func (w *leaseMutex) release(ctx context.Context, a *Actor, lc *lease.BlobClient, key, id string) {
	if ctx.Err() != nil {
		ctx = context.WithoutCancel(ctx) // release even when interrupted: others must not wait a lease out
	}
	a.Do(ctx, Call{Kind: "blob.lease.release", Key: key, Conflicts: []Expect{{Status: 409}}}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		_, err := lc.ReleaseLease(ctx, nil)
		return checks.Input{LeaseID: id}, "", err
	})
}

// newLeaseID is a version-4 GUID from the actor's reproducible source.
func newLeaseID(a *Actor) string {
	hi, lo := a.Rand.Uint64(), a.Rand.Uint64()
	hi = hi&^(0xf<<12) | 0x4<<12
	lo = lo&^(0x3<<62) | 0x2<<62
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, (hi>>16)&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff)
}

func (w *leaseMutex) Final(ctx context.Context, e *Env) error {
	counterFinal(ctx, e, w.b)
	return nil
}
