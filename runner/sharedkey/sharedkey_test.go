package sharedkey

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
)

const account = "sigtest"

var key = base64.StdEncoding.EncodeToString([]byte("a key for the signature tests, 32+ bytes long"))

// sdkSigned collects the requests azblob signs with its own Shared Key
// policy: a client whose transport keeps each request (with the SDK's
// x-ms-date and Authorization) and answers 200 with nothing, and whose
// per-call policy adds the headers a test asks for, before signing.
type sdkSigned struct {
	mu   sync.Mutex
	reqs []*http.Request
}

type extraKey struct{}

// extraQuery is a raw query appended to a request's, before signing.
type extraQuery struct{}

func (s *sdkSigned) Do(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	c := req.Clone(context.Background())
	c.Header = req.Header.Clone()
	s.mu.Lock()
	s.reqs = append(s.reqs, c)
	s.mu.Unlock()
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{}, Body: http.NoBody, Request: req}, nil
}

type addHeaders struct{}

func (addHeaders) Do(req *policy.Request) (*http.Response, error) {
	if h, ok := req.Raw().Context().Value(extraKey{}).(http.Header); ok {
		for k, v := range h {
			req.Raw().Header[k] = v // as given, canonical or not
		}
	}
	if q, ok := req.Raw().Context().Value(extraQuery{}).(string); ok {
		u := req.Raw().URL
		if u.RawQuery != "" {
			q = u.RawQuery + "&" + q
		}
		u.RawQuery = q
	}
	return req.Next()
}

