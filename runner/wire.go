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
	var sent sentHeaders
	sent.read(resp.Request.Header)
	in.IfMatch, in.IfNoneMatch = sent.ifMatch, sent.ifNoneMatch
	in.IfModifiedSince, in.IfUnmodifiedSince = sent.ifModifiedSince, sent.ifUnmodifiedSince
	switch sent.leaseAction {
	case "acquire": // the id an acquire asks for travels as the proposed id
		in.LeaseID = sent.proposedLeaseID
	case "change":
		in.LeaseID, in.ProposedLeaseID = sent.leaseID, sent.proposedLeaseID
	default:
		in.LeaseID = sent.leaseID
	}
	return in
}

// sentHeaders are the request headers the record keeps, read in one pass
// whatever the case of their keys: the SDK sets its x-ms-* headers straight
// into the map, in lower case, which http.Header.Get (canonical keys only)
// would not find. A canonical key wins over another spelling.
type sentHeaders struct {
	ifMatch, ifNoneMatch, ifModifiedSince, ifUnmodifiedSince string
	leaseAction, leaseID, proposedLeaseID                    string
}

func (s *sentHeaders) read(h http.Header) {
	var canon [7]bool
	for k, v := range h {
		if len(v) == 0 || v[0] == "" {
			continue
		}
		var i int
		var dst *string
		switch {
		case strings.EqualFold(k, "If-Match"):
			i, dst = 0, &s.ifMatch
		case strings.EqualFold(k, "If-None-Match"):
			i, dst = 1, &s.ifNoneMatch
		case strings.EqualFold(k, "If-Modified-Since"):
			i, dst = 2, &s.ifModifiedSince
		case strings.EqualFold(k, "If-Unmodified-Since"):
			i, dst = 3, &s.ifUnmodifiedSince
		case strings.EqualFold(k, "x-ms-lease-action"):
			i, dst = 4, &s.leaseAction
		case strings.EqualFold(k, "x-ms-lease-id"):
			i, dst = 5, &s.leaseID
		case strings.EqualFold(k, "x-ms-proposed-lease-id"):
			i, dst = 6, &s.proposedLeaseID
		default:
			continue
		}
		if canon[i] {
			continue
		}
		*dst = v[0]
		canon[i] = k == http.CanonicalHeaderKey(k)
	}
}
