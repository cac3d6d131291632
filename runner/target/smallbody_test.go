package target

import (
	"context"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
)

// writeCountingConn counts the writes made on a connection (each one a
// write system call on a TCP connection).
type writeCountingConn struct {
	net.Conn
	writes *atomic.Int64
}

func (c writeCountingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// TestSmallBodiesLeaveInOneWrite: a Put Blob through stormcheck's client
// sends its headers and a small body in one write on the connection (the
// SDK alone takes two), the body arrives whole, and a body over the limit
// is still streamed.
func TestSmallBodiesLeaveInOneWrite(t *testing.T) {
	var got atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.Store(string(b))
		w.Header().Set("ETag", `"0x1"`)
		w.WriteHeader(http.StatusCreated)
	}))
	defer srv.Close()
	var writes atomic.Int64
	client := func(stormcheck bool) *service.Client {
		hc := NewHTTPClient(4)
		tr := hc.Transport.(*http.Transport)
		dial := tr.DialContext
		tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return writeCountingConn{c, &writes}, nil
		}
		key := base64.StdEncoding.EncodeToString([]byte("small-body-test-key"))
		opts := &service.ClientOptions{ClientOptions: clientOptions(hc)}
		if !stormcheck { // the SDK's own transport, straight onto net/http
			opts.ClientOptions = azcore.ClientOptions{Transport: hc}
		}
		c, err := SharedKeyBlobClient(srv.URL+"/acct", "acct", key, opts)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	put := func(c *service.Client, body string) int64 {
		t.Helper()
		bb := c.NewContainerClient("c").NewBlockBlobClient("b")
		before := writes.Load()
		if _, err := bb.Upload(context.Background(), streaming.NopCloser(strings.NewReader(body)), nil); err != nil {
			t.Fatal(err)
		}
		if got.Load() != body {
			t.Fatalf("the server got %d bytes, %d were sent", len(got.Load().(string)), len(body))
		}
		return writes.Load() - before
	}
	sc, sdk := client(true), client(false)
	small := strings.Repeat("v", 300)
	for i := 0; i < 3; i++ { // the first call also dials; count the ones after
		if n := put(sc, small); i > 0 && n != 1 {
			t.Errorf("stormcheck: a %d-byte Put Blob took %d writes, want 1", len(small), n)
		}
		if n := put(sdk, small); i > 0 && n != 2 {
			t.Errorf("the SDK alone: a %d-byte Put Blob took %d writes (the test expects 2: headers, then body)", len(small), n)
		}
	}
	large := strings.Repeat("L", smallBodyLimit+1)
	if n := put(sc, large); n < 2 {
		t.Errorf("a body over the limit (%d bytes) took %d writes: it was not streamed", len(large), n)
	}
}

// TestBodyInMemoryKeepsTheLengthHonest: a body shorter or longer than the
// request's Content-Length is refused, as net/http refuses it.
func TestBodyInMemoryKeepsTheLengthHonest(t *testing.T) {
	for _, c := range []struct {
		body string
		n    int64
		ok   bool
	}{{"abcde", 5, true}, {"abc", 5, false}, {"", 5, false}, {"abcdefg", 5, false}} {
		r, _ := http.NewRequest(http.MethodPut, "http://127.0.0.1:1/", io.NopCloser(strings.NewReader(c.body)))
		r.ContentLength = c.n
		err := bodyInMemory(r)
		if (err == nil) != c.ok {
			t.Errorf("body %q, Content-Length %d: error %v", c.body, c.n, err)
			continue
		}
		if c.ok {
			b, _ := io.ReadAll(r.Body)
			if string(b) != c.body {
				t.Errorf("body %q became %q", c.body, b)
			}
		}
	}
}
