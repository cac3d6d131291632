package blob

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// containerETag is container.etag: optimistic concurrency on containers
// with date conditions, each operation with the headers it supports (REST
// reference): Set Container ACL takes If-Modified-Since and
// If-Unmodified-Since, Set Container Metadata only If-Modified-Since,
// Delete Container both. Actors read a container's properties (its
// Last-Modified), then race to set its ACL "if unmodified since" what they
// read, set metadata "if modified since" it, and now and then try to delete
// it "if unmodified since" a day before it existed, which must be refused
// with 412. date-conditions checks every answer against the Last-Modified
// values the service returned.
type containerETag struct {
	mu   sync.Mutex
	seen map[int]map[string]time.Time // actor -> container -> Last-Modified it last saw
}

func init() {
	workload.Register("container.etag", func(scenarios.Workload, *target.Target) (workload.Workload, error) {
		return &containerETag{seen: map[int]map[string]time.Time{}}, nil
	})
}

func (w *containerETag) Setup(ctx context.Context, e *workload.Env) error {
	return containersSetup(ctx, e)
}

func (w *containerETag) remember(actor int, name string, op checks.Op) {
	lm, err := http.ParseTime(op.Out.LastModified)
	if op.Outcome != checks.OK || err != nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen[actor] == nil {
		w.seen[actor] = map[string]time.Time{}
	}
	w.seen[actor][name] = lm
}

func (w *containerETag) lastSeen(actor int, name string) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	t, ok := w.seen[actor][name]
	return t, ok
}

func (w *containerETag) Iterate(ctx context.Context, a *workload.Actor) {
	name := containerName(a.Env, a.Key())
	c := a.Env.Target.Blob.NewContainerClient(name)
	lm, ok := w.lastSeen(a.ID, name)
	r := a.Rand.Float64()
	switch {
	case !ok || r < 0.3:
		w.remember(a.ID, name, containerGetProps(ctx, a, c, name))
	case r < 0.7:
		w.remember(a.ID, name, containerSetACL(ctx, a, c, name, containerCall{IfUnmodifiedSince: lm}))
	case r < 0.9:
		w.remember(a.ID, name, containerSetMeta(ctx, a, c, name, containerCall{IfModifiedSince: lm}))
	default:
		// Unmodified since a day before it was created: must be refused.
		containerDelete(ctx, a, c, name, containerCall{IfUnmodifiedSince: lm.Add(-24 * time.Hour)})
	}
}

func (w *containerETag) Final(ctx context.Context, e *workload.Env) error {
	containersFinal(ctx, e)
	return nil
}
