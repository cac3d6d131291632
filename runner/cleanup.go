package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
)

// cleanup deletes every container whose name starts with the run's unique
// prefix, and nothing else: stormcheck never touches what it did not create.
func cleanup(ctx context.Context, t *Target, prefix string) error {
	if t == nil || t.Blob == nil {
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
			if _, err := t.Blob.DeleteContainer(ctx, *c.Name, nil); err != nil {
				errs = append(errs, fmt.Errorf("deleting container %s: %s", *c.Name, Redact(err.Error())))
			}
		}
	}
	return errors.Join(errs...)
}
