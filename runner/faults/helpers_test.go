package faults

import (
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/scenarios"
)

// upstream is a loopback HTTP server standing for the service: it records
// what reached it and answers 201 with a body.
type upstream struct {
	mu   sync.Mutex
	got  []string // "METHOD PATH BODY"
	at   []time.Time
	srv  *httptest.Server
	hold func(r *http.Request)
}

func newUpstream(t *testing.T) *upstream {
	u := &upstream{}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		u.mu.Lock()
		u.got = append(u.got, r.Method+" "+r.URL.Path+" "+string(b))
		u.at = append(u.at, time.Now())
		u.mu.Unlock()
		w.Header().Set("ETag", `"0x1"`)
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, "applied")
	}))
	t.Cleanup(u.srv.Close)
	return u
}

func (u *upstream) requests() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	return append([]string(nil), u.got...)
}

// chain serves svc through s's faults in front of a reverse proxy to up,
// as the throttling proxy's chain does, with the load begun.
func chain(t *testing.T, s *Schedule, svc string, up *upstream) string {
	target, _ := url.Parse(up.srv.URL)
	next := httputil.NewSingleHostReverseProxy(target)
	s.Begin(time.Now())
	srv := httptest.NewServer(s.Wrap(svc, next))
	t.Cleanup(srv.Close)
	return srv.URL
}

// oneFault is a schedule of a single whole-run fault of kind.
func oneFault(kind string, edit func(*scenarios.Fault)) *Schedule {
	f := scenarios.Fault{Name: "f1", Kind: kind, Fraction: 1}
	if edit != nil {
		edit(&f)
	}
	return NewSchedule([]scenarios.Fault{f}, 1, nil)
}

func put(t *testing.T, base, path, body string) (*http.Response, string, error) {
	t.Helper()
	return putIf(t, base, path, body, "")
}

// putIf is put with If-Match etag ("" for none).
func putIf(t *testing.T, base, path, body, etag string) (*http.Response, string, error) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, base+path, strings.NewReader(body))
	if etag != "" {
		req.Header.Set("If-Match", etag)
	}
	req.Header.Set("x-ms-client-request-id", "req-"+body)
	req.Header.Set("x-ms-version", "2025-01-05")
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b), nil
}
