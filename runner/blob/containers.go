package blob

import (
	"context"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/workload"
)

// Container calls, recorded with the lease id and date conditions they
// sent. Key is the container's name.

// containerCall names what one container operation sends.
type containerCall struct {
	LeaseID                            string
	IfModifiedSince, IfUnmodifiedSince time.Time
}

func (cc containerCall) input() checks.Input {
	in := checks.Input{LeaseID: cc.LeaseID}
	if !cc.IfModifiedSince.IsZero() {
		in.IfModifiedSince = cc.IfModifiedSince.UTC().Format(http.TimeFormat)
	}
	if !cc.IfUnmodifiedSince.IsZero() {
		in.IfUnmodifiedSince = cc.IfUnmodifiedSince.UTC().Format(http.TimeFormat)
	}
	return in
}

func (cc containerCall) lease() *container.LeaseAccessConditions {
	if cc.LeaseID == "" {
		return nil
	}
	id := cc.LeaseID
	return &container.LeaseAccessConditions{LeaseID: &id}
}

func (cc containerCall) modified() *container.ModifiedAccessConditions {
	if cc.IfModifiedSince.IsZero() && cc.IfUnmodifiedSince.IsZero() {
		return nil
	}
	m := &container.ModifiedAccessConditions{}
	if !cc.IfModifiedSince.IsZero() {
		t := cc.IfModifiedSince
		m.IfModifiedSince = &t
	}
	if !cc.IfUnmodifiedSince.IsZero() {
		t := cc.IfUnmodifiedSince
		m.IfUnmodifiedSince = &t
	}
	return m
}

// conflictContainer: 412 (a lease or date condition refused the call) and
// 409 (a lease call in the wrong state) are the documented losses.
var conflictContainer = []workload.Expect{{Status: 412}, {Status: 409}}

func containerSetMeta(ctx context.Context, a *workload.Actor, c *container.Client, name string, cc containerCall) checks.Op {
	return a.Do(ctx, workload.Call{Kind: "container.setmeta", Key: name, Conflicts: conflictContainer}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		tag := a.Tag()
		in := cc.input()
		in.Value = tag
		_, err := c.SetMetadata(ctx, &container.SetMetadataOptions{Metadata: map[string]*string{"writer": &tag},
			LeaseAccessConditions: cc.lease(), ModifiedAccessConditions: cc.modified()})
		return in, "", err
	})
}

func containerGetProps(ctx context.Context, a *workload.Actor, c *container.Client, name string) checks.Op {
	return a.Do(ctx, workload.Call{Kind: "container.getprops", Key: name}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		r, err := c.GetProperties(ctx, nil)
		v := ""
		if err == nil && r.Metadata != nil {
			for k, p := range r.Metadata { // the SDK may change the key's case
				if p != nil && (k == "writer" || k == "Writer") {
					v = *p
				}
			}
		}
		return checks.Input{}, v, err
	})
}

func containerSetACL(ctx context.Context, a *workload.Actor, c *container.Client, name string, cc containerCall) checks.Op {
	return a.Do(ctx, workload.Call{Kind: "container.setacl", Key: name, Conflicts: conflictContainer}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		_, err := c.SetAccessPolicy(ctx, &container.SetAccessPolicyOptions{AccessConditions: &container.AccessConditions{
			LeaseAccessConditions: cc.lease(), ModifiedAccessConditions: cc.modified()}})
		return cc.input(), "", err
	})
}

func containerDelete(ctx context.Context, a *workload.Actor, c *container.Client, name string, cc containerCall) checks.Op {
	return a.Do(ctx, workload.Call{Kind: "container.delete", Key: name, Conflicts: conflictContainer}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		_, err := c.Delete(ctx, &container.DeleteOptions{AccessConditions: &container.AccessConditions{
			LeaseAccessConditions: cc.lease(), ModifiedAccessConditions: cc.modified()}})
		return cc.input(), "", err
	})
}

func containerCreate(ctx context.Context, a *workload.Actor, c *container.Client, name string) checks.Op {
	return a.Do(ctx, workload.Call{Kind: "container.create", Key: name, Conflicts: []workload.Expect{{Status: 409}}}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		_, err := c.Create(ctx, nil)
		return checks.Input{}, "", err
	})
}

func containerLease(c *container.Client, id string) *lease.ContainerClient {
	lc, _ := lease.NewContainerClient(c, &lease.ContainerClientOptions{LeaseID: &id}) // err only for a malformed id
	return lc
}

func containerLeaseAcquire(ctx context.Context, a *workload.Actor, c *container.Client, name, id string, seconds int32) checks.Op {
	return a.Do(ctx, workload.Call{Kind: "container.lease.acquire", Key: name, Conflicts: conflictContainer, Settle: true}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		_, err := containerLease(c, id).AcquireLease(ctx, seconds, nil)
		return checks.Input{LeaseID: id, LeaseDuration: int(seconds)}, id, err
	})
}

func containerLeaseRelease(ctx context.Context, a *workload.Actor, c *container.Client, name, id string) checks.Op {
	return a.Do(ctx, workload.Call{Kind: "container.lease.release", Key: name, Conflicts: conflictContainer}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		_, err := containerLease(c, id).ReleaseLease(ctx, nil)
		return checks.Input{LeaseID: id}, "", err
	})
}

func containerLeaseRenew(ctx context.Context, a *workload.Actor, c *container.Client, name, id string) checks.Op {
	return a.Do(ctx, workload.Call{Kind: "container.lease.renew", Key: name, Conflicts: conflictContainer}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		_, err := containerLease(c, id).RenewLease(ctx, nil)
		return checks.Input{LeaseID: id}, "", err
	})
}