func newSDKClient(t *testing.T) (*service.Client, *sdkSigned) {
	t.Helper()
	cred, err := service.NewSharedKeyCredential(account, key)
	if err != nil {
		t.Fatal(err)
	}
	cap := &sdkSigned{}
	c, err := service.NewClientWithSharedKeyCredential("http://127.0.0.1:10000/"+account, cred, &service.ClientOptions{ClientOptions: azcore.ClientOptions{
		Transport:       cap,
		Retry:           policy.RetryOptions{MaxRetries: -1},
		PerCallPolicies: []policy.Policy{addHeaders{}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return c, cap
}

// checkSame signs each captured request again with Signer (keeping the
// SDK's x-ms-date) and compares the Authorization with the SDK's.
func checkSame(t *testing.T, s *Signer, reqs []*http.Request) {
	t.Helper()
	if len(reqs) == 0 {
		t.Fatal("the SDK made no request")
	}
	for _, r := range reqs {
		want := r.Header.Get("Authorization")
		if !strings.HasPrefix(want, "SharedKey "+account+":") {
			t.Fatalf("%s %s: the SDK did not sign it: %q", r.Method, r.URL, want)
		}
		r.Header.Del("Authorization")
		date := r.Header.Values("X-Ms-Date")
		if err := s.Sign(r); err != nil {
			t.Fatalf("%s %s: %v", r.Method, r.URL, err)
		}
		if got := r.Header.Get("Authorization"); got != want {
			sb := &signBuf{}
			sts, _ := s.stringToSign(sb, r)
			t.Errorf("%s %s: signature differs from the SDK's\nours: %s\nSDK:  %s\nour string to sign:\n%s", r.Method, r.URL, got, want, sts)
		}
		if got := r.Header.Values("X-Ms-Date"); !equalStrings(got, date) {
			t.Errorf("%s %s: x-ms-date changed from %q to %q", r.Method, r.URL, date, got)
		}
	}
}

func equalStrings(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00") && len(a) == len(b)
}

func newSigner(t *testing.T) *Signer {
	t.Helper()
	s, err := New(account, key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSignsTheSDKsOwnRequestsAsItDoes: every kind of Blob request
// stormcheck makes, with its conditions, leases, ranges, metadata, query
// parameters and awkward names, signed by azblob and by Signer alike.
func TestSignsTheSDKsOwnRequestsAsItDoes(t *testing.T) {
	ctx := context.Background()
	c, cap := newSDKClient(t)
	etag := azcore.ETag(`"0x8DC0000000000001"`)
	when := time.Date(2026, 11, 24, 20, 0, 0, 0, time.UTC)
	for _, name := range []string{"k0", "a b/c+d%e", "ünïcødé", "x?y#z", "trailing/", "~!*'();:@&=+$,"} {
		cc := c.NewContainerClient("cont-1")
		bb := cc.NewBlockBlobClient(name)
		_, _ = cc.Create(ctx, &container.CreateOptions{Metadata: map[string]*string{"Owner": to.Ptr("x"), "b": to.Ptr("y z")}})
		_, _ = bb.DownloadStream(ctx, nil)
		_, _ = bb.DownloadStream(ctx, &blob.DownloadStreamOptions{Range: blob.HTTPRange{Offset: 5, Count: 10},
			AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: &etag, IfModifiedSince: &when}}})
		_, _ = bb.Upload(ctx, streaming.NopCloser(strings.NewReader("v1")), &blockblob.UploadOptions{
			AccessConditions:        &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &etag, IfUnmodifiedSince: &when}},
			HTTPHeaders:             &blob.HTTPHeaders{BlobContentType: to.Ptr("text/plain"), BlobContentMD5: []byte("0123456789abcdef")},
			TransactionalValidation: blob.TransferValidationTypeMD5([]byte("fedcba9876543210")),
			Metadata:                map[string]*string{"Zeta": to.Ptr("1"), "alpha": to.Ptr("2")},
		})
		_, _ = bb.Upload(ctx, streaming.NopCloser(strings.NewReader("")), nil) // Content-Length 0 signs as empty
		_, _ = bb.GetProperties(ctx, nil)
		_, _ = bb.SetMetadata(ctx, map[string]*string{"m": to.Ptr("v")}, nil)
		_, _ = bb.Delete(ctx, &blob.DeleteOptions{DeleteSnapshots: to.Ptr(blob.DeleteSnapshotsOptionTypeInclude)})
		_, _ = bb.CreateSnapshot(ctx, nil)
		_, _ = bb.StageBlock(ctx, base64.StdEncoding.EncodeToString([]byte("block-1")), streaming.NopCloser(strings.NewReader("b")), nil)
		_, _ = bb.CommitBlockList(ctx, []string{"YmxvY2stMQ=="}, nil)
		_, _ = bb.GetBlockList(ctx, blockblob.BlockListTypeAll, &blockblob.GetBlockListOptions{Snapshot: to.Ptr("2026-11-24T20:00:00.0000000Z")})
		_, _ = bb.SetTags(ctx, map[string]string{"t": "1"}, nil)
		_, _ = bb.StartCopyFromURL(ctx, "http://127.0.0.1:10000/"+account+"/cont-1/src", nil)
		bl, err := lease.NewBlobClient(bb, &lease.BlobClientOptions{LeaseID: to.Ptr("d2b5e5f8-0000-4000-8000-000000000001")})
		if err != nil {
			t.Fatal(err)
		}
		_, _ = bl.AcquireLease(ctx, 15, nil)
		_, _ = bl.RenewLease(ctx, nil)
		_, _ = bl.ChangeLease(ctx, "d2b5e5f8-0000-4000-8000-000000000002", nil)
		_, _ = bl.BreakLease(ctx, &lease.BlobBreakOptions{BreakPeriod: to.Ptr(int32(0))})
		_, _ = bl.ReleaseLease(ctx, nil)
		cl, _ := lease.NewContainerClient(cc, nil)
		_, _ = cl.AcquireLease(ctx, -1, nil)
		pager := cc.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: to.Ptr("p r&e=f"), Marker: to.Ptr("M"), MaxResults: to.Ptr(int32(7))})
		_, _ = pager.NextPage(ctx)
		_, _ = cc.GetProperties(ctx, nil)
		_, _ = cc.Delete(ctx, &container.DeleteOptions{AccessConditions: &container.AccessConditions{ModifiedAccessConditions: &container.ModifiedAccessConditions{IfModifiedSince: &when}}})
	}
	_, _ = c.GetProperties(ctx, nil)
	lp := c.NewListContainersPager(&service.ListContainersOptions{Prefix: to.Ptr("cont"), Include: service.ListContainersInclude{Metadata: true, Deleted: true}})
	_, _ = lp.NextPage(ctx)
	checkSame(t, newSigner(t), cap.reqs)
}

