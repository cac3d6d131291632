package faults

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// StripAppendPos removes the append position from an Append Block and
// signs the request again; another request keeps its headers.
func TestStripAppendPosResigns(t *testing.T) {
	s := NewSchedule(nil, 1, nil)
	s.SetAccount("acct", "a2V5") // "key"
	var h http.Header
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h = r.Header.Clone() })
	req := func(target string) *http.Request {
		r := httptest.NewRequest(http.MethodPut, target, strings.NewReader("rec\n"))
		r.Header.Set("x-ms-blob-condition-appendpos", "12")
		r.Header.Set("Authorization", "SharedKey acct:old")
		return r.WithContext(withSched(r, s, "blob"))
	}
	StripAppendPos{}.Apply(httptest.NewRecorder(), req("/acct/c/k0?comp=appendblock"), next)
	if h.Get("x-ms-blob-condition-appendpos") != "" || h.Get("Authorization") == "SharedKey acct:old" || !strings.HasPrefix(h.Get("Authorization"), "SharedKey acct:") {
		t.Fatalf("forwarded appendpos %q, Authorization %q", h.Get("x-ms-blob-condition-appendpos"), h.Get("Authorization"))
	}
	StripAppendPos{}.Apply(httptest.NewRecorder(), req("/acct/c/k0?comp=seal"), next)
	if h.Get("x-ms-blob-condition-appendpos") != "12" || h.Get("Authorization") != "SharedKey acct:old" {
		t.Fatalf("a seal was changed: appendpos %q, Authorization %q", h.Get("x-ms-blob-condition-appendpos"), h.Get("Authorization"))
	}
}
