package runner

import (
	"context"
	"strconv"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/stormcheck/stormcheck/checks"
	scblob "github.com/stormcheck/stormcheck/runner/blob"
)

// The page-blob ops, each through the shared actor path against a real
// Azurite: what each records (outcome, status, error code, the sequence
// number read) is what the service answered, and a failed sequence-number
// condition is the documented lost race (412 SequenceNumberConditionNotMet,
// outcome conflict), not an error.
func TestPageBlobOpsRecordWhatAzuriteAnswers(t *testing.T) {
	ctx, b, a := blobCallsActor(t, "pageops")
	i64 := func(n int64) *int64 { return &n }
	want := func(what string, op checks.Op, o checks.Outcome, status int, code string) checks.Op {
		t.Helper()
		if op.Outcome != o || op.Out.Status != status || (code != "" && op.Out.ErrorCode != code) {
			t.Errorf("%s: %s, want %s %d %s", what, op.String(), o, status, code)
		}
		return op
	}
	const key = "p"
	ctxb := context.Background()
	want("create", b.CreatePage(ctxb, a, key, 8*scblob.PageSize, 5, scblob.PageConds{}, "", nil), checks.OK, 201, "")
	if op := want("props", b.PageProps(ctxb, a, key, scblob.PageConds{}), checks.OK, 200, ""); op.Out.Value != "5" {
		t.Errorf("sequence number read %q, want 5", op.Out.Value)
	}
	page := func() string { return "rec " + a.Tag() }
	for _, c := range []struct {
		name   string
		conds  scblob.PageConds
		o      checks.Outcome
		status int
	}{
		{"eq 5 (true)", scblob.PageConds{SeqEQ: i64(5)}, checks.OK, 201},
		{"eq 4 (false)", scblob.PageConds{SeqEQ: i64(4)}, checks.Conflict, 412},
		{"lt 5 (false)", scblob.PageConds{SeqLT: i64(5)}, checks.Conflict, 412},
		{"lt 6 (true)", scblob.PageConds{SeqLT: i64(6)}, checks.OK, 201},
		{"le 4 (false)", scblob.PageConds{SeqLE: i64(4)}, checks.Conflict, 412},
		{"le 5 (true)", scblob.PageConds{SeqLE: i64(5)}, checks.OK, 201},
	} {
		code := ""
		if c.o == checks.Conflict {
			code = "SequenceNumberConditionNotMet"
		}
		want("put page "+c.name, b.PutPage(ctxb, a, key, 0, page, c.conds, scblob.ConflictSeqNum), c.o, c.status, code)
	}
	want("put page past the end", b.PutPage(ctxb, a, key, 8*scblob.PageSize, page, scblob.PageConds{}, nil), checks.Error, 416, "")
	put := want("put page 2", b.PutPage(ctxb, a, key, 2*scblob.PageSize, page, scblob.PageConds{}, nil), checks.OK, 201, "")
	if op := want("ranges", b.PageRanges(ctxb, a, key, "", scblob.PageConds{}), checks.OK, 200, ""); op.Out.Value != "0-511,1024-1535" {
		t.Errorf("page ranges %q, want 0-511,1024-1535", op.Out.Value)
	}
	want("clear eq 4 (false)", b.ClearPages(ctxb, a, key, 0, scblob.PageSize, scblob.PageConds{SeqEQ: i64(4)}, scblob.ConflictSeqNum), checks.Conflict, 412, "SequenceNumberConditionNotMet")
	want("clear eq 5", b.ClearPages(ctxb, a, key, 0, scblob.PageSize, scblob.PageConds{SeqEQ: i64(5)}, scblob.ConflictSeqNum), checks.OK, 201, "")
	if op := b.PageRanges(ctxb, a, key, "", scblob.PageConds{}); op.Out.Value != "1024-1535" {
		t.Errorf("page ranges after the clear %q, want 1024-1535", op.Out.Value)
	}
	// The sequence-number actions: increment, max (only raises), update.
	for _, c := range []struct {
		action scblob.SeqAction
		n      *int64
		want   int64
	}{{scblob.SeqIncrement, nil, 6}, {scblob.SeqMax, i64(3), 6}, {scblob.SeqMax, i64(9), 9}, {scblob.SeqUpdate, i64(2), 2}} {
		op := want("set sequence number "+string(c.action), b.SetSeqNum(ctxb, a, key, c.action, c.n, scblob.PageConds{}, nil, nil), checks.OK, 200, "")
		if op.Out.Value != strconv.FormatInt(c.want, 10) {
			t.Errorf("%s: sequence number %q, want %d", c.action, op.Out.Value, c.want)
		}
	}
	// If-Match on an ETag the blob no longer has: the increment is refused.
	want("increment if-match stale", b.SetSeqNum(ctxb, a, key, scblob.SeqIncrement, nil, scblob.PageConds{IfMatch: put.Out.ETag}, nil, scblob.ConflictPrecondition),
		checks.Conflict, 412, "ConditionNotMet")
	want("resize 1000 (not page aligned)", b.Resize(ctxb, a, key, 1000, scblob.PageConds{}, nil), checks.Error, 400, "")
	want("resize", b.Resize(ctxb, a, key, 16*scblob.PageSize, scblob.PageConds{}, nil), checks.OK, 200, "")
	// Lease conditions: under a lease, a write without its id is refused,
	// and with it accepted.
	lc, err := lease.NewBlobClient(b.Page(key), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lc.AcquireLease(ctx, -1, nil); err != nil {
		t.Fatal(err)
	}
	want("put page without the lease id", b.PutPage(ctxb, a, key, 0, page, scblob.PageConds{}, nil), checks.Error, 412, "LeaseIdMissing")
	want("increment without the lease id", b.SetSeqNum(ctxb, a, key, scblob.SeqIncrement, nil, scblob.PageConds{}, nil, nil), checks.Error, 412, "LeaseIdMissing")
	want("put page with the lease id", b.PutPage(ctxb, a, key, 0, page, scblob.PageConds{LeaseID: *lc.LeaseID()}, nil), checks.OK, 201, "")
	// Put Page on a block blob.
	if _, err := b.C.NewBlockBlobClient("block").UploadBuffer(ctx, []byte("x"), nil); err != nil {
		t.Fatal(err)
	}
	want("put page on a block blob", b.PutPage(ctxb, a, "block", 0, page, scblob.PageConds{}, nil), checks.Error, 409, "InvalidBlobType")
}