// TestSignsAnyXMSHeadersAsTheSDK: random x-ms-* header names (every token
// character, hyphens and apostrophes where byte order and the service's
// order part, upper and lower case, canonical keys or not) and values,
// more than one value per header, random standard headers (a Content-Length
// of 0 signs as empty) and query parameters (repeated, mixed case, encoded),
// through azblob's signer and Signer.
func TestSignsAnyXMSHeadersAsTheSDK(t *testing.T) {
	ctx := context.Background()
	c, cap := newSDKClient(t)
	bb := c.NewContainerClient("c").NewBlockBlobClient("b")
	r := rand.New(rand.NewPCG(1, 2))
	const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789!#$%&'*+-.^_`|~"
	name := func() string {
		n := []byte("x-ms-")
		for i := 1 + r.IntN(6); i > 0; i-- {
			n = append(n, chars[r.IntN(len(chars))])
		}
		return string(n)
	}
	for i := 0; i < 400; i++ {
		h := http.Header{}
		seen := map[string]bool{}
		for j := r.IntN(8); j > 0; j-- {
			n := name()
			if r.IntN(3) == 0 { // near-twins: the same letters, a hyphen or apostrophe moved
				n = "x-ms-a" + string("-'"[r.IntN(2)]) + "b"
				if r.IntN(2) == 0 {
					n = "x-ms-ab" + string("-'"[r.IntN(2)])
				}
			}
			if seen[strings.ToLower(n)] { // one spelling per name: two have no single signature
				continue
			}
			seen[strings.ToLower(n)] = true
			vals := []string{"v" + n}
			if r.IntN(4) == 0 {
				vals = append(vals, "second value", "")
			}
			h[n] = vals
		}
		// The standard headers, under the keys the SDK sets them by.
		for _, k := range []string{"Content-Encoding", "Content-Language", "Content-Length", "Content-MD5", "Content-Type",
			"If-Modified-Since", "If-Match", "If-None-Match", "If-Unmodified-Since", "Range"} {
			if r.IntN(4) == 0 {
				h[k] = []string{[]string{"0", "12", "gzip", `"0x1"`, "bytes=0-9"}[r.IntN(5)]}
			}
		}
		// Query parameters: repeated, in any case, encoded.
		var q []string
		for j := r.IntN(4); j > 0; j-- {
			q = append(q, []string{"b=2", "b=1", "Zed=3", "a=%20x", "comp=lease", "B=0", "empty="}[r.IntN(7)])
		}
		qctx := context.WithValue(context.WithValue(ctx, extraKey{}, h), extraQuery{}, strings.Join(q, "&"))
		_, _ = bb.DownloadStream(qctx, nil)
	}
	checkSame(t, newSigner(t), cap.reqs)
}

// TestHeaderOrderIsTheServices: the x-ms-* order is not byte order: the
// service's comparison skips hyphens first, and decides ties by them.
func TestHeaderOrderIsTheServices(t *testing.T) {
	for _, c := range []struct{ a, b string }{
		{"x-ms-blobfoo", "x-ms-blob-type"}, // 'f' < 't' once hyphens are skipped (byte order says the other way)
		{"x-ms-ab", "x-ms-a-b"},            // equal without the hyphen: the one without it first
		{"x-ms-a'b", "x-ms-a-b"},           // apostrophe before hyphen
		{"x-ms-a1", "x-ms-aa"},             // digits before letters
		{"x-ms-a_", "x-ms-a0"},             // punctuation before digits
		{"x-ms-a", "x-ms-ab"},              // a prefix first
		{"x-ms-meta-a", "x-ms-metab"},
	} {
		if got := compareHeaderNames([]byte(c.a), []byte(c.b)); got >= 0 {
			t.Errorf("compare(%q, %q) = %d, want < 0", c.a, c.b, got)
		}
		if got := compareHeaderNames([]byte(c.b), []byte(c.a)); got <= 0 {
			t.Errorf("compare(%q, %q) = %d, want > 0", c.b, c.a, got)
		}
	}
	if got := compareHeaderNames([]byte("x-ms-same"), []byte("x-ms-same")); got != 0 {
		t.Errorf("a name against itself: %d", got)
	}
}

// TestDateIsNowFormattedOncePerSecond: x-ms-date is the signer's clock,
// read on every request, formatted as an HTTP date; a request that has one
// keeps it.
func TestDateIsNowFormattedOncePerSecond(t *testing.T) {
	s := newSigner(t)
	now := time.Date(2026, 11, 24, 20, 0, 0, 100, time.UTC)
	s.Now = func() time.Time { return now }
	sign := func(h http.Header) string {
		r, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:10000/"+account+"/c/b", nil)
		for k, v := range h {
			r.Header[k] = v
		}
		if err := s.Sign(r); err != nil {
			t.Fatal(err)
		}
		dates := append(r.Header.Values("X-Ms-Date"), r.Header["x-ms-date"]...)
		if len(dates) != 1 {
			t.Fatalf("x-ms-date: %q", dates)
		}
		return dates[0]
	}
	if got := sign(nil); got != "Tue, 24 Nov 2026 20:00:00 GMT" {
		t.Errorf("x-ms-date %q", got)
	}
	now = now.Add(900 * time.Millisecond)
	if got := sign(nil); got != "Tue, 24 Nov 2026 20:00:00 GMT" {
		t.Errorf("same second: x-ms-date %q", got)
	}
	now = now.Add(100 * time.Millisecond)
	if got := sign(nil); got != "Tue, 24 Nov 2026 20:00:01 GMT" {
		t.Errorf("next second: x-ms-date %q", got)
	}
	now = time.Date(2026, 11, 24, 21, 0, 0, 0, time.FixedZone("CET", 3600))
	if got := sign(nil); got != "Tue, 24 Nov 2026 20:00:00 GMT" {
		t.Errorf("a clock in another zone: x-ms-date %q", got)
	}
	if got := sign(http.Header{"x-ms-date": {"Mon, 23 Nov 2026 10:00:00 GMT"}}); got != "Mon, 23 Nov 2026 10:00:00 GMT" {
		t.Errorf("a request's own date was replaced: %q", got)
	}
}

