package faults

import (
	"net/http"

	"github.com/stormcheck/stormcheck/runner/throttle"
)

// TimeoutAfter forwards the request, lets the service apply it, throws its
// answer away and answers 500 OperationTimedOut: applied but
// unacknowledged (http.timeout-after).
type TimeoutAfter struct{}

// Apply forwards r, then answers 500 OperationTimedOut.
func (TimeoutAfter) Apply(w http.ResponseWriter, r *http.Request, next http.Handler) string {
	b := newBuffered()
	next.ServeHTTP(b, r)
	throttle.WriteServiceError(w, r, serviceOf(r), http.StatusInternalServerError, "OperationTimedOut", msgTimedOut)
	return "forwarded (service answered " + statusText(b.status) + "), answered 500 OperationTimedOut"
}
