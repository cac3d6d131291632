package blob

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
)

// The documented answers that mean a race was lost.
var (
	ConflictPrecondition = []workload.Expect{{Status: 412}}
	ConflictExists       = []workload.Expect{{Status: 409, Code: "BlobAlreadyExists"}}
	conflictLease        = []workload.Expect{{Status: 409, Code: "LeaseAlreadyPresent"}}
)

// blobs holds one workload's container and its blob clients.
type Blobs struct {
	C *container.Client
	// clients caches a block blob client per key (a client is safe for
	// concurrent use; making one per call costs several allocations).
	clients sync.Map // string -> *blockblob.Client
	cached  atomic.Int64
}

// maxCachedClients bounds the cache: workloads that name a new blob per
// call make a client per call instead of growing it.
const maxCachedClients = 4096

func newBlobs(e *workload.Env) *Blobs {
	return &Blobs{C: e.Target.Blob.NewContainerClient(e.Prefix)}
}

func (b *Blobs) block(key string) *blockblob.Client {
	if c, ok := b.clients.Load(key); ok {
		return c.(*blockblob.Client)
	}
	c := b.C.NewBlockBlobClient(key)
	if b.cached.Load() >= maxCachedClients {
		return c
	}
	got, loaded := b.clients.LoadOrStore(key, c)
	if !loaded {
		b.cached.Add(1)
	}
	return got.(*blockblob.Client)
}

// createContainer creates the workload's container, recorded as setup.
func (b *Blobs) createContainer(ctx context.Context, a *workload.Actor, name string) checks.Op {
	return a.Do(ctx, workload.Call{Kind: "container.create", Key: name}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		_, err := b.C.Create(ctx, nil)
		return checks.Input{}, "", err
	})
}

// readOpts are a read's optional conditions.
type readOpts struct {
	LeaseID string
	// IfNoneMatch is a cached ETag: the service answers 304 while the blob
	// is unchanged (the checklist's caching pattern).
	IfNoneMatch string
	// IfModifiedSince is a cached Last-Modified: 304 while not modified
	// since then (the checklist's "conditional header for modification
	// time").
	IfModifiedSince string
}

// get reads a blob and returns its content (empty on a 304).
func (b *Blobs) get(ctx context.Context, a *workload.Actor, key string, ro readOpts) checks.Op {
	return a.Do(ctx, workload.Call{Kind: "blob.get", Key: key}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		in := checks.Input{LeaseID: ro.LeaseID, IfNoneMatch: ro.IfNoneMatch, IfModifiedSince: ro.IfModifiedSince}
		var o *blob.DownloadStreamOptions // nil for a plain read, as the SDK's own callers pass
		if in.IfNoneMatch != "" || in.IfModifiedSince != "" || ro.LeaseID != "" {
			o = &blob.DownloadStreamOptions{AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: modified(in)}}
			if ro.LeaseID != "" {
				lease := ro.LeaseID // its own variable: a pointer into in would move in to the heap
				o.AccessConditions.LeaseAccessConditions = &blob.LeaseAccessConditions{LeaseID: &lease}
			}
		}
		r, err := b.block(key).DownloadStream(ctx, o)
		if err != nil || r.Body == nil { // azblob answers a 304 without error and without a body
			return in, "", err
		}
		defer r.Body.Close()
		value, err := readBody(r.Body)
		return in, value, err
	})
}

// bodyBufs are the buffers readBody reads into, reused across calls.
var bodyBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBody bounds the buffers kept for reuse: a large payload's buffer
// is left to the collector.
const maxPooledBody = 64 << 10

// readBody reads a response body to its end as a string: one allocation,
// the string, where io.ReadAll would add its growing buffer.
func readBody(r io.Reader) (string, error) {
	buf := bodyBufs.Get().(*bytes.Buffer)
	buf.Reset()
	_, err := buf.ReadFrom(r)
	s := buf.String()
	if buf.Cap() <= maxPooledBody {
		bodyBufs.Put(buf)
	}
	return s, err
}

// put writes value; with ifMatch it is conditional, with leaseID it is a
// leased write. kind names the recorded operation.
func (b *Blobs) put(ctx context.Context, a *workload.Actor, kind, key string, in func() checks.Input, conflicts []workload.Expect) checks.Op {
	return a.Do(ctx, workload.Call{Kind: kind, Key: key, Conflicts: conflicts}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		i := in() // a fresh value per attempt: every write attempt is unique
		o := &blockblob.UploadOptions{AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: modified(i)}}
		if i.LeaseID != "" {
			o.AccessConditions.LeaseAccessConditions = &blob.LeaseAccessConditions{LeaseID: &i.LeaseID}
		}
		_, err := b.block(key).Upload(ctx, streaming.NopCloser(strings.NewReader(i.Value)), o)
		return i, "", err
	})
}

// modified turns an input's conditions into the SDK's. Dates are HTTP
// dates (as recorded); one that does not parse is not sent.
func modified(i checks.Input) *blob.ModifiedAccessConditions {
	m := &blob.ModifiedAccessConditions{}
	if i.IfMatch != "" {
		et := azcore.ETag(i.IfMatch)
		m.IfMatch = &et
	}
	if i.IfNoneMatch != "" {
		et := azcore.ETag(i.IfNoneMatch)
		m.IfNoneMatch = &et
	}
	if i.IfModifiedSince != "" { // parse only what is there: a failed parse allocates its error
		if t, err := http.ParseTime(i.IfModifiedSince); err == nil {
			m.IfModifiedSince = &t
		}
	}
	if i.IfUnmodifiedSince != "" {
		if t, err := http.ParseTime(i.IfUnmodifiedSince); err == nil {
			m.IfUnmodifiedSince = &t
		}
	}
	return m
}

// keysSetup creates the container and every key k0..kN-1 with the value 0.
func keysSetup(ctx context.Context, e *workload.Env, b *Blobs) error {
	if e.AttachOnly {
		return nil
	}
	a := e.Actor(checks.ActorSetup)
	if op := b.createContainer(ctx, a, e.Prefix); op.Outcome != checks.OK {
		return target.OpError("create container", &op)
	}
	for i := 0; i < e.Keys; i++ {
		op := b.put(ctx, a, "blob.put", workload.KeyName(i), func() checks.Input {
			return checks.Input{Value: checks.CounterValue{N: 0, Tag: a.Tag()}.Format(e.Params.PayloadBytes)}
		}, nil)
		if op.Outcome != checks.OK {
			return target.OpError("create "+workload.KeyName(i), &op)
		}
	}
	return nil
}

// keysFinal reads every key k0..kN-1 once the load has stopped.
func keysFinal(ctx context.Context, e *workload.Env, b *Blobs) {
	keys := make([]string, e.Keys)
	for i := range keys {
		keys[i] = workload.KeyName(i)
	}
	workload.FinalReads(ctx, e, keys, func(ctx context.Context, a *workload.Actor, k string) { b.get(ctx, a, k, readOpts{}) })
}
