package target

import (
	"context"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/stormcheck/stormcheck/runner/faults"
)

// Headers a caller wants on one request, exactly as given. azcore's own
// WithHTTPHeader adds them after the shared-key policy has signed the
// request (the signature then no longer matches), so stormcheck installs
// this per-call policy, which runs before signing.

type headersKey struct{}

// withHeaders asks for h on the requests made with ctx.
func WithHeaders(ctx context.Context, h http.Header) context.Context {
	return context.WithValue(ctx, headersKey{}, h)
}

// injectHeaders is the per-call policy that applies withHeaders.
type injectHeaders struct{}

func (injectHeaders) Do(req *policy.Request) (*http.Response, error) {
	if id, ok := req.Raw().Context().Value(AttemptKey{}).(string); ok {
		req.Raw().Header.Set(faults.AttemptHeader, id)
	}
	if h, ok := req.Raw().Context().Value(headersKey{}).(http.Header); ok {
		for k, v := range h {
			req.Raw().Header[http.CanonicalHeaderKey(k)] = v
		}
	}
	return req.Next()
}

type AttemptKey struct{}
