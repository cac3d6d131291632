package faults

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// StaleRead answers every read after the first of a path with the first
// answer, without forwarding.
func TestStaleReadServesTheFirstVersion(t *testing.T) {
	n := 0
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n++
		w.Header().Set("ETag", `"v`+string(rune('0'+n))+`"`)
		_, _ = io.WriteString(w, "version "+string(rune('0'+n)))
	})
	s := &StaleRead{}
	for i := 0; i < 3; i++ {
		rec := httptest.NewRecorder()
		s.Apply(rec, httptest.NewRequest(http.MethodGet, "/acct/c/k0", nil), next)
		if rec.Body.String() != "version 1" || rec.Header().Get("ETag") != `"v1"` {
			t.Fatalf("read %d: %q %s", i, rec.Body.String(), rec.Header().Get("ETag"))
		}
	}
	if n != 1 {
		t.Fatalf("forwarded %d reads, want 1", n)
	}
}

// SecondLease turns a refused acquire into a granted one, and nothing else.
func TestSecondLeaseGrantsARefusedAcquire(t *testing.T) {
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("x-ms-error-code", "LeaseAlreadyPresent")
		w.WriteHeader(http.StatusConflict)
	})
	r := httptest.NewRequest(http.MethodPut, "/acct/c/k0?comp=lease", nil)
	r.Header.Set("x-ms-lease-action", "acquire")
	r.Header.Set("x-ms-proposed-lease-id", "L2")
	rec := httptest.NewRecorder()
	SecondLease{}.Apply(rec, r, next)
	if rec.Code != http.StatusCreated || rec.Header().Get("x-ms-lease-id") != "L2" {
		t.Fatalf("got %d lease %q", rec.Code, rec.Header().Get("x-ms-lease-id"))
	}
	r.Header.Set("x-ms-lease-action", "renew")
	rec = httptest.NewRecorder()
	SecondLease{}.Apply(rec, r, next)
	if rec.Code != http.StatusConflict {
		t.Fatalf("a renew was changed: %d", rec.Code)
	}
}

// PartialBatch forwards the first half of a changeset's operations, still
// a well-formed multipart body.
func TestPartialBatchCutsTheChangeset(t *testing.T) {
	op := func(i int) string {
		return "\r\nContent-Type: application/http\r\n\r\nPUT http://h/acct/t(PartitionKey='p',RowKey='r" + string(rune('0'+i)) + "') HTTP/1.1\r\n\r\n{}\r\n"
	}
	body := "--batch_1\r\nContent-Type: multipart/mixed; boundary=changeset_9\r\n\r\n"
	for i := 0; i < 4; i++ {
		body += "--changeset_9" + op(i)
	}
	body += "--changeset_9--\r\n--batch_1--\r\n"
	var got string
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = string(b)
	})
	r := httptest.NewRequest(http.MethodPost, "/acct/$batch", strings.NewReader(body))
	if _, ok := bufferBody(httptest.NewRecorder(), r); !ok {
		t.Fatal("buffer")
	}
	PartialBatch{}.Apply(httptest.NewRecorder(), r, next)
	if strings.Count(got, "RowKey=") != 2 || !strings.Contains(got, "r0") || !strings.Contains(got, "r1") ||
		!strings.HasSuffix(got, "--changeset_9--\r\n--batch_1--\r\n") {
		t.Fatalf("forwarded:\n%s", got)
	}
}

// StripIfMatch removes If-Match from a conditional write and signs the
// blob request again; a read or If-Match: * passes unchanged.
func TestStripIfMatchResigns(t *testing.T) {
	s := NewSchedule(nil, 1, nil)
	s.SetAccount("acct", "a2V5") // "key"
	var h http.Header
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h = r.Header.Clone() })
	r := httptest.NewRequest(http.MethodPut, "/acct/c/k0", nil)
	r.Header.Set("If-Match", `"0x1"`)
	r.Header.Set("Authorization", "SharedKey acct:old")
	r = r.WithContext(withSched(r, s, "blob"))
	StripIfMatch{}.Apply(httptest.NewRecorder(), r, next)
	if h.Get("If-Match") != "" || h.Get("Authorization") == "SharedKey acct:old" || !strings.HasPrefix(h.Get("Authorization"), "SharedKey acct:") {
		t.Fatalf("forwarded If-Match %q, Authorization %q", h.Get("If-Match"), h.Get("Authorization"))
	}
	r2 := httptest.NewRequest(http.MethodPut, "/acct/c/k0", nil)
	r2.Header.Set("If-Match", "*")
	StripIfMatch{}.Apply(httptest.NewRecorder(), r2, next)
	if h.Get("If-Match") != "*" {
		t.Fatal("If-Match: * was stripped")
	}
}
