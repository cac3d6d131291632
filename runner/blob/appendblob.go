package blob

import (
	"context"
	"io"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/appendblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/workload"
)

// Op kinds of the append-blob calls, as recorded.
const (
	KindAppendCreate = "blob.append.create"
	KindAppend       = "blob.append"
	KindAppendSeal   = "blob.append.seal"
	KindBlobProps    = "blob.props"
)

// The documented answers of Append Block that mean a race was lost or a
// limit reached (Append Block, "Remarks"): the blob is no longer as long
// as the append position said, or the append would take it past the
// maximum size asked for. Neither is an error.
var (
	conflictAppendPos = workload.Expect{Status: 412, Code: "AppendPositionConditionNotMet"}
	conflictMaxSize   = workload.Expect{Status: 412, Code: "MaxBlobSizeConditionNotMet"}
)

// AppendConds are an append-blob call's conditions; the zero value sends
// none.
type AppendConds struct {
	// IfMatch, IfNoneMatch: ETag conditions ("*" for any).
	IfMatch, IfNoneMatch string
	// LeaseID is sent as x-ms-lease-id.
	LeaseID string
	// AppendPos, MaxSize: Append Block's conditions (nil: not sent).
	AppendPos, MaxSize *int64
}

// input is the recorded input of a call with these conditions.
func (c AppendConds) input(value string) checks.Input {
	return checks.Input{IfMatch: c.IfMatch, IfNoneMatch: c.IfNoneMatch, LeaseID: c.LeaseID,
		AppendPos: c.AppendPos, MaxSize: c.MaxSize, Value: value}
}

// access turns the recorded input's ETag and lease conditions into the
// SDK's.
func access(in checks.Input) *blob.AccessConditions {
	ac := &blob.AccessConditions{ModifiedAccessConditions: modified(in)}
	if in.LeaseID != "" {
		ac.LeaseAccessConditions = &blob.LeaseAccessConditions{LeaseID: &in.LeaseID}
	}
	return ac
}

// conflicts are the lost races of a call with these conditions: a 412 on
// its append position or maximum size; a 412 on an If-Match it sent; a
// 409 BlobAlreadyExists on a create with If-None-Match: *.
func (c AppendConds) conflicts() []workload.Expect {
	var out []workload.Expect
	if c.AppendPos != nil {
		out = append(out, conflictAppendPos)
	}
	if c.MaxSize != nil {
		out = append(out, conflictMaxSize)
	}
	if c.IfMatch != "" {
		out = append(out, workload.Expect{Status: 412, Code: "ConditionNotMet"})
	}
	if c.IfNoneMatch == "*" {
		out = append(out, ConflictExists...)
	}
	return out
}

// appendClient is key's client as an append blob.
func (b *Blobs) appendClient(key string) *appendblob.Client { return b.C.NewAppendBlobClient(key) }

// CreateAppend creates key as an empty append blob (Put Blob with
// x-ms-blob-type: AppendBlob), under c's ETag and lease conditions.
func (b *Blobs) CreateAppend(ctx context.Context, a *workload.Actor, key string, c AppendConds) checks.Op {
	return a.Do(ctx, workload.Call{Kind: KindAppendCreate, Key: key, Conflicts: c.conflicts()}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		in := c.input("")
		_, err := b.appendClient(key).Create(ctx, &appendblob.CreateOptions{AccessConditions: access(in)})
		return in, "", err
	})
}

// AppendBlock appends value to key under c's conditions. Every attempt
// sends the value value(try) returns, with the same conditions: with an
// append position, a retry after an attempt that landed is refused (412),
// so it can never land twice. The service's x-ms-blob-append-offset is
// recorded as Out.AppendOffset.
func (b *Blobs) AppendBlock(ctx context.Context, a *workload.Actor, key string, c AppendConds, value func(try int) string) checks.Op {
	return a.Do(ctx, workload.Call{Kind: KindAppend, Key: key, Conflicts: c.conflicts()}, func(ctx context.Context, try int) (checks.Input, string, error) {
		in := c.input(value(try))
		_, err := b.appendClient(key).AppendBlock(ctx, streaming.NopCloser(strings.NewReader(in.Value)), &appendblob.AppendBlockOptions{
			AccessConditions:               access(in),
			AppendPositionAccessConditions: &appendblob.AppendPositionAccessConditions{AppendPosition: c.AppendPos, MaxSize: c.MaxSize},
		})
		return in, "", err
	})
}

// Seal seals key (Seal Append Blob): no append succeeds after it. The
// service takes the append position as a condition of a seal too.
func (b *Blobs) Seal(ctx context.Context, a *workload.Actor, key string, c AppendConds) checks.Op {
	c.MaxSize = nil // Seal takes no maximum size
	return a.Do(ctx, workload.Call{Kind: KindAppendSeal, Key: key, Conflicts: c.conflicts()}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		in := c.input("")
		_, err := b.appendClient(key).Seal(ctx, &appendblob.SealOptions{
			AccessConditions:               access(in),
			AppendPositionAccessConditions: &appendblob.AppendPositionAccessConditions{AppendPosition: c.AppendPos},
		})
		return in, "", err
	})
}

// Props reads key's properties (Get Blob Properties); the recorded value
// is its length in bytes, in decimal, and n that length (-1 when the call
// did not answer with one).
func (b *Blobs) Props(ctx context.Context, a *workload.Actor, key string) (op checks.Op, n int64) {
	n = -1
	op = a.Do(ctx, workload.Call{Kind: KindBlobProps, Key: key}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		r, err := b.appendClient(key).GetProperties(ctx, nil)
		if err != nil || r.ContentLength == nil {
			return checks.Input{}, "", err
		}
		return checks.Input{}, strconv.FormatInt(*r.ContentLength, 10), nil
	})
	if op.Outcome == checks.OK {
		if v, err := strconv.ParseInt(op.Out.Value, 10, 64); err == nil {
			n = v
		}
	}
	return op, n
}

// ReadLog reads key whole (Get Blob), recorded as a log read
// (checks.KindBlobReadLog), whose content the history keeps whole.
func (b *Blobs) ReadLog(ctx context.Context, a *workload.Actor, key string) checks.Op {
	return a.Do(ctx, workload.Call{Kind: checks.KindBlobReadLog, Key: key}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		r, err := b.appendClient(key).DownloadStream(ctx, nil)
		if err != nil {
			return checks.Input{}, "", err
		}
		defer r.Body.Close()
		data, err := io.ReadAll(r.Body)
		return checks.Input{}, string(data), err
	})
}
