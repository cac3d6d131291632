package runner

import (
	"context"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// Bytes on the wire, per attempt: how much a request sent (its body) and
// how much its response brought back (its body, as the SDK read it), for
// the bandwidth targets (60 MiB/s per blob, the account's ingress and
// egress). Headers are left out, as the targets count data.

type bytesKey struct{}

// byteCount is one attempt's tally.
type byteCount struct{ sent, received atomic.Int64 }

func withByteCount(ctx context.Context, c *byteCount) context.Context {
	return context.WithValue(ctx, bytesKey{}, c)
}

// countingTransport counts the bodies of the requests made with a
// byteCount in their context.
type countingTransport struct{ next policy.Transporter }

func (t countingTransport) Do(req *http.Request) (*http.Response, error) {
	c, ok := req.Context().Value(bytesKey{}).(*byteCount)
	if ok && req.ContentLength > 0 {
		c.sent.Add(req.ContentLength)
	}
	resp, err := t.next.Do(req)
	if ok && resp != nil && resp.Body != nil {
		resp.Body = &countingBody{ReadCloser: resp.Body, c: c}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	c *byteCount
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.c.received.Add(int64(n))
	return n, err
}
