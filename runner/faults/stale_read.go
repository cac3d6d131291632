package faults

import (
	"net/http"
	"sync"
)

// StaleRead serves a read from an older version: the first successful read
// of each blob or entity is kept, and every later read it takes is
// answered with that old response instead of forwarding
// (broken.stale-read; version-chain must fail).
type StaleRead struct {
	mu  sync.Mutex
	old map[string]*buffered // by request path
}

// Apply answers r with the oldest answer seen for its path, or forwards
// it and keeps the answer.
func (s *StaleRead) Apply(w http.ResponseWriter, r *http.Request, next http.Handler) string {
	if r.Method != http.MethodGet {
		next.ServeHTTP(w, r)
		return "not a read: forwarded"
	}
	key := r.URL.Path
	s.mu.Lock()
	old := s.old[key]
	s.mu.Unlock()
	if old != nil {
		old.replay(w)
		return "served the first version read, without forwarding"
	}
	b := newBuffered()
	next.ServeHTTP(b, r)
	if b.status == http.StatusOK {
		s.mu.Lock()
		if s.old == nil {
			s.old = map[string]*buffered{}
		}
		if s.old[key] == nil {
			s.old[key] = b
		}
		s.mu.Unlock()
	}
	b.replay(w)
	return "forwarded; kept the answer to serve later reads"
}
