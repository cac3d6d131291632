package blob

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/pageblob"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/workload"
)

// PageSize is a page blob's page: every write and clear is aligned to it,
// and a page blob's size is a multiple of it (Put Page, Put Blob).
const PageSize = 512

// The page-blob operations as a history records them.
const (
	KindPageCreate = "blob.page.create" // Put Blob, x-ms-blob-type: PageBlob
	KindPagePut    = "blob.page.put"    // Put Page, x-ms-page-write: update
	KindPageClear  = "blob.page.clear"  // Put Page, x-ms-page-write: clear
	KindPageRanges = "blob.page.ranges" // Get Page Ranges
	KindPageSeqNum = "blob.page.seqnum" // Set Blob Properties, x-ms-sequence-number-action
	KindPageResize = "blob.page.resize" // Set Blob Properties, x-ms-blob-content-length
	KindPageProps  = "blob.page.props"  // Get Blob Properties (the sequence number)
)

// ConflictSeqNum is the documented lost race of a write conditioned on a
// page blob's sequence number (x-ms-if-sequence-number-le/lt/eq): 412
// SequenceNumberConditionNotMet; an ETag condition that fails is 412 too.
var ConflictSeqNum = []workload.Expect{{Status: 412}}

// PageConds are the conditions a page-blob call may carry. The sequence
// number conditions are accepted by Put Page and Clear Pages only (Set Blob
// Properties, Get Page Ranges and Put Blob take the ETag, date and lease
// conditions, not these): a call that does not accept one does not send it.
type PageConds struct {
	// SeqLE, SeqLT, SeqEQ are x-ms-if-sequence-number-le / -lt / -eq.
	SeqLE, SeqLT, SeqEQ *int64
	// IfMatch, IfNoneMatch are ETag conditions ("*" for any).
	IfMatch, IfNoneMatch string
	// LeaseID is x-ms-lease-id.
	LeaseID string
}

// input is the record of the conditions: what the wire carries of them
// replaces it (workload.SentInput); the sequence-number conditions are
// named in the recorded value by the caller where a check needs them.
func (c PageConds) input() checks.Input {
	return checks.Input{IfMatch: c.IfMatch, IfNoneMatch: c.IfNoneMatch, LeaseID: c.LeaseID}
}

func (c PageConds) access() *blob.AccessConditions {
	in := c.input()
	a := &blob.AccessConditions{ModifiedAccessConditions: modified(in)}
	if c.LeaseID != "" {
		a.LeaseAccessConditions = &blob.LeaseAccessConditions{LeaseID: &in.LeaseID}
	}
	return a
}

func (c PageConds) seq() *pageblob.SequenceNumberAccessConditions {
	if c.SeqLE == nil && c.SeqLT == nil && c.SeqEQ == nil {
		return nil
	}
	return &pageblob.SequenceNumberAccessConditions{
		IfSequenceNumberLessThanOrEqualTo: c.SeqLE, IfSequenceNumberLessThan: c.SeqLT, IfSequenceNumberEqualTo: c.SeqEQ,
	}
}

// Page is a page blob client for key.
func (b *Blobs) Page(key string) *pageblob.Client { return b.C.NewPageBlobClient(key) }

// CreatePage creates (or replaces) a page blob of size bytes with the
// initial sequence number seq. value is recorded as the call's input.
func (b *Blobs) CreatePage(ctx context.Context, a *workload.Actor, key string, size, seq int64, c PageConds, value string, conflicts []workload.Expect) checks.Op {
	return a.Do(ctx, workload.Call{Kind: KindPageCreate, Key: key, Conflicts: conflicts}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		in := c.input()
		in.Value = value
		_, err := b.Page(key).Create(ctx, size, &pageblob.CreateOptions{SequenceNumber: &seq, AccessConditions: c.access()})
		return in, "", err
	})
}

// PutPage writes one page-aligned range at off: value(), zero-padded to a
// whole number of pages, fresh per attempt (every write attempt unique).
func (b *Blobs) PutPage(ctx context.Context, a *workload.Actor, key string, off int64, value func() string, c PageConds, conflicts []workload.Expect) checks.Op {
	return a.Do(ctx, workload.Call{Kind: KindPagePut, Key: key, Conflicts: conflicts}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		in := c.input()
		in.Value = value()
		body := PageBody(in.Value)
		_, err := b.Page(key).UploadPages(ctx, streaming.NopCloser(bytes.NewReader(body)), blob.HTTPRange{Offset: off, Count: int64(len(body))},
			&pageblob.UploadPagesOptions{SequenceNumberAccessConditions: c.seq(), AccessConditions: c.access()})
		return in, "", err
	})
}

