package workload

import (
	"net/http"

	"github.com/stormcheck/stormcheck/checks"
)

// sentInput makes the recorded conditions those of the request that went on
// the wire, not those the workload asked for: the SDK silently drops headers
// an operation does not support (Set Container Metadata takes only
// If-Modified-Since), and a checker judging a condition that was never sent
// would report a false violation. Without a response (a transport error)
// the request is not known, and the intended input stays.
func SentInput(in checks.Input, resp *http.Response, err error) checks.Input {
	if re := responseError(err); resp == nil && re != nil {
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

// sentHeaders are the request headers the record keeps. The SDK sets
// standard headers under their canonical keys and its x-ms-* headers
// straight into the map in lower case (http.Header.Get, canonical keys
// only, would not find them); injectHeaders sets canonical keys. Each is
// looked up under both spellings, the canonical one first.
type sentHeaders struct {
	ifMatch, ifNoneMatch, ifModifiedSince, ifUnmodifiedSince string
	leaseAction, leaseID, proposedLeaseID                    string
}

func (s *sentHeaders) read(h http.Header) {
	get := func(canonical, lower string) string {
		if v := first(h[canonical]); v != "" {
			return v
		}
		return first(h[lower])
	}
	s.ifMatch = get("If-Match", "if-match")
	s.ifNoneMatch = get("If-None-Match", "if-none-match")
	s.ifModifiedSince = get("If-Modified-Since", "if-modified-since")
	s.ifUnmodifiedSince = get("If-Unmodified-Since", "if-unmodified-since")
	s.leaseAction = get("X-Ms-Lease-Action", "x-ms-lease-action")
	s.leaseID = get("X-Ms-Lease-Id", "x-ms-lease-id")
	s.proposedLeaseID = get("X-Ms-Proposed-Lease-Id", "x-ms-proposed-lease-id")
}
