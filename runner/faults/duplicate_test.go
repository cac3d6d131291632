package faults

import (
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/scenarios"
)

// duplicate delivers the same request twice; the client hears once.
func TestDuplicateDeliversTwice(t *testing.T) {
	up := newUpstream(t)
	s := oneFault("http.duplicate", func(f *scenarios.Fault) { f.Gap = 10 * time.Millisecond })
	base := chain(t, s, "blob", up)
	resp, body, err := putIf(t, base, "/devstoreaccount1/c/k0", "v1", `"0x1"`)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 201 || body != "applied" || resp.Header.Get(Header) != "f1 (http.duplicate)" {
		t.Fatalf("got %d %q", resp.StatusCode, body)
	}
	got := up.requests()
	if len(got) != 2 || got[0] != got[1] || got[0] != "PUT /devstoreaccount1/c/k0 v1" {
		t.Fatalf("upstream got %v, want the same request twice", got)
	}
	if tc := s.Touches(); len(tc) != 1 || !strings.Contains(tc[0].Action, "delivered twice") {
		t.Fatalf("touches %+v", tc)
	}
}

// An unconditional write is delivered once: applied twice, it would be
// invisible to any client.
func TestDuplicateLeavesUnconditionalWritesAlone(t *testing.T) {
	up := newUpstream(t)
	s := oneFault("http.duplicate", nil)
	base := chain(t, s, "blob", up)
	if _, _, err := put(t, base, "/devstoreaccount1/c/k0", "v1"); err != nil {
		t.Fatal(err)
	}
	if got := up.requests(); len(got) != 1 {
		t.Fatalf("upstream got %v, want the write once", got)
	}
}
