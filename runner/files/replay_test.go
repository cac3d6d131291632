package files

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	fileservice "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/filerest"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// The recorded answers the replay tests serve are transcribed from the
// JavaScript SDK's recorded live tests of Azure Files
// (Azure/azure-sdk-for-js, sdk/storage/storage-file-share/recordings/node/
// leaseclient/): recording_uploadrange.json (commit f075a011: Create Share
// 201, Create File 201, Lease File acquire 201 with x-ms-lease-id, Put
// Range without the lease id 412 LeaseIdMissing, Put Range with it 201),
// recording_acquirelease_again_with_another_lease_id.json (commit aa2120a4:
// a second acquire 409 LeaseAlreadyPresent, Delete Share 202),
// recording_release_lease.json (commit f59244d2: release 200) and
// recording_download_file.json (commit aa2120a4: Get File 200 of 11 zero
// bytes). Only the headers a client reads are kept; the one substitution
// is the lease id an acquire answers, which is the id the request
// proposed (in the recording too: x-ms-proposed-lease-id e9890485-...
// came back as x-ms-lease-id e9890485-...).

// exchange is one recorded request and its answer. want lists request
// headers and the value they must have ("*": present with any value, "":
// absent).
type exchange struct {
	name   string
	method string
	query  string // the comp or restype the request carries ("" for none)
	want   map[string]string
	status int
	header map[string]string
	body   string
}

const recordedError = "\uFEFF<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>%s</Code><Message>%s\nRequestId:%s\nTime:2023-06-07T22:54:12.4157171Z</Message></Error>"

func errBody(code, msg, rid string) string { return fmt.Sprintf(recordedError, code, msg, rid) }

var (
	shareCreated = exchange{name: "create share", method: "PUT", query: "restype=share", status: 201,
		header: map[string]string{"ETag": `"0x8DB67AA1C63C42F"`, "Last-Modified": "Wed, 07 Jun 2023 22:54:12 GMT", "x-ms-request-id": "7360b0b1-001a-003b-4192-998f15000000"}}
	fileCreated = exchange{name: "create file", method: "PUT", query: "", want: map[string]string{"x-ms-type": "file", "x-ms-content-length": "*"}, status: 201,
		header: map[string]string{"ETag": `"0x8DB67AA1C78A9D6"`, "Last-Modified": "Wed, 07 Jun 2023 22:54:12 GMT", "x-ms-request-id": "7360b0b4-001a-003b-4392-998f15000000", "x-ms-file-id": "11529285414812647424"}}
	acquired = exchange{name: "acquire", method: "PUT", query: "comp=lease",
		want:   map[string]string{"x-ms-lease-action": "acquire", "x-ms-lease-duration": "-1", "x-ms-proposed-lease-id": "*"},
		status: 201, header: map[string]string{"ETag": `"0x8DB67AA1C78A9D6"`, "x-ms-lease-id": "$proposed", "x-ms-request-id": "7360b0b5-001a-003b-4492-998f15000000"}}
	acquireRefused = exchange{name: "acquire, leased", method: "PUT", query: "comp=lease",
		want:   map[string]string{"x-ms-lease-action": "acquire", "x-ms-lease-duration": "-1", "x-ms-proposed-lease-id": "*"},
		status: 409, header: map[string]string{"x-ms-error-code": "LeaseAlreadyPresent", "Content-Type": "application/xml", "x-ms-request-id": "7360b03f-001a-003b-6492-998f15000000"},
		body: errBody("LeaseAlreadyPresent", "There is already a lease present.", "7360b03f-001a-003b-6492-998f15000000")}
	putNoLease = exchange{name: "put range without the lease id", method: "PUT", query: "comp=range",
		want:   map[string]string{"x-ms-write": "update", "x-ms-range": "bytes=0-15", "x-ms-lease-id": ""},
		status: 412, header: map[string]string{"x-ms-error-code": "LeaseIdMissing", "Content-Type": "application/xml", "x-ms-request-id": "7360b0b6-001a-003b-4592-998f15000000"},
		body: errBody("LeaseIdMissing", "There is currently a lease on the file and no lease ID was specified in the request.", "7360b0b6-001a-003b-4592-998f15000000")}
	putLeased = exchange{name: "put range with the lease id", method: "PUT", query: "comp=range",
		want:   map[string]string{"x-ms-write": "update", "x-ms-range": "bytes=0-15", "x-ms-lease-id": "$proposed"},
		status: 201, header: map[string]string{"ETag": `"0x8DB67AA1C9666AB"`, "Content-MD5": "sQqNsWTgdUEFt6mb5y4/5Q==", "x-ms-request-id": "7360b0b7-001a-003b-4692-998f15000000"}}
	released = exchange{name: "release", method: "PUT", query: "comp=lease",
		want:   map[string]string{"x-ms-lease-action": "release", "x-ms-lease-id": "$proposed"},
		status: 200, header: map[string]string{"ETag": `"0x8DB67AA1A03BF9B"`, "x-ms-request-id": "7360b062-001a-003b-8092-998f15000000"}}
	fileRead = exchange{name: "get file", method: "GET", query: "", status: 200,
		header: map[string]string{"Content-Type": "application/octet-stream", "ETag": `"0x8DB67AA1DBD0888"`, "x-ms-type": "File", "x-ms-lease-state": "leased", "x-ms-request-id": "7360b0dd-001a-003b-6692-998f15000000"},
		body: string(make([]byte, 11))}
	shareDeleted = exchange{name: "delete share", method: "DELETE", query: "restype=share", status: 202,
		header: map[string]string{"x-ms-request-id": "7360b040-001a-003b-6592-998f15000000"}}
)

