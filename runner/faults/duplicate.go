package faults

import (
	"net/http"
	"time"
)

// Duplicate delivers the request twice, Gap apart, as a retry after a lost
// response does; the client gets the second answer (http.duplicate).
type Duplicate struct {
	Gap time.Duration
}

// Apply forwards r, waits Gap, forwards it again and relays that answer.
func (d Duplicate) Apply(w http.ResponseWriter, r *http.Request, next http.Handler) string {
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
