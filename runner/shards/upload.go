package shards

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios"
)

// containerNamePattern is a blob container name: 3 to 63 lower-case
// letters, digits and single hyphens, starting with a letter or digit.
var containerNamePattern = regexp.MustCompile(`^[a-z0-9](-?[a-z0-9])+$`)

// ValidContainerName reports whether s can name a blob container.
func ValidContainerName(s string) bool {
	return len(s) >= 3 && len(s) <= 63 && containerNamePattern.MatchString(s)
}

// Prefix is where a shard's results go in an upload container:
// <run id>/shard-<I>-of-<N>.
func Prefix(runID string, index, count int) string {
	return fmt.Sprintf("%s/shard-%d-of-%d", runID, index, count)
}

// Upload copies every file of the results directory dir to blob
// container name on the target (created if missing), as blobs
// prefix/<path relative to dir>. It only reads dir. It returns the blobs
// written.
func Upload(ctx context.Context, st scenarios.Target, o target.Options, name, prefix, dir string) (int, error) {
	if !ValidContainerName(name) {
		return 0, fmt.Errorf("upload: %q is not a container name (3 to 63 lower-case letters, digits and single hyphens)", name)
	}
	t, err := target.Open(ctx, st, o)
	if err != nil {
		return 0, fmt.Errorf("upload: %w", err)
	}
	defer t.Close()
	c := t.Blob.NewContainerClient(name)
	if _, err := c.Create(ctx, nil); err != nil && !target.IsStatus(err, 409) {
		return 0, fmt.Errorf("upload: creating container %s: %s", name, target.DescribeCallErr(err))
	}
	n := 0
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		blobName := path.Join(prefix, filepath.ToSlash(rel))
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := c.NewBlockBlobClient(blobName).UploadFile(ctx, f, &blockblob.UploadFileOptions{}); err != nil {
			return fmt.Errorf("%s: %s", blobName, target.DescribeCallErr(err))
		}
		n++
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("upload to container %s: %w (%d file(s) uploaded before; the local results are untouched)", name, err, n)
	}
	return n, nil
}