// replay serves the exchanges in order on 127.0.0.1, checking each request
// against its recording; anything else is a test error.
type replay struct {
	t        *testing.T
	mu       sync.Mutex
	next     []exchange
	proposed string // the proposed id of the lease granted, for "$proposed"
}

func (rp *replay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if len(rp.next) == 0 {
		rp.t.Errorf("unrecorded request %s %s", r.Method, r.URL)
		w.WriteHeader(http.StatusTeapot)
		return
	}
	x := rp.next[0]
	rp.next = rp.next[1:]
	q := r.URL.Query()
	query := ""
	for _, k := range []string{"comp", "restype"} {
		if v := q.Get(k); v != "" {
			query = k + "=" + v
		}
	}
	if r.Method != x.method || query != x.query || !strings.HasPrefix(r.Header.Get("Authorization"), "SharedKey acct:") {
		rp.t.Errorf("%s: got %s %s (authorization %v), recorded %s ?%s", x.name, r.Method, r.URL, r.Header.Get("Authorization") != "", x.method, x.query)
	}
	if p := r.Header.Get("x-ms-proposed-lease-id"); p != "" && x.header["x-ms-lease-id"] == "$proposed" {
		rp.proposed = p // the lease this answer grants
	}
	for h, v := range x.want {
		got, has := r.Header.Get(h), r.Header.Values(h) != nil
		if v == "$proposed" {
			v = rp.proposed
		}
		switch {
		case v == "*" && !has, v == "" && has, v != "*" && v != "" && got != v:
			rp.t.Errorf("%s: request header %s = %q (present %v), recorded %q", x.name, h, got, has, v)
		}
	}
	for h, v := range x.header {
		if v == "$proposed" {
			v = rp.proposed
		}
		w.Header().Set(h, v)
	}
	w.Header().Set("x-ms-version", "2021-10-04")
	w.Header().Set("Date", "Wed, 07 Jun 2023 22:54:12 GMT")
	w.WriteHeader(x.status)
	_, _ = w.Write([]byte(x.body))
}

// replayTarget starts the replay on a free loopback port and a target
// whose File client is the real azfile client pointed at it (account
// "acct", a made-up key).
func replayTarget(t *testing.T, xs ...exchange) (*target.Target, *replay) {
	rp := &replay{t: t, next: xs}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: rp}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	cred, err := fileservice.NewSharedKeyCredential("acct", "c2VjcmV0a2V5c2VjcmV0a2V5")
	if err != nil {
		t.Fatal(err)
	}
	svc, err := fileservice.NewClientWithSharedKeyCredential("http://"+ln.Addr().String()+"/", cred, target.FileOptions(target.NewHTTPClient(4)))
	if err != nil {
		t.Fatal(err)
	}
	return &target.Target{Desc: "replay", File: svc}, rp
}

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
	tg, rp := replayTarget(t, shareCreated, fileCreated, acquired, acquireRefused, putNoLease, putLeased, released, fileRead, shareDeleted)
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
	if len(rp.next) != 0 {
		t.Errorf("%d recorded exchanges not requested", len(rp.next))
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
	setupPut, put := putLeased, putLeased
	setupPut.want = map[string]string{"x-ms-write": "update", "x-ms-range": fmt.Sprintf("bytes=0-%d", RangeSlots*RecordSize-1), "x-ms-lease-id": ""}
	put.want = map[string]string{"x-ms-write": "update", "x-ms-range": fmt.Sprintf("bytes=%d-%d", 2*RecordSize, 5*RecordSize-1), "x-ms-lease-id": ""}
	tg, rp := replayTarget(t, shareCreated, fileCreated, setupPut, put, fileRead, shareDeleted)
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
	if len(rp.next) != 0 {
		t.Errorf("%d recorded exchanges not requested", len(rp.next))
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
