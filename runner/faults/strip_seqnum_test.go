package faults

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The sequence-number conditions are stripped and the request signed
// again; a request without one is forwarded as it came.
func TestStripSeqNumResigns(t *testing.T) {
	s := NewSchedule(nil, 1, nil)
	s.SetAccount("acct", "a2V5") // "key"
	var h http.Header
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h = r.Header.Clone() })
	r := httptest.NewRequest(http.MethodPut, "/acct/c/k0?comp=page", nil)
	r.Header["x-ms-if-sequence-number-eq"] = []string{"5"} // as the SDK sets it: lower case
	r.Header.Set("X-Ms-If-Sequence-Number-Le", "7")
	r.Header.Set("Authorization", "SharedKey acct:old")
	r = r.WithContext(withSched(r, s, "blob"))
	note := StripSeqNum{}.Apply(httptest.NewRecorder(), r, next)
	for k := range h {
		if strings.Contains(strings.ToLower(k), "sequence-number") {
			t.Errorf("forwarded %s: %v", k, h[k])
		}
	}
	if h.Get("Authorization") == "SharedKey acct:old" || !strings.HasPrefix(h.Get("Authorization"), "SharedKey acct:") {
		t.Errorf("Authorization %q: not signed again", h.Get("Authorization"))
	}
	if !strings.Contains(note, "stripped") {
		t.Errorf("note %q", note)
	}
	r2 := httptest.NewRequest(http.MethodPut, "/acct/c/k0?comp=page", nil)
	r2.Header.Set("Authorization", "SharedKey acct:old")
	StripSeqNum{}.Apply(httptest.NewRecorder(), r2, next)
	if h.Get("Authorization") != "SharedKey acct:old" {
		t.Errorf("a request without a condition was signed again: %q", h.Get("Authorization"))
	}
}
