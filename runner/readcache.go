package runner

import (
	"context"

	"github.com/stormcheck/stormcheck/checks"
)

// cachedRead is the last version of a blob an actor read.
type cachedRead struct{ etag, value, lastModified string }

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
func (b *blobs) read(ctx context.Context, a *Actor, key string, conditional, byDate float64) (cachedRead, bool) {
	if a.cache == nil {
		a.cache = map[string]cachedRead{}
	}
	c, have := a.cache[key]
	ro := readOpts{}
	if have && conditional > 0 && a.Rand.Float64() < conditional {
		if byDate > 0 && a.Rand.Float64() < byDate && c.lastModified != "" {
			ro.IfModifiedSince = c.lastModified
		} else {
			ro.IfNoneMatch = c.etag
		}
	}
	op := b.get(ctx, a, key, ro)
	switch {
	case op.Outcome != checks.OK:
		return cachedRead{}, false
	case op.Out.Status == 304:
		return c, true
	case op.Out.ETag == "":
		return cachedRead{}, false
	}
	c = cachedRead{etag: op.Out.ETag, value: op.Out.Value, lastModified: op.Out.LastModified}
	a.cache[key] = c
	return c, true
}
