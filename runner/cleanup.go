package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
)

// cleanup deletes every container, table and queue whose name starts with
// the run's unique prefix, and nothing else: stormcheck never touches what it
// did not create.
func cleanup(ctx context.Context, t *Target, prefix string) error {
	if t == nil {
		return nil
	}
	return errors.Join(cleanupContainers(ctx, t, prefix), cleanupTables(ctx, t, prefix), cleanupQueues(ctx, t, prefix))
}

// cleanupContainers deletes the run's containers.
func cleanupContainers(ctx context.Context, t *Target, prefix string) error {
	if t.Blob == nil {
		return nil
	}
	pager := t.Blob.NewListContainersPager(&service.ListContainersOptions{Prefix: &prefix})
	var errs []error
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("listing containers %s*: %s", prefix, Redact(err.Error()))
		}
		for _, c := range page.ContainerItems {
			if c.Name == nil {
				continue
			}
			if err := deleteContainer(ctx, t, *c.Name); err != nil {
				errs = append(errs, fmt.Errorf("deleting container %s: %s", *c.Name, Redact(err.Error())))
			}
		}
	}
	return errors.Join(errs...)
}

// deleteContainer deletes one of the run's containers; a lease the run left
// on it (an actor let it run, or the run was interrupted) is broken first.
func deleteContainer(ctx context.Context, t *Target, name string) error {
	_, err := t.Blob.DeleteContainer(ctx, name, nil)
	var re *azcore.ResponseError
	if err == nil || !errors.As(err, &re) || re.StatusCode != 412 {
		return err
	}
	c := t.Blob.NewContainerClient(name)
	zero := int32(0)
	lc, lerr := lease.NewContainerClient(c, nil)
	if lerr != nil {
		return lerr
	}
	if _, berr := lc.BreakLease(ctx, &lease.ContainerBreakOptions{BreakPeriod: &zero}); berr != nil {
		return berr
	}
	_, err = t.Blob.DeleteContainer(ctx, name, nil)
	return err
}
