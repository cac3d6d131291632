package faults

import (
	"strings"
	"testing"
)

// timeout-after lets the service apply the write, then says it timed out.
func TestTimeoutAfterApplies(t *testing.T) {
	up := newUpstream(t)
	s := oneFault("http.timeout-after", nil)
	base := chain(t, s, "blob", up)
	resp, _, err := put(t, base, "/devstoreaccount1/c/k0", "v1")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 500 || resp.Header.Get("x-ms-error-code") != "OperationTimedOut" || resp.Header.Get("ETag") != "" {
		t.Fatalf("got %d %s etag %q", resp.StatusCode, resp.Header.Get("x-ms-error-code"), resp.Header.Get("ETag"))
	}
	if got := up.requests(); len(got) != 1 || got[0] != "PUT /devstoreaccount1/c/k0 v1" {
		t.Fatalf("upstream got %v", got)
	}
	if tc := s.Touches(); len(tc) != 1 || !strings.Contains(tc[0].Action, "service answered 201 Created") {
		t.Fatalf("touches %+v", tc)
	}
}
