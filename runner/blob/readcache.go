package blob

import (
	"context"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/workload"
)

// read returns a blob's current value and ETag. With probability
// conditional, and when the actor holds a cached version, it asks with
// If-None-Match on the cached ETag: a 304 means the cached value is current
// (the checklist's "GET with a conditional header" caching pattern). ok is
// false when the read failed.
//
// With probability byDate such a conditional read asks If-Modified-Since
// the cached Last-Modified instead. Last-Modified has one-second precision,
// so a 304 then may hide a change within that second: the actor's next
// If-Match write then gets 412, as it should.
func (b *Blobs) read(ctx context.Context, a *workload.Actor, key string, conditional, byDate float64) (workload.CachedRead, bool) {
	if a.Cache == nil {
		a.Cache = map[string]workload.CachedRead{}
	}
	c, have := a.Cache[key]
	ro := readOpts{}
	if have && conditional > 0 && a.Rand.Float64() < conditional {
		if byDate > 0 && a.Rand.Float64() < byDate && c.LastModified != "" {
			ro.IfModifiedSince = c.LastModified
		} else {
			ro.IfNoneMatch = c.Etag
		}
	}
	op := b.get(ctx, a, key, ro)
	switch {
	case op.Outcome != checks.OK:
		return workload.CachedRead{}, false
	case op.Out.Status == 304:
		return c, true
	case op.Out.ETag == "":
		return workload.CachedRead{}, false
	}
	c = workload.CachedRead{Etag: op.Out.ETag, Value: op.Out.Value, LastModified: op.Out.LastModified}
	a.Cache[key] = c
	return c, true
}
