// Package replaytest is test help for the Azure Files REST code: a
// loopback HTTP server that answers with recorded live answers of Azure
// Files, in order, and checks each request against its recording, and a
// target whose real azfile client is pointed at it. Tests using it what they prove is request building
// and the classification of each answer, not how Azure Files behaves.
package replaytest

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	fileservice "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/stormcheck/stormcheck/runner/target"
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
// bytes; Get File with another lease id 412
// LeaseIdMismatchWithFileOperation). Only the headers a client reads are kept; the one substitution
// is the lease id an acquire answers, which is the id the request
// proposed (in the recording too: x-ms-proposed-lease-id e9890485-...
// came back as x-ms-lease-id e9890485-...).

// Exchange is one recorded request and its answer. Want lists request
// headers and the value they must have ("*": present with any value, "":
// absent).
type Exchange struct {
	Name   string
	Method string
	Query  string // the comp or restype the request carries ("" for none)
	Want   map[string]string
	Status int
	Header map[string]string
	Body   string
}

const recordedError = "\uFEFF<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>%s</Code><Message>%s\nRequestId:%s\nTime:2023-06-07T22:54:12.4157171Z</Message></Error>"

func errBody(code, msg, rid string) string { return fmt.Sprintf(recordedError, code, msg, rid) }

var (
	ShareCreated = Exchange{Name: "create share", Method: "PUT", Query: "restype=share", Status: 201,
		Header: map[string]string{"ETag": `"0x8DB67AA1C63C42F"`, "Last-Modified": "Wed, 07 Jun 2023 22:54:12 GMT", "x-ms-request-id": "7360b0b1-001a-003b-4192-998f15000000"}}
	FileCreated = Exchange{Name: "create file", Method: "PUT", Query: "", Want: map[string]string{"x-ms-type": "file", "x-ms-content-length": "*"}, Status: 201,
		Header: map[string]string{"ETag": `"0x8DB67AA1C78A9D6"`, "Last-Modified": "Wed, 07 Jun 2023 22:54:12 GMT", "x-ms-request-id": "7360b0b4-001a-003b-4392-998f15000000", "x-ms-file-id": "11529285414812647424"}}
	Acquired = Exchange{Name: "acquire", Method: "PUT", Query: "comp=lease",
		Want:   map[string]string{"x-ms-lease-action": "acquire", "x-ms-lease-duration": "-1", "x-ms-proposed-lease-id": "*"},
		Status: 201, Header: map[string]string{"ETag": `"0x8DB67AA1C78A9D6"`, "x-ms-lease-id": "$proposed", "x-ms-request-id": "7360b0b5-001a-003b-4492-998f15000000"}}
	AcquireRefused = Exchange{Name: "acquire, leased", Method: "PUT", Query: "comp=lease",
		Want:   map[string]string{"x-ms-lease-action": "acquire", "x-ms-lease-duration": "-1", "x-ms-proposed-lease-id": "*"},
		Status: 409, Header: map[string]string{"x-ms-error-code": "LeaseAlreadyPresent", "Content-Type": "application/xml", "x-ms-request-id": "7360b03f-001a-003b-6492-998f15000000"},
		Body: errBody("LeaseAlreadyPresent", "There is already a lease present.", "7360b03f-001a-003b-6492-998f15000000")}
	PutNoLease = Exchange{Name: "put range without the lease id", Method: "PUT", Query: "comp=range",
		Want:   map[string]string{"x-ms-write": "update", "x-ms-range": "bytes=0-15", "x-ms-lease-id": ""},
		Status: 412, Header: map[string]string{"x-ms-error-code": "LeaseIdMissing", "Content-Type": "application/xml", "x-ms-request-id": "7360b0b6-001a-003b-4592-998f15000000"},
		Body: errBody("LeaseIdMissing", "There is currently a lease on the file and no lease ID was specified in the request.", "7360b0b6-001a-003b-4592-998f15000000")}
	PutLeased = Exchange{Name: "put range with the lease id", Method: "PUT", Query: "comp=range",
		Want:   map[string]string{"x-ms-write": "update", "x-ms-range": "bytes=0-15", "x-ms-lease-id": "$proposed"},
		Status: 201, Header: map[string]string{"ETag": `"0x8DB67AA1C9666AB"`, "Content-MD5": "sQqNsWTgdUEFt6mb5y4/5Q==", "x-ms-request-id": "7360b0b7-001a-003b-4692-998f15000000"}}
	Released = Exchange{Name: "release", Method: "PUT", Query: "comp=lease",
		Want:   map[string]string{"x-ms-lease-action": "release", "x-ms-lease-id": "$proposed"},
		Status: 200, Header: map[string]string{"ETag": `"0x8DB67AA1A03BF9B"`, "x-ms-request-id": "7360b062-001a-003b-8092-998f15000000"}}
	ReadWrongLease = Exchange{Name: "get file, another lease id", Method: "GET", Query: "", Want: map[string]string{"x-ms-lease-id": "*"},
		Status: 412, Header: map[string]string{"x-ms-error-code": "LeaseIdMismatchWithFileOperation", "Content-Type": "application/xml", "x-ms-request-id": "7360b0de-001a-003b-6792-998f15000000"},
		Body: errBody("LeaseIdMismatchWithFileOperation", "The lease ID specified did not match the lease ID for the file.", "7360b0de-001a-003b-6792-998f15000000")}
	FileRead = Exchange{Name: "get file", Method: "GET", Query: "", Status: 200,
		Header: map[string]string{"Content-Type": "application/octet-stream", "ETag": `"0x8DB67AA1DBD0888"`, "x-ms-type": "File", "x-ms-lease-state": "leased", "x-ms-request-id": "7360b0dd-001a-003b-6692-998f15000000"},
		Body:   string(make([]byte, 11))}
	ShareDeleted = Exchange{Name: "delete share", Method: "DELETE", Query: "restype=share", Status: 202,
		Header: map[string]string{"x-ms-request-id": "7360b040-001a-003b-6592-998f15000000"}}
)

