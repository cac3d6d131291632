package sharedkey

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

// TestTableLiteSignsAsAztables sends requests through aztables' own
// client, signed by its Shared Key Lite policy, to a loopback server that
// keeps them as received; the Table signer signs each received request
// again and must write the same Authorization, byte for byte.
func TestTableLiteSignsAsAztables(t *testing.T) {
	var mu sync.Mutex
	var got []*http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		mu.Lock()
		got = append(got, r.Clone(context.Background()))
		mu.Unlock()
		w.Header().Set("x-ms-error-code", "ResourceNotFound")
		w.WriteHeader(http.StatusNotFound)
	}))
	defer srv.Close()
	cred, err := aztables.NewSharedKeyCredential(account, key)
	if err != nil {
		t.Fatal(err)
	}
	opts := &aztables.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}}
	svc, err := aztables.NewServiceClientWithSharedKey(srv.URL+"/"+account, cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tc := svc.NewClient("tbl1")
	svc.CreateTable(ctx, "tbl1", nil)
	tc.AddEntity(ctx, []byte(`{"PartitionKey":"p","RowKey":"r/1#?"}`), nil)
	tc.GetEntity(ctx, "p", "a b'c", nil)
	tc.GetAccessPolicy(ctx, nil)
	svc.GetProperties(ctx, nil)
	pager := tc.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: ptr("PartitionKey eq 'p'")})
	pager.NextPage(ctx)
	tc.SubmitTransaction(ctx, []aztables.TransactionAction{{ActionType: aztables.TransactionTypeAdd, Entity: []byte(`{"PartitionKey":"p","RowKey":"r"}`)}}, nil)
	if len(got) < 6 {
		t.Fatalf("the server received %d requests, want at least 6", len(got))
	}
	s, err := NewTable(account, key)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range got {
		want := r.Header.Get("Authorization")
		if !strings.HasPrefix(want, "SharedKeyLite "+account+":") {
			t.Fatalf("%s %s: aztables sent Authorization %q, not Shared Key Lite", r.Method, r.URL, want)
		}
		r.Header.Del("Authorization")
		if err := s.Sign(r, true); err != nil {
			t.Fatal(err)
		}
		if g := r.Header.Get("Authorization"); g != want {
			sts, _ := s.StringToSign(r, true)
			t.Errorf("%s %s: signed %q, aztables %q (string to sign %q)", r.Method, r.URL, g, want, sts)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestTableSharedKeyStringToSign checks the Shared Key (not Lite) string
// against the format "Authorize with Shared Key" states for the Table
// service, on the page's own example request (GET of the Tables resource
// of testaccount1, dated Sun, 11 Oct 2009 19:52:39 GMT) and on requests
// with a body type, an MD5, a comp parameter, a Date header only and
// both dates; and the signature is HMAC-SHA256 of it with the key.
func TestTableSharedKeyStringToSign(t *testing.T) {
	s, err := NewTable("testaccount1", key)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		method, url string
		headers     map[string]string
		want        string
	}{
		{"GET", "https://testaccount1.table.core.windows.net/Tables", map[string]string{"x-ms-date": "Sun, 11 Oct 2009 19:52:39 GMT"},
			"GET\n\n\nSun, 11 Oct 2009 19:52:39 GMT\n/testaccount1/Tables"},
		{"POST", "http://127.0.0.1:10002/testaccount1/tbl", map[string]string{"x-ms-date": "Sun, 11 Oct 2009 19:52:39 GMT",
			"Content-Type": "application/json", "Content-MD5": "Q2hlY2sgSW50ZWdyaXR5IQ==", "x-ms-version": "2019-02-02"},
			"POST\nQ2hlY2sgSW50ZWdyaXR5IQ==\napplication/json\nSun, 11 Oct 2009 19:52:39 GMT\n/testaccount1/testaccount1/tbl"},
		{"GET", "https://testaccount1.table.core.windows.net/tbl?comp=acl&timeout=30", map[string]string{"x-ms-date": "Sun, 11 Oct 2009 19:52:39 GMT"},
			"GET\n\n\nSun, 11 Oct 2009 19:52:39 GMT\n/testaccount1/tbl?comp=acl"},
		{"GET", "https://testaccount1.table.core.windows.net/tbl()?$filter=PartitionKey%20eq%20'p'", map[string]string{"Date": "Mon, 12 Oct 2009 08:00:00 GMT"},
			"GET\n\n\nMon, 12 Oct 2009 08:00:00 GMT\n/testaccount1/tbl()"},
		{"DELETE", "https://testaccount1.table.core.windows.net/tbl(PartitionKey='p',RowKey='a%2Fb')", map[string]string{
			"Date": "Mon, 12 Oct 2009 08:00:00 GMT", "x-ms-date": "Sun, 11 Oct 2009 19:52:39 GMT"},
			"DELETE\n\n\nSun, 11 Oct 2009 19:52:39 GMT\n/testaccount1/tbl(PartitionKey='p',RowKey='a%2Fb')"},
	}
	for _, c := range cases {
		r, err := http.NewRequest(c.method, c.url, nil)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range c.headers {
			r.Header[k] = []string{v}
		}
		sts, err := s.StringToSign(r, false)
		if err != nil {
			t.Fatal(err)
		}
		if sts != c.want {
			t.Errorf("%s %s: string to sign %q, want %q", c.method, c.url, sts, c.want)
		}
		if err := s.Sign(r, false); err != nil {
			t.Fatal(err)
		}
		k, _ := base64.StdEncoding.DecodeString(key)
		mac := hmac.New(sha256.New, k)
		mac.Write([]byte(c.want))
		if want := "SharedKey testaccount1:" + base64.StdEncoding.EncodeToString(mac.Sum(nil)); r.Header.Get("Authorization") != want {
			t.Errorf("%s %s: Authorization %q, want %q", c.method, c.url, r.Header.Get("Authorization"), want)
		}
	}
}

// TestTableSignerDatesAnUndatedRequest: a request with neither date gets
// an x-ms-date from the signer's clock, and the signature covers it.
func TestTableSignerDatesAnUndatedRequest(t *testing.T) {
	s, err := NewTable(account, key)
	if err != nil {
		t.Fatal(err)
	}
	s.Now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }
	r, _ := http.NewRequest("GET", "http://127.0.0.1/"+account+"/Tables", nil)
	if err := s.Sign(r, false); err != nil {
		t.Fatal(err)
	}
	if d := r.Header.Get("x-ms-date"); d != "Fri, 02 Jan 2026 03:04:05 GMT" {
		t.Fatalf("x-ms-date %q", d)
	}
	sts, _ := s.StringToSign(r, false)
	if !strings.Contains(sts, "\nFri, 02 Jan 2026 03:04:05 GMT\n") {
		t.Fatalf("the string to sign %q does not cover the date", sts)
	}
	if _, err := NewTable(account, "not base64!"); err == nil || strings.Contains(err.Error(), "not base64!") {
		t.Fatalf("a bad key: %v", err)
	}
}
