package faults

import (
	"net/http"

	"github.com/stormcheck/stormcheck/runner/sharedkey"
)

// StripIfMatch strips If-Match from conditional writes before forwarding
// them, so that a write on a stale ETag overwrites a newer one
// (broken.strip-if-match; no-lost-updates must fail). A blob request's
// Shared Key signature covers If-Match, so the stage signs it again with
// the account's key (Schedule.SetAccount); a table request's does not.
type StripIfMatch struct{}

// Apply removes If-Match (any but "*") from a write, re-signs, forwards.
func (StripIfMatch) Apply(w http.ResponseWriter, r *http.Request, next http.Handler) string {
	v := r.Header.Get("If-Match")
	if v == "" || v == "*" || r.Method == http.MethodGet || r.Method == http.MethodHead {
		next.ServeHTTP(w, r)
		return "not a conditional write: forwarded"
	}
	r.Header.Del("If-Match")
	if serviceOf(r) == "blob" {
		s, _ := r.Context().Value(schedKey{}).(*Schedule)
		if s == nil || s.account == "" {
			r.Header.Set("If-Match", v)
			next.ServeHTTP(w, r)
			return "no account key to sign with: forwarded unchanged"
		}
		signBlob(r, s.account, s.key)
	}
	next.ServeHTTP(w, r)
	return "If-Match " + v + " stripped, forwarded as an unconditional write"
}

// signBlob sets r's Authorization to its Shared Key signature for the Blob
// service, as the SDK computes it (runner/sharedkey); with a key that is
// not base64 it leaves r as it is, and the service refuses it.
func signBlob(r *http.Request, account, key string) {
	if s, err := sharedkey.New(account, key); err == nil {
		_ = s.Sign(r) // a query that does not parse: unsigned, refused the same way
	}
}
