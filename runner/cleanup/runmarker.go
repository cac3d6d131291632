package cleanup

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/stormcheck/stormcheck/runner/target"
)

// A run marker is how stormcheck recognises its own resources on a target,
// long after the run: before a run creates anything, it creates the empty
// container sc<run id> stamped with the metadata stormcheck_run=<run id> and
// stormcheck_created=<RFC 3339 time>. Every resource of the run is named
// sc<run id>-... (tables: sc<run id>... without hyphens), and the marker is
// deleted last, only once everything else is gone. A name of the same shape
// without its stamped marker is not stormcheck's and is never touched.
const (
	metaRun     = "stormcheck_run"
	metaCreated = "stormcheck_created"
)

// runIDPattern is a run id as newRunID makes them: 8 lower-case hex digits.
var runIDPattern = regexp.MustCompile(`^[0-9a-f]{8}$`)

// ValidRunID reports whether s has the shape of a run id.
func ValidRunID(s string) bool { return runIDPattern.MatchString(s) }

// markerName is the run's marker container.
func MarkerName(runID string) string { return "sc" + runID }

// runPrefix starts the name of every container and queue of the run.
func RunPrefix(runID string) string { return "sc" + runID + "-" }

// RunMark is a run found on a target by its marker.
type RunMark struct {
	ID      string
	Created time.Time
}

// markRun creates the run's marker container, stamped.
func MarkRun(ctx context.Context, t *target.Target, runID string, created time.Time) error {
	if t == nil || t.Blob == nil {
		return nil
	}
	id, at := runID, created.UTC().Format(time.RFC3339)
	_, err := t.Blob.CreateContainer(ctx, MarkerName(runID), &container.CreateOptions{
		Metadata: map[string]*string{metaRun: &id, metaCreated: &at},
	})
	var re *azcore.ResponseError
	if errors.As(err, &re) && re.ErrorCode == "ContainerAlreadyExists" {
		return fmt.Errorf("run id %s is in use on this target: its marker container %s exists (a run with this id is running, or left it); "+
			"nothing of it was touched: give another --run-id, or once that run is over delete what it left with 'stormcheck cleanup --run %s'",
			runID, MarkerName(runID), runID)
	}
	if err != nil {
		return fmt.Errorf("creating the run's marker container %s: %s", MarkerName(runID), target.DescribeCallErr(err))
	}
	return nil
}

// findRuns lists the runs whose stamped marker is on the target, oldest
// first. A container named like a marker without the stamp is someone
// else's.
func findRuns(ctx context.Context, t *target.Target) ([]RunMark, error) {
	if t == nil || t.Blob == nil {
		return nil, nil
	}
	prefix := "sc"
	pager := t.Blob.NewListContainersPager(&service.ListContainersOptions{
		Prefix: &prefix, Include: service.ListContainersInclude{Metadata: true},
	})
	var out []RunMark
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return out, fmt.Errorf("listing containers sc*: %s", target.DescribeCallErr(err))
		}
		for _, c := range page.ContainerItems {
			if c.Name == nil || len(*c.Name) != 10 || !ValidRunID((*c.Name)[2:]) {
				continue
			}
			if m, ok := markOf((*c.Name)[2:], c); ok {
				out = append(out, m)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out, nil
}

// markOf reads a marker's stamp: the run id must match the name, and the
// creation time is the stamp's (the container's Last-Modified if the stamp
// cannot be read).
func markOf(id string, c *service.ContainerItem) (RunMark, bool) {
	if Meta(c.Metadata, metaRun) != id {
		return RunMark{}, false
	}
	m := RunMark{ID: id}
	if at, err := time.Parse(time.RFC3339, Meta(c.Metadata, metaCreated)); err == nil {
		m.Created = at
	} else if c.Properties != nil && c.Properties.LastModified != nil {
		m.Created = *c.Properties.LastModified
	}
	return m, true
}

// meta reads a metadata value whatever the case the service gave its key.
func Meta(md map[string]*string, key string) string {
	for k, v := range md {
		if strings.EqualFold(k, key) && v != nil {
			return *v
		}
	}
	return ""
}

// NewRunID makes a new random run id, as a run makes its own (for runs
// whose shards must share one, e.g. stormcheck kube).
func NewRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
