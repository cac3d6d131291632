package faults

import (
	"net/http"
	"strings"
	"testing"
)

// The three answer faults answer the service's error and never forward.
func TestAnswerNeverForwards(t *testing.T) {
	for _, c := range []struct {
		kind, code string
		status     int
	}{
		{"http.server-busy", "ServerBusy", 503},
		{"http.internal-error", "InternalError", 500},
		{"http.timeout", "OperationTimedOut", 500},
	} {
		t.Run(c.kind, func(t *testing.T) {
			up := newUpstream(t)
			s := oneFault(c.kind, nil)
			base := chain(t, s, "blob", up)
			resp, body, err := put(t, base, "/devstoreaccount1/c/k0", "v1")
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != c.status || resp.Header.Get("x-ms-error-code") != c.code {
				t.Fatalf("got %d %s, want %d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"), c.status, c.code)
			}
			if !strings.Contains(body, "<Code>"+c.code+"</Code>") || resp.Header.Get(Header) != "f1 ("+c.kind+")" {
				t.Fatalf("body %q, %s %q", body, Header, resp.Header.Get(Header))
			}
			if got := up.requests(); len(got) != 0 {
				t.Fatalf("forwarded: %v", got)
			}
			tc := s.Touches()
			if len(tc) != 1 || tc[0].Fault != "f1" || tc[0].ClientRequestID != "req-v1" || tc[0].Request.Op != "blob.put" ||
				!strings.Contains(tc[0].Action, "without forwarding") {
				t.Fatalf("touches %+v", tc)
			}
		})
	}
}

// A table error is OData JSON, as the Table service sends it.
func TestAnswerSpeaksTheService(t *testing.T) {
	up := newUpstream(t)
	s := oneFault("http.server-busy", nil)
	base := chain(t, s, "table", up)
	resp, body, err := put(t, base, "/devstoreaccount1/t(PartitionKey='p',RowKey='r')", "{}")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, `"odata.error"`) {
		t.Fatalf("got %d %q", resp.StatusCode, body)
	}
}