// Server serves the exchanges in order on 127.0.0.1, checking each request
// against its recording; anything else is a test error.
type Server struct {
	t        *testing.T
	mu       sync.Mutex
	next     []Exchange
	proposed string // the proposed id of the lease granted, for "$proposed"
}

func (rp *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
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
	if r.Method != x.Method || query != x.Query || !strings.HasPrefix(r.Header.Get("Authorization"), "SharedKey acct:") {
		rp.t.Errorf("%s: got %s %s (authorization %v), recorded %s ?%s", x.Name, r.Method, r.URL, r.Header.Get("Authorization") != "", x.Method, x.Query)
	}
	if p := r.Header.Get("x-ms-proposed-lease-id"); p != "" && x.Header["x-ms-lease-id"] == "$proposed" {
		rp.proposed = p // the lease this answer grants
	}
	for h, v := range x.Want {
		got, has := r.Header.Get(h), r.Header.Values(h) != nil
		if v == "$proposed" {
			v = rp.proposed
		}
		switch {
		case v == "*" && !has, v == "" && has, v != "*" && v != "" && got != v:
			rp.t.Errorf("%s: request header %s = %q (present %v), recorded %q", x.Name, h, got, has, v)
		}
	}
	for h, v := range x.Header {
		if v == "$proposed" {
			v = rp.proposed
		}
		w.Header().Set(h, v)
	}
	w.Header().Set("x-ms-version", "2021-10-04")
	w.Header().Set("Date", "Wed, 07 Jun 2023 22:54:12 GMT")
	w.WriteHeader(x.Status)
	_, _ = w.Write([]byte(x.Body))
}

// Start serves xs in order on a free 127.0.0.1 port until the test ends;
// it returns the server and its base URL (http://127.0.0.1:PORT/).
func Start(t *testing.T, xs ...Exchange) (*Server, string) {
	rp := &Server{t: t, next: xs}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: rp}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return rp, "http://" + ln.Addr().String() + "/"
}

// Left is how many exchanges were not requested.
func (rp *Server) Left() int {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return len(rp.next)
}

// With is x with want as its request checks.
func (x Exchange) With(want map[string]string) Exchange {
	x.Want = want
	return x
}

// Target starts the replay of xs and returns a target whose File client is
// the real azfile client pointed at it (account "acct", a made-up key).
func Target(t *testing.T, xs ...Exchange) (*target.Target, *Server) {
	rp, url := Start(t, xs...)
	cred, err := fileservice.NewSharedKeyCredential("acct", "c2VjcmV0a2V5c2VjcmV0a2V5")
	if err != nil {
		t.Fatal(err)
	}
	svc, err := fileservice.NewClientWithSharedKeyCredential(url, cred, target.FileOptions(target.NewHTTPClient(4)))
	if err != nil {
		t.Fatal(err)
	}
	return &target.Target{Desc: "replay", File: svc}, rp
}
