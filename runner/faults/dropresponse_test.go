package faults

import (
	"strings"
	"testing"
)

// drop-response lets the service apply the write; the client gets no
// answer at all (the connection is closed).
func TestDropResponseAppliesThenCloses(t *testing.T) {
	up := newUpstream(t)
	s := oneFault("http.drop-response", nil)
	base := chain(t, s, "blob", up)
	resp, _, err := put(t, base, "/devstoreaccount1/c/k0", "v1")
	if err == nil {
		t.Fatalf("the client got an answer: %d", resp.StatusCode)
	}
	if got := up.requests(); len(got) != 1 {
		t.Fatalf("upstream got %v, want the write once", got)
	}
	if tc := s.Touches(); len(tc) != 1 || !strings.Contains(tc[0].Action, "response dropped") {
		t.Fatalf("touches %+v", tc)
	}
}
