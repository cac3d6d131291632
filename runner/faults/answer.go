package faults

import (
	"io"
	"net/http"

	"github.com/stormcheck/stormcheck/runner/throttle"
)

// The messages of the errors the answer faults send, from "Common REST API
// error codes".
const (
	msgServerBusy = throttle.MsgServerBusy
	msgInternal   = "The server encountered an internal error. Please retry the request."
	msgTimedOut   = "The operation could not be completed within the permitted time."
)

// Answer answers the request with a service error without forwarding it:
// the service never sees it (http.server-busy, http.internal-error,
// http.timeout).
type Answer struct {
	Status        int
	Code, Message string
}

// Apply answers r with a's error.
func (a Answer) Apply(w http.ResponseWriter, r *http.Request, next http.Handler) string {
	_, _ = io.Copy(io.Discard, r.Body)
	throttle.WriteServiceError(w, r, serviceOf(r), a.Status, a.Code, a.Message)
	return "answered " + http.StatusText(a.Status) + " " + a.Code + " without forwarding"
}
