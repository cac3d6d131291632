package runner

import (
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	scblob "github.com/stormcheck/stormcheck/runner/blob"
)

// The append-blob calls against a real Azurite, each recorded through the
// actor: an append at the blob's length succeeds at that offset
// (x-ms-blob-append-offset recorded), an append at a stale position or past
// the maximum size is a lost race (conflict, 412 with its code), a stale
// If-Match too; a lease id on an unleased blob and an append after Seal
// are errors with the service's codes.
func TestAppendBlobCallsAreRecorded(t *testing.T) {
	ctx, b, a := blobCallsActor(t, "appendops")
	pos := func(n int64) *int64 { return &n }
	val := func(s string) func(int) string { return func(int) string { return s } }
	want := func(what string, op checks.Op, outcome checks.Outcome, status int, code string) {
		t.Helper()
		if op.Outcome != outcome || op.Out.Status != status || op.Out.ErrorCode != code {
			t.Errorf("%s: %s, want %s %d %s", what, op.String(), outcome, status, code)
		}
	}
	const key = "log"
	want("create", b.CreateAppend(ctx, a, key, scblob.AppendConds{IfNoneMatch: "*"}), checks.OK, 201, "")
	want("create again", b.CreateAppend(ctx, a, key, scblob.AppendConds{IfNoneMatch: "*"}), checks.Conflict, 409, "BlobAlreadyExists")
	first := b.AppendBlock(ctx, a, key, scblob.AppendConds{AppendPos: pos(0)}, val("abc"))
	want("append at 0", first, checks.OK, 201, "")
	if first.Out.AppendOffset == nil || *first.Out.AppendOffset != 0 || first.In.AppendPos == nil || *first.In.AppendPos != 0 {
		t.Errorf("append at 0 recorded offset %v, position %v", first.Out.AppendOffset, first.In.AppendPos)
	}
	want("append at a stale position", b.AppendBlock(ctx, a, key, scblob.AppendConds{AppendPos: pos(0)}, val("abc")), checks.Conflict, 412, "AppendPositionConditionNotMet")
	want("append past the maximum size", b.AppendBlock(ctx, a, key, scblob.AppendConds{AppendPos: pos(3), MaxSize: pos(5)}, val("abc")), checks.Conflict, 412, "MaxBlobSizeConditionNotMet")
	second := b.AppendBlock(ctx, a, key, scblob.AppendConds{AppendPos: pos(3), MaxSize: pos(6)}, val("def"))
	want("append up to the maximum size", second, checks.OK, 201, "")
	if second.Out.AppendOffset == nil || *second.Out.AppendOffset != 3 {
		t.Errorf("second append recorded offset %v, want 3", second.Out.AppendOffset)
	}
	want("append on a stale ETag", b.AppendBlock(ctx, a, key, scblob.AppendConds{IfMatch: first.Out.ETag}, val("x")), checks.Conflict, 412, "ConditionNotMet")
	want("append with a lease id, no lease", b.AppendBlock(ctx, a, key, scblob.AppendConds{LeaseID: "3b2f4c1e-0000-4000-8000-000000000001"}, val("x")), checks.Error, 412, "LeaseNotPresentWithBlobOperation")
	op, n := b.Props(ctx, a, key)
	if op.Outcome != checks.OK || n != 6 {
		t.Errorf("properties: %s, length %d, want 6", op.String(), n)
	}
	want("seal", b.Seal(ctx, a, key, scblob.AppendConds{AppendPos: pos(6)}), checks.OK, 200, "")
	want("append after seal", b.AppendBlock(ctx, a, key, scblob.AppendConds{AppendPos: pos(6)}, val("x")), checks.Error, 409, "BlobIsSealed")
	if got := b.ReadLog(ctx, a, key); got.Outcome != checks.OK || got.Out.Value != "abcdef" || got.Kind != checks.KindBlobReadLog {
		t.Errorf("log read: %s", got.String())
	}
}
