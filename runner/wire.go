package runner

import (
	"errors"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/stormcheck/stormcheck/checks"
)

// sentInput makes the recorded conditions those of the request that went on
// the wire, not those the workload asked for: the SDK silently drops headers
// an operation does not support (Set Container Metadata takes only
// If-Modified-Since), and a checker judging a condition that was never sent
// would report a false violation. Without a response (a transport error)
// the request is not known, and the intended input stays.
func sentInput(in checks.Input, resp *http.Response, err error) checks.Input {
	var re *azcore.ResponseError
	if resp == nil && errors.As(err, &re) {
		resp = re.RawResponse
	}
	if resp == nil || resp.Request == nil {
		return in
	}
	h := header(resp.Request.Header)
	in.IfMatch = h.Get("If-Match")
	in.IfNoneMatch = h.Get("If-None-Match")
	in.IfModifiedSince = h.Get("If-Modified-Since")
	in.IfUnmodifiedSince = h.Get("If-Unmodified-Since")
	switch h.Get("x-ms-lease-action") {
	case "acquire": // the id an acquire asks for travels as the proposed id
		in.LeaseID = h.Get("x-ms-proposed-lease-id")
	case "change":
		in.LeaseID, in.ProposedLeaseID = h.Get("x-ms-lease-id"), h.Get("x-ms-proposed-lease-id")
	default:
		in.LeaseID = h.Get("x-ms-lease-id")
	}
	return in
}

// header reads a request's headers whatever the case of their keys: the
// SDK sets its x-ms-* headers straight into the map, in lower case, which
// http.Header.Get (canonical keys only) would not find.
type header http.Header

func (h header) Get(key string) string {
	if v := http.Header(h).Get(key); v != "" {
		return v
	}
	for k, v := range h {
		if len(v) > 0 && strings.EqualFold(k, key) {
			return v[0]
		}
	}
	return ""
}
