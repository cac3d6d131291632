package faults

import "net/http"

// DropResponse forwards the request, lets the service apply it, and closes
// the client's connection without an answer: applied but unacknowledged
// (http.drop-response).
type DropResponse struct{}

// Apply forwards r, then aborts the response (the connection is closed).
// Wrap notes the action, then lets the server close the connection.
func (DropResponse) Apply(w http.ResponseWriter, r *http.Request, next http.Handler) string {
	b := newBuffered()
	next.ServeHTTP(b, r)
	panic(dropped{"forwarded (service answered " + statusText(b.status) + "), response dropped: connection closed"})
}

// dropped is the panic that tells Wrap to note the action, then abort the
// response (http.ErrAbortHandler: the server closes the connection).
type dropped struct{ action string }
