package files

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/filerest"
	"github.com/stormcheck/stormcheck/runner/files/replaytest"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// replayEnv is a recording environment for workload w on tg.
func replayEnv(t *testing.T, kind string, tg *target.Target) (*workload.Env, *workload.Recorder, string) {
	path := filepath.Join(t.TempDir(), "history.jsonl.zst")
	rec, err := workload.NewRecorder(path, time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	w := scenarios.Workload{Name: "w", Kind: kind, Keys: 1, Actors: 2}
	sc := &scenarios.Scenario{Timeout: 10 * time.Second, Retry: scenarios.Retry{MaxAttempts: 1, Base: time.Millisecond, Max: time.Millisecond}}
	return workload.NewEnv(w, sc, rec, tg, "rp"), rec, path
}

func readHistory(t *testing.T, rec *workload.Recorder, path string) []checks.Op {
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	var ops []checks.Op
	if err := checks.ReadHistoryFile(path, func(op *checks.Op) error { ops = append(ops, *op); return nil }); err != nil {
		t.Fatal(err)
	}
	return ops
}

// TestFileLeaseReplay drives files.rest-lease's calls through the real
// azfile client against recorded live answers of Azure Files. What it
// proves is limited to this: the requests carry what the recordings'
// requests carried (lease action, infinite duration, proposed id, the
// lease id on the holder's write and release and none on the other
// write, the range), and each recorded answer is classified as the
// workload and the file-lease check need (201 ok with the lease id; 409
// LeaseAlreadyPresent and 412 LeaseIdMissing the documented conflicts;
// 200 release). It does not show that Azure Files behaves so under
// concurrency: only a run against an account does.
func TestFileLeaseReplay(t *testing.T) {
	tg, rp := replaytest.Target(t, replaytest.ShareCreated, replaytest.FileCreated, replaytest.Acquired, replaytest.AcquireRefused, replaytest.PutNoLease, replaytest.PutLeased, replaytest.Released, replaytest.FileRead, replaytest.ShareDeleted)
	e, rec, path := replayEnv(t, "files.rest-lease", tg)
	f, _ := workload.Lookup("files.rest-lease")
	wl, err := f(scenarios.Workload{Kind: "files.rest-lease"}, tg)
	if err != nil {
		t.Fatal(err)
	}
	w := wl.(*restLease)
	ctx := context.Background()
	if err := w.Setup(ctx, e); err != nil {
		t.Fatal(err)
	}
	holder, other := e.Actor(0), e.Actor(1)
	id := leaseID(holder)
	w.acquire(ctx, holder, "k0", id)
	w.acquire(ctx, other, "k0", leaseID(other))
	w.r.putRange(ctx, other, "k0", 0, make([]byte, leaseWrite), "", "", leaseIDMissing)
	w.r.putRange(ctx, holder, "k0", 0, make([]byte, leaseWrite), id, "")
	w.release(ctx, holder, "k0", id)
	if err := w.Final(ctx, e); err != nil {
		t.Fatal(err)
	}
	if rp.Left() != 0 {
		t.Errorf("%d recorded exchanges not requested", rp.Left())
	}
	ops := readHistory(t, rec, path)
	want := []struct {
		kind    string
		outcome checks.Outcome
		status  int
		code    string
		lease   string
	}{
		{OpRESTShareCreate, checks.OK, 201, "", ""},
		{OpRESTCreate, checks.OK, 201, "", ""},
		{OpRESTAcquire, checks.OK, 201, "", id},
		{OpRESTAcquire, checks.Conflict, 409, "LeaseAlreadyPresent", "*"},
		{OpRESTPutRange, checks.Conflict, 412, "LeaseIdMissing", ""},
		{OpRESTPutRange, checks.OK, 201, "", id},
		{OpRESTRelease, checks.OK, 200, "", id},
		{OpRESTGet, checks.OK, 200, "", ""},
		{OpRESTShareDelete, checks.OK, 202, "", ""},
	}
	if len(ops) != len(want) {
		t.Fatalf("%d ops recorded, want %d: %+v", len(ops), len(want), ops)
	}
	for i, x := range want {
		op := ops[i]
		if op.Kind != x.kind || op.Outcome != x.outcome || op.Out.Status != x.status || op.Out.ErrorCode != x.code ||
			(x.lease != "*" && op.In.LeaseID != x.lease) || op.Out.RequestID == "" {
			t.Errorf("op %d: %s %s %d %q lease %q request %q; want %s %s %d %q lease %q", i, op.Kind, op.Outcome, op.Out.Status, op.Out.ErrorCode, op.In.LeaseID, op.Out.RequestID,
				x.kind, x.outcome, x.status, x.code, x.lease)
		}
	}
	c := filerest.NewFileLease()
	for i := range ops {
		c.Observe(&ops[i])
	}
	if r := c.Finish(); r.Verdict != checks.Pass || r.Decided == 0 {
		t.Errorf("file-lease on the replayed history: %s %s", r.Verdict, r.Summary)
	}
}

// TestRangeWritesReplay drives files.rest-ranges's set-up, one write and
// the final read through the real azfile client against recorded answers.
// It proves only that a Put Range of slots [lo, lo+n) asks for exactly
// those bytes with x-ms-write: update, that its input names the write, and
// that a final read of a file that holds no records (the recording's 11
// zero bytes) is recorded as torn slots, which range-writes reports.
func TestRangeWritesReplay(t *testing.T) {
	setupPut := replaytest.PutLeased.With(map[string]string{"x-ms-write": "update", "x-ms-range": fmt.Sprintf("bytes=0-%d", RangeSlots*RecordSize-1), "x-ms-lease-id": ""})
	put := replaytest.PutLeased.With(map[string]string{"x-ms-write": "update", "x-ms-range": fmt.Sprintf("bytes=%d-%d", 2*RecordSize, 5*RecordSize-1), "x-ms-lease-id": ""})
	tg, rp := replaytest.Target(t, replaytest.ShareCreated, replaytest.FileCreated, setupPut, put, replaytest.FileRead, replaytest.ShareDeleted)
	e, rec, path := replayEnv(t, "files.rest-ranges", tg)
	f, _ := workload.Lookup("files.rest-ranges")
	wl, err := f(scenarios.Workload{Kind: "files.rest-ranges"}, tg)
	if err != nil {
		t.Fatal(err)
	}
	w := wl.(*restRanges)
	ctx := context.Background()
	if err := w.Setup(ctx, e); err != nil {
		t.Fatal(err)
	}
	a := e.Actor(0)
	tag := a.Tag()
	w.r.putRange(ctx, a, "k0", 2*RecordSize, rangeBody(tag, 2, 3), "", RangeValue(tag, 2, 3))
	if err := w.Final(ctx, e); err != nil {
		t.Fatal(err)
	}
	if rp.Left() != 0 {
		t.Errorf("%d recorded exchanges not requested", rp.Left())
	}
	ops := readHistory(t, rec, path)
	if len(ops) != 6 || ops[3].In.Value != tag+"@2+3" || ops[3].Outcome != checks.OK || ops[4].Out.Value != strings.Repeat("? ", RangeSlots)+"?" {
		t.Fatalf("ops: %+v", ops)
	}
	c := filerest.NewRangeWrites()
	for i := range ops {
		c.Observe(&ops[i])
	}
	if r := c.Finish(); r.Verdict != checks.Fail || !strings.Contains(r.Violations[0].Message, "torn record") {
		t.Errorf("range-writes on a file of zero bytes: %s %s", r.Verdict, r.Summary)
	}
}
