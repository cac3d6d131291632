package faults

import (
	"bytes"
	"net/http"
	"sync"
)

// EarlyVisible makes received messages visible again before their
// visibility timeout: the messages one Get Messages returned are handed to
// the next Get Messages it takes as well, with the same pop receipts
// (broken.early-visible; exclusive-visibility must fail).
type EarlyVisible struct {
	mu   sync.Mutex
	last *buffered // the last get that returned messages
}

// Apply forwards a get; when it returned no message and an earlier get
// did, the earlier messages are delivered again.
func (e *EarlyVisible) Apply(w http.ResponseWriter, r *http.Request, next http.Handler) string {
	b := newBuffered()
	next.ServeHTTP(b, r)
	if r.Method != http.MethodGet || b.status != http.StatusOK {
		b.replay(w)
		return "forwarded, answer relayed"
	}
	has := bytes.Contains(b.body.Bytes(), []byte("<QueueMessage>"))
	e.mu.Lock()
	defer e.mu.Unlock()
	if has && e.last == nil {
		e.last = b
		b.replay(w)
		return "forwarded; kept the messages to deliver again"
	}
	if e.last != nil {
		again := e.last
		e.last = nil
		again.replay(w)
		return "delivered messages another consumer holds, before their visibility timeout"
	}
	b.replay(w)
	return "forwarded, answer relayed"
}
