package target

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
// egress). Headers are left out, as the targets count data. The same
// context value captures the attempt's raw response (what the record's
// status, headers and sent conditions come from), so an attempt costs one
// context value, reused by its actor, not two fresh ones.

type BytesKey struct{}

// byteCount is one attempt's tally and its raw response.
type ByteCount struct {
	Sent, Received atomic.Int64
	// resp is the last response the transport returned (nil without one).
	Resp *http.Response
	body countingBody
}

// reset readies c for the next attempt.
func (c *ByteCount) Reset() {
	c.Sent.Store(0)
	c.Received.Store(0)
	c.Resp = nil
	c.body = countingBody{}
}

func WithByteCount(ctx context.Context, c *ByteCount) context.Context {
	return context.WithValue(ctx, BytesKey{}, c)
}

// countingTransport counts the bodies of the requests made with a
// byteCount in their context, and keeps their response. It is the SDK's
// transport: small request bodies leave it in memory (bodyInMemory).
type CountingTransport struct{ Next policy.Transporter }

func (t CountingTransport) Do(req *http.Request) (*http.Response, error) {
	c, ok := req.Context().Value(BytesKey{}).(*ByteCount)
	if err := bodyInMemory(req); err != nil {
		return nil, err
	}
	if ok && req.ContentLength > 0 {
		c.Sent.Add(req.ContentLength)
	}
	resp, err := t.Next.Do(req)
	if ok && resp != nil {
		c.Resp = resp
		if resp.Body != nil {
			c.body = countingBody{ReadCloser: resp.Body, c: c}
			resp.Body = &c.body
		}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	c *ByteCount
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.c.Received.Add(int64(n))
	return n, err
}