// PageBody is s followed by zeros up to the next page boundary (one page
// for an empty s).
func PageBody(s string) []byte {
	n := max(1, (len(s)+PageSize-1)/PageSize) * PageSize
	body := make([]byte, n)
	copy(body, s)
	return body
}

// ClearPages clears the pages of [off, off+n).
func (b *Blobs) ClearPages(ctx context.Context, a *workload.Actor, key string, off, n int64, c PageConds, conflicts []workload.Expect) checks.Op {
	return a.Do(ctx, workload.Call{Kind: KindPageClear, Key: key, Conflicts: conflicts}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		_, err := b.Page(key).ClearPages(ctx, blob.HTTPRange{Offset: off, Count: n},
			&pageblob.ClearPagesOptions{SequenceNumberAccessConditions: c.seq(), AccessConditions: c.access()})
		return c.input(), "", err
	})
}

// PageRanges lists the valid page ranges (the first page of the listing),
// recorded as the value "START-END,..." (inclusive byte offsets, as the
// service lists them); with prevSnapshot, the ranges changed since it.
func (b *Blobs) PageRanges(ctx context.Context, a *workload.Actor, key, prevSnapshot string, c PageConds) checks.Op {
	return a.Do(ctx, workload.Call{Kind: KindPageRanges, Key: key}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		if prevSnapshot != "" {
			p := b.Page(key).NewGetPageRangesDiffPager(&pageblob.GetPageRangesDiffOptions{PrevSnapshot: &prevSnapshot, AccessConditions: c.access()})
			r, err := p.NextPage(ctx)
			return c.input(), FormatRanges(r.PageRange), err
		}
		p := b.Page(key).NewGetPageRangesPager(&pageblob.GetPageRangesOptions{AccessConditions: c.access()})
		r, err := p.NextPage(ctx)
		return c.input(), FormatRanges(r.PageRange), err
	})
}

// FormatRanges writes page ranges as "START-END,..." (inclusive offsets).
func FormatRanges(rs []*pageblob.PageRange) string {
	parts := make([]string, 0, len(rs))
	for _, r := range rs {
		if r != nil && r.Start != nil && r.End != nil {
			parts = append(parts, fmt.Sprintf("%d-%d", *r.Start, *r.End))
		}
	}
	return strings.Join(parts, ",")
}

// SeqAction is a Set Blob Properties sequence-number action.
type SeqAction = pageblob.SequenceNumberActionType

// The sequence-number actions (x-ms-sequence-number-action).
const (
	SeqMax       = pageblob.SequenceNumberActionTypeMax
	SeqUpdate    = pageblob.SequenceNumberActionTypeUpdate
	SeqIncrement = pageblob.SequenceNumberActionTypeIncrement
)

// SetSeqNum is Set Blob Properties with a sequence-number action: max and
// update take n, increment takes none. The answer's
// x-ms-blob-sequence-number is recorded as the value read. value is
// recorded as the call's input (a claim a check reads: which number the
// caller conditioned the change on).
func (b *Blobs) SetSeqNum(ctx context.Context, a *workload.Actor, key string, action SeqAction, n *int64, c PageConds, value func() string, conflicts []workload.Expect) checks.Op {
	return a.Do(ctx, workload.Call{Kind: KindPageSeqNum, Key: key, Conflicts: conflicts}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		in := c.input()
		if value != nil {
			in.Value = value()
		}
		r, err := b.Page(key).UpdateSequenceNumber(ctx, &pageblob.UpdateSequenceNumberOptions{ActionType: &action, SequenceNumber: n, AccessConditions: c.access()})
		return in, formatSeq(r.BlobSequenceNumber), err
	})
}

// Resize is Set Blob Properties with x-ms-blob-content-length.
func (b *Blobs) Resize(ctx context.Context, a *workload.Actor, key string, size int64, c PageConds, conflicts []workload.Expect) checks.Op {
	return a.Do(ctx, workload.Call{Kind: KindPageResize, Key: key, Conflicts: conflicts}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		_, err := b.Page(key).Resize(ctx, size, &pageblob.ResizeOptions{AccessConditions: c.access()})
		return c.input(), "", err
	})
}

// PageProps is Get Blob Properties on a page blob: the value read is its
// sequence number (x-ms-blob-sequence-number), in decimal.
func (b *Blobs) PageProps(ctx context.Context, a *workload.Actor, key string, c PageConds) checks.Op {
	return a.Do(ctx, workload.Call{Kind: KindPageProps, Key: key}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		r, err := b.Page(key).GetProperties(ctx, &blob.GetPropertiesOptions{AccessConditions: c.access()})
		return c.input(), formatSeq(r.BlobSequenceNumber), err
	})
}

func formatSeq(n *int64) string {
	if n == nil {
		return ""
	}
	return strconv.FormatInt(*n, 10)
}
