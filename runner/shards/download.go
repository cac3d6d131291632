package shards

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/stormcheck/stormcheck/internal/boundedread"
	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner"
	"github.com/stormcheck/stormcheck/runner/cleanup"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios"
)

// shardDirPattern is a shard's folder in an upload container
// (ShardPrefix): shard-<I>-of-<N>.
var shardDirPattern = regexp.MustCompile(`^shard-[0-9]+-of-[0-9]+$`)

// shardFileBound is the size bound of a shard's file that the merge reads
// whole (summary.json, scenario.yaml), and what it is; 0 for the others
// (the history and the latency logs are streamed, the rest is not read).
func shardFileBound(file string) (int64, string) {
	switch file {
	case runner.SummaryFile:
		return reports.MaxSummaryBytes, "a summary.json"
	case runner.ScenarioFile:
		return scenarios.MaxFileBytes, "a scenario or rule file"
	}
	return 0, ""
}

// Download copies the shards' results that `run --upload` left in
// blob container name on the target (blobs <run id>/shard-<I>-of-<N>/...)
// into dest/shard-<I>-of-<N>/, and returns those directories and the run
// id. With runID empty, the container must hold exactly one run (else the
// error lists the run ids it holds).
func Download(ctx context.Context, st scenarios.Target, o target.Options, name, runID, dest string) ([]string, string, error) {
	if !ValidContainerName(name) {
		return nil, "", fmt.Errorf("%q is not a container name (3 to 63 lower-case letters, digits and single hyphens)", name)
	}
	t, err := target.Open(ctx, st, o)
	if err != nil {
		return nil, "", err
	}
	defer t.Close()
	c := t.Blob.NewContainerClient(name)
	if runID == "" {
		var runs []string
		pager := c.NewListBlobsHierarchyPager("/", nil)
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				return nil, "", fmt.Errorf("listing container %s on %s: %s", name, t.Desc, target.DescribeCallErr(err))
			}
			for _, p := range page.Segment.BlobPrefixes {
				if p.Name != nil {
					runs = append(runs, strings.TrimSuffix(*p.Name, "/"))
				}
			}
		}
		switch len(runs) {
		case 0:
			return nil, "", fmt.Errorf("container %s on %s holds no uploaded run (blobs RUN_ID/shard-I-of-N/...)", name, t.Desc)
		case 1:
			runID = runs[0]
		default:
			sort.Strings(runs)
			return nil, "", fmt.Errorf("container %s holds %d runs (%s): choose one with --run-id", name, len(runs), strings.Join(runs, ", "))
		}
	}
	if !cleanup.ValidRunID(runID) {
		return nil, "", fmt.Errorf("%q is not a run id", runID)
	}
	prefix := runID + "/"
	// Every blob is listed and judged before any is downloaded: a shard's
	// summary.json and scenario.yaml are read whole by the merge, so one
	// past its bound is refused here, with nothing written.
	type item struct{ name, shard, file string }
	var items []item
	pager := c.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: &prefix})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, runID, fmt.Errorf("listing container %s on %s: %s", name, t.Desc, target.DescribeCallErr(err))
		}
		for _, b := range page.Segment.BlobItems {
			if b.Name == nil {
				continue
			}
			rel := strings.TrimPrefix(*b.Name, prefix)
			shard, file, ok := strings.Cut(rel, "/")
			clean := path.Clean(file)
			if !ok || !shardDirPattern.MatchString(shard) || clean != file || strings.HasPrefix(clean, "../") || path.IsAbs(clean) {
				return nil, runID, fmt.Errorf("container %s: blob %q is not a shard's result (want %sshard-I-of-N/PATH)", name, *b.Name, prefix)
			}
			if bound, what := shardFileBound(file); bound > 0 && b.Properties != nil && b.Properties.ContentLength != nil && *b.Properties.ContentLength > bound {
				return nil, runID, &boundedread.Error{File: fmt.Sprintf("container %s: blob %s", name, *b.Name), What: what, Size: *b.Properties.ContentLength, Bound: bound}
			}
			items = append(items, item{*b.Name, shard, file})
		}
	}
	dirs := map[string]bool{}
	n := 0
	for _, it := range items {
		local := filepath.Join(dest, it.shard, filepath.FromSlash(it.file))
		if err := os.MkdirAll(filepath.Dir(local), 0o755); err != nil {
			return nil, runID, err
		}
		f, err := os.OpenFile(local, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, runID, err
		}
		_, err = c.NewBlobClient(it.name).DownloadFile(ctx, f, nil)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, runID, fmt.Errorf("downloading %s from container %s: %s", it.name, name, target.DescribeCallErr(err))
		}
		dirs[filepath.Join(dest, it.shard)] = true
		n++
	}
	if n == 0 {
		return nil, runID, fmt.Errorf("container %s on %s holds nothing under %s: no shard of run %s uploaded its results there", name, t.Desc, prefix, runID)
	}
	out := make([]string, 0, len(dirs))
	for d := range dirs {
		out = append(out, d)
	}
	sort.Strings(out)
	return out, runID, nil
}
