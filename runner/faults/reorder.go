package faults

import (
	"net/http"
	"time"
)

// Reorder holds the request back for Hold before forwarding it, so that
// requests sent after it overtake it (http.reorder).
type Reorder struct {
	Hold time.Duration
}

// Apply waits Hold, then forwards r.
func (o Reorder) Apply(w http.ResponseWriter, r *http.Request, next http.Handler) string {
	if !hold(r, o.Hold) {
		return "held back " + o.Hold.String() + "; client gone before it was forwarded"
	}
	next.ServeHTTP(w, r)
	return "held back " + o.Hold.String() + " before forwarding"
}
