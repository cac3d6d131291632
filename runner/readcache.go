package runner

import (
	"context"

	"github.com/stormcheck/stormcheck/checks"
)

// cachedRead is the last version of a blob an actor read.
type cachedRead struct{ etag, value string }

// read returns a blob's current value and ETag. With probability
// conditional, and when the actor holds a cached version, it asks with
// If-None-Match on the cached ETag: a 304 means the cached value is current
// (the checklist's "GET with a conditional header" caching pattern). ok is
// false when the read failed.
func (b *blobs) read(ctx context.Context, a *Actor, key string, conditional float64) (value, etag string, ok bool) {
	if a.cache == nil {
		a.cache = map[string]cachedRead{}
	}
	c, have := a.cache[key]
	ro := readOpts{}
	if have && conditional > 0 && a.Rand.Float64() < conditional {
		ro.IfNoneMatch = c.etag
	}
	op := b.get(ctx, a, key, ro)
	switch {
	case op.Outcome != checks.OK:
		return "", "", false
	case op.Out.Status == 304:
		return c.value, c.etag, true
	case op.Out.ETag == "":
		return "", "", false
	}
	a.cache[key] = cachedRead{etag: op.Out.ETag, value: op.Out.Value}
	return op.Out.Value, op.Out.ETag, true
}