// TestSignsAReceivedRequest: a request as a server receives it (every key
// canonical: Content-Md5, X-Ms-Date) signs as the client signed it, which
// the fault stages rely on when they change a request and sign it again.
func TestSignsAReceivedRequest(t *testing.T) {
	ctx := context.Background()
	c, cap := newSDKClient(t)
	_, _ = c.NewContainerClient("c").NewBlockBlobClient("b").Upload(ctx, streaming.NopCloser(strings.NewReader("v")),
		&blockblob.UploadOptions{TransactionalValidation: blob.TransferValidationTypeMD5([]byte("0123456789abcdef"))})
	if len(cap.reqs) != 1 {
		t.Fatalf("%d requests", len(cap.reqs))
	}
	sent := cap.reqs[0]
	var wire bytes.Buffer
	sent.Body = io.NopCloser(strings.NewReader("v"))
	if err := sent.Write(&wire); err != nil {
		t.Fatal(err)
	}
	got, err := http.ReadRequest(bufio.NewReader(&wire))
	if err != nil {
		t.Fatal(err)
	}
	if got.Header.Get("Content-Md5") == "" || got.Header["Content-MD5"] != nil {
		t.Fatalf("the received request's keys are not canonical: %v", got.Header)
	}
	want := got.Header.Get("Authorization")
	got.Header.Del("Authorization")
	if err := newSigner(t).Sign(got); err != nil {
		t.Fatal(err)
	}
	if got.Header.Get("Authorization") != want {
		t.Errorf("received request signed %q, the client signed %q", got.Header.Get("Authorization"), want)
	}
}

// TestBadKeysAreRefusedWithoutTheKey.
func TestBadKeysAreRefusedWithoutTheKey(t *testing.T) {
	for _, c := range []struct{ account, key string }{{account, "not base64 !!secretpart"}, {account, ""}, {"", key}} {
		_, err := New(c.account, c.key)
		if err == nil {
			t.Errorf("New(%q, %q) accepted", c.account, c.key)
			continue
		}
		if c.key != "" && strings.Contains(err.Error(), "secretpart") {
			t.Errorf("the error shows the key: %v", err)
		}
	}
}

// TestQueryThatDoesNotParse is an error, not a signature.
func TestQueryThatDoesNotParse(t *testing.T) {
	r, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:10000/"+account+"/c?comp=list", nil)
	r.URL.RawQuery = "a=%zz"
	if err := newSigner(t).Sign(r); err == nil {
		t.Error("signed a request whose query does not parse")
	}
	if r.Header.Get("Authorization") != "" {
		t.Error("set an Authorization anyway")
	}
}

// TestConcurrentSigning: one signer, many goroutines (run with -race).
func TestConcurrentSigning(t *testing.T) {
	s := newSigner(t)
	want := ""
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				r, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:10000/"+account+"/c/b?comp=x", nil)
				r.Header["x-ms-date"] = []string{"Tue, 24 Nov 2026 20:00:00 GMT"}
				r.Header["x-ms-version"] = []string{"2025-11-05"}
				if err := s.Sign(r); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if want == "" {
					want = r.Header.Get("Authorization")
				}
				if got := r.Header.Get("Authorization"); got != want {
					t.Errorf("signature %q, then %q", want, got)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// TestOneNameTwoSpellingsSignsOnce: a header set under two spellings of
// one name appears once in the string to sign, as in azblob's (which
// keeps one of the two values: such a request has no single signature).
func TestOneNameTwoSpellingsSignsOnce(t *testing.T) {
	r, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:10000/"+account+"/c/b", nil)
	r.Header["x-ms-foo"] = []string{"1"}
	r.Header["X-Ms-Foo"] = []string{"1"}
	r.Header["x-ms-date"] = []string{"Tue, 24 Nov 2026 20:00:00 GMT"}
	sts, err := newSigner(t).stringToSign(&signBuf{}, r)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(sts), "x-ms-foo:"); n != 1 {
		t.Errorf("x-ms-foo signed %d times:\n%s", n, sts)
	}
	want := "GET\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:Tue, 24 Nov 2026 20:00:00 GMT\nx-ms-foo:1\n/" + account + "/" + account + "/c/b" // path-style URL: the account twice
	if string(sts) != want {
		t.Errorf("string to sign\n%q, want\n%q", sts, want)
	}
}
