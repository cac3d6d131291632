package cleanup

import (
	"context"
	"errors"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/stormcheck/stormcheck/runner/target"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
)

// cleanupScope says what one cleanup deletes and how.
type CleanupScope struct {
	RunID string
	// allServices lists tables and queues even when this process did not
	// create any (stormcheck cleanup, for an earlier run).
	allServices bool
	// dryRun lists without deleting.
	dryRun bool
}

// cleanupRun deletes every container, table and queue of one run, and its
// marker last, once everything else is gone: stormcheck never touches what
// it did not create (see runmarker.go). It returns what it found (in a
// dry run, what it would delete), what it could not delete (with
// "(listing failed)" when a listing failed part-way) and what went wrong.
func CleanupRun(ctx context.Context, t *target.Target, s CleanupScope) (found, left []string, err error) {
	if t == nil {
		return nil, nil, nil
	}
	prefix := RunPrefix(s.RunID)
	c, cl, cerr := cleanupContainers(ctx, t, prefix, s.dryRun)
	tb, tl, terr := cleanupTables(ctx, t, prefix, s)
	q, ql, qerr := cleanupQueues(ctx, t, prefix, s)
	found = append(append(append(found, c...), tb...), q...)
	left = append(append(append(left, cl...), tl...), ql...)
	err = errors.Join(cerr, terr, qerr)
	if err == nil && !s.dryRun && t.Blob != nil {
		if _, derr := t.Blob.DeleteContainer(ctx, MarkerName(s.RunID), nil); derr != nil && !target.IsStatus(derr, 404) {
			err = fmt.Errorf("deleting the run's marker container %s: %s", MarkerName(s.RunID), target.DescribeCallErr(derr))
			left = append(left, "container "+MarkerName(s.RunID)+" (the run's marker)")
		}
	}
	return found, left, err
}

// cleanupContainers deletes the run's containers.
func cleanupContainers(ctx context.Context, t *target.Target, prefix string, dryRun bool) (found, left []string, err error) {
	if t.Blob == nil {
		return nil, nil, nil
	}
	pager := t.Blob.NewListContainersPager(&service.ListContainersOptions{Prefix: &prefix})
	var errs []error
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return found, append(left, "(listing failed)"), fmt.Errorf("listing containers %s*: %s", prefix, target.DescribeCallErr(err))
		}
		for _, c := range page.ContainerItems {
			if c.Name == nil {
				continue
			}
			found = append(found, "container "+*c.Name)
			if dryRun {
				continue
			}
			if err := deleteContainer(ctx, t, *c.Name); err != nil && !target.IsStatus(err, 404) {
				left = append(left, "container "+*c.Name)
				errs = append(errs, fmt.Errorf("deleting container %s: %s", *c.Name, target.DescribeCallErr(err)))
			}
		}
	}
	return found, left, errors.Join(errs...)
}

// deleteContainer deletes one of the run's containers; a lease the run left
// on it (an actor let it run, or the run was interrupted) is broken first.
func deleteContainer(ctx context.Context, t *target.Target, name string) error {
	_, err := t.Blob.DeleteContainer(ctx, name, nil)
	if err == nil || !target.IsStatus(err, 412) {
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
