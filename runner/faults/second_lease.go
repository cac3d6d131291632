package faults

import (
	"net/http"
	"strings"
)

// SecondLease grants a lease to a contender while another holds it: an
// acquire the service refuses with 409 LeaseAlreadyPresent is answered 201
// Created with the proposed lease id (broken.second-lease;
// lease-exclusion must fail).
type SecondLease struct{}

// Apply forwards r and turns a refused acquire into a granted one.
func (SecondLease) Apply(w http.ResponseWriter, r *http.Request, next http.Handler) string {
	b := newBuffered()
	next.ServeHTTP(b, r)
	action := strings.ToLower(r.Header.Get("x-ms-lease-action"))
	if action != "acquire" || b.status != http.StatusConflict || b.h.Get("x-ms-error-code") != "LeaseAlreadyPresent" {
		b.replay(w)
		return "forwarded, answer relayed (not a refused acquire)"
	}
	id := r.Header.Get("x-ms-proposed-lease-id")
	h := w.Header()
	for _, k := range []string{"x-ms-request-id", "x-ms-version", "Date"} {
		if v := b.h.Get(k); v != "" {
			h.Set(k, v)
		}
	}
	h.Set("x-ms-lease-id", id)
	h.Set("Content-Length", "0")
	w.WriteHeader(http.StatusCreated)
	return "acquire refused 409 LeaseAlreadyPresent by the service, answered 201 Created with lease " + id
}
