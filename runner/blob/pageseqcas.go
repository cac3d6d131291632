package blob

import (
	"context"
	"strconv"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// PageSeqCAS is blob.page-seqnum-cas: actors use a page blob's sequence
// number as a compare-and-swap counter.
//
// Which call may carry which condition decides the design (REST reference:
// Put Page, Set Blob Properties). The x-ms-if-sequence-number-le/lt/eq
// conditions are accepted by Put Page and Clear Pages only, and neither
// changes the number; Set Blob Properties changes it
// (x-ms-sequence-number-action max, update, increment) but accepts only the
// ETag, date and lease conditions. So one CAS from N is two calls:
//
//  1. Put Page with x-ms-if-sequence-number-eq: N, writing a record (the
//     actor's tag and N) to the page of slot N+1: it succeeds only while the
//     number is N, and gives the blob a new ETag E;
//  2. Set Blob Properties, action increment, with If-Match: E: it succeeds
//     only if no write came between, so the number it raises is still N.
//
// Two actors that both read N can both pass step 1 (the number has not
// moved), but the second Put Page changes the ETag, so at most one of them
// passes step 2; once one has, the number is N+1 and every later Put Page
// conditioned on N is refused (412 SequenceNumberConditionNotMet). The
// increment (rather than update to N+1) makes the answer's
// x-ms-blob-sequence-number a witness: an acknowledged CAS from N must read
// N+1, and one that reads more shows that the number had moved under a
// write conditioned on N. The increment records its claim "N TAG" as its
// input value; the seqnum-chain check judges the chain of numbers from
// those claims and the answers.
//
// Either step losing (412) sends the actor back to read the number; a step
// of unknown outcome is settled by the read that follows it (the increment
// carries If-Match on an ETag, so the actor path never retries it after an
// answer that may have applied).
type PageSeqCAS struct{ B *Blobs }

// PageSeqSlots is how many page-sized records a CAS blob holds: the record
// of the CAS to N goes to page N mod PageSeqSlots.
const PageSeqSlots = 64

func init() {
	workload.Register("blob.page-seqnum-cas", func(scenarios.Workload, *target.Target) (workload.Workload, error) { return &PageSeqCAS{}, nil })
}

func (w *PageSeqCAS) Setup(ctx context.Context, e *workload.Env) error {
	w.B = newBlobs(e)
	// Each blob starts at sequence number 0, which its creation records
	// as its claim.
	return setupKeys(ctx, e, w.B, func(a *workload.Actor, k string) checks.Op {
		return w.B.CreatePage(ctx, a, k, PageSeqSlots*PageSize, 0, PageConds{}, checks.CounterValue{N: 0, Tag: a.Tag()}.Format(0), nil)
	})
}

func (w *PageSeqCAS) Iterate(ctx context.Context, a *workload.Actor) {
	key := workload.KeyName(a.Key())
	read := w.B.PageProps(ctx, a, key, PageConds{})
	if read.Outcome != checks.OK {
		return
	}
	n, err := strconv.ParseInt(read.Out.Value, 10, 64)
	if err != nil {
		return // no number read: nothing to condition on
	}
	put := w.B.PutPage(ctx, a, key, ((n+1)%PageSeqSlots)*PageSize, func() string {
		return checks.CounterValue{N: n, Tag: a.Tag()}.Format(0)
	}, PageConds{SeqEQ: &n}, ConflictSeqNum)
	if put.Outcome != checks.OK || put.Out.ETag == "" {
		return
	}
	w.B.SetSeqNum(ctx, a, key, SeqIncrement, nil, PageConds{IfMatch: put.Out.ETag}, func() string {
		return checks.CounterValue{N: n, Tag: a.Tag()}.Format(0)
	}, ConflictPrecondition)
}

func (w *PageSeqCAS) Final(ctx context.Context, e *workload.Env) error {
	keys := make([]string, e.Keys)
	for i := range keys {
		keys[i] = workload.KeyName(i)
	}
	workload.FinalReads(ctx, e, keys, func(ctx context.Context, a *workload.Actor, k string) { w.B.PageProps(ctx, a, k, PageConds{}) })
	return nil
}
