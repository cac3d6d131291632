package faults

import (
	"net/http"
	"time"
)

// Duplicate delivers the request twice, Gap apart, as a retry after a lost
// response does; the client gets the second answer (http.duplicate). See
// Apply for which requests.
type Duplicate struct {
	Gap time.Duration
}

// Apply forwards r, waits Gap, forwards it again and relays that answer.
// Only a read or a conditional write (If-Match on an ETag, If-None-Match) is
// delivered twice: its second delivery is refused or reads again, and the
// client is told the answer may not be the first's (the runner records a
// non-success as unknown). An unconditional write delivered twice would
// apply twice, at two times no client can tell; the stage forwards it once.
func (d Duplicate) Apply(w http.ResponseWriter, r *http.Request, next http.Handler) string {
	read := r.Method == http.MethodGet || r.Method == http.MethodHead
	ifMatch := r.Header.Get("If-Match")
	conditional := (ifMatch != "" && ifMatch != "*") || r.Header.Get("If-None-Match") != ""
	if !read && !conditional { // If-Match: * (the entity exists) holds again
		next.ServeHTTP(w, r)
		return "forwarded once: an unconditional write is not delivered twice"
	}
	first := newBuffered()
	next.ServeHTTP(first, rewind(r))
	if d.Gap > 0 && !hold(r, d.Gap) {
		return "delivered once (first answer " + statusText(first.status) + "), client gone before the second"
	}
	second := newBuffered()
	next.ServeHTTP(second, rewind(r))
	second.replay(w)
	return "delivered twice: first answered " + statusText(first.status) + ", second " + statusText(second.status) + " (relayed)"
}
