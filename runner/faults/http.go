package faults

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/stormcheck/stormcheck/scenarios"
)

// Header is set on every response a fault touched: "NAME (KIND)".
const Header = "X-Stormcheck-Fault"

// Stage is one HTTP fault kind: Apply handles r in place of next (the rest
// of the proxy chain, which forwards to the target), doing what the kind
// does, and returns what it did, for the history.
type Stage interface {
	Apply(w http.ResponseWriter, r *http.Request, next http.Handler) (action string)
}

// stageFor returns the HTTP stage of f's kind (nil: not an HTTP fault).
func stageFor(f scenarios.Fault) Stage {
	switch f.Kind {
	case "http.server-busy":
		return Answer{Status: http.StatusServiceUnavailable, Code: "ServerBusy", Message: msgServerBusy}
	case "http.internal-error":
		return Answer{Status: http.StatusInternalServerError, Code: "InternalError", Message: msgInternal}
	case "http.timeout":
		return Answer{Status: http.StatusInternalServerError, Code: "OperationTimedOut", Message: msgTimedOut}
	case "http.timeout-after":
		return TimeoutAfter{}
	case "http.drop-response":
		return DropResponse{}
	case "http.duplicate":
		return Duplicate{Gap: f.Gap}
	case "http.reorder":
		return Reorder{Hold: f.Hold}
	}
	return brokenStage(f)
}

// Wrap returns the handler that puts s's HTTP faults in front of next, the
// proxy's handler for service svc ("blob", "queue", "table").
func (s *Schedule) Wrap(svc string, next http.Handler) http.Handler {
	if !s.HasHTTP() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, running := s.Elapsed(); !running {
			next.ServeHTTP(w, r)
			return
		}
		body, ok := bufferBody(w, r)
		if !ok {
			return
		}
		req := Classify(svc, r, body)
		i := s.pick(req)
		if i < 0 {
			next.ServeHTTP(w, r)
			return
		}
		mark := &markingWriter{ResponseWriter: w, mark: s.faults[i].Name + " (" + s.faults[i].Kind + ")"}
		r = r.WithContext(withSched(r, s, svc))
		defer func() {
			if v := recover(); v != nil {
				d, ok := v.(dropped)
				if !ok {
					panic(v)
				}
				s.note(i, req, r, d.action, true)
				panic(http.ErrAbortHandler)
			}
		}()
		action := s.stages[i].Apply(mark, r, next)
		s.note(i, req, r, action, false)
	})
}

type svcKey struct{}
type schedKey struct{}

// withSched is r's context carrying the schedule and the service.
func withSched(r *http.Request, s *Schedule, svc string) context.Context {
	return context.WithValue(context.WithValue(r.Context(), svcKey{}, svc), schedKey{}, s)
}

// hold waits d, or until the faults are lifted or the client goes; it
// reports whether the wait ran its course.
func hold(r *http.Request, d time.Duration) bool {
	s, _ := r.Context().Value(schedKey{}).(*Schedule)
	var lifted chan struct{}
	if s != nil {
		lifted = s.lifted
		s.held.Add(1)
		defer s.held.Add(-1)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-lifted:
		return true
	case <-r.Context().Done():
		return false
	}
}

// serviceOf returns the service r came in on ("blob" if unknown).
func serviceOf(r *http.Request) string {
	if s, ok := r.Context().Value(svcKey{}).(string); ok {
		return s
	}
	return "blob"
}

// statusText is "201 Created", or "no answer" for 0.
func statusText(code int) string {
	if code == 0 {
		return "no answer"
	}
	return strconv.Itoa(code) + " " + http.StatusText(code)
}

// maxBody bounds the request body a fault stage buffers (a table batch is
// at most 4 MiB; a blob put in the harness's workloads is far smaller).
const maxBody = 8 << 20

// bufferBody reads r's body into memory, so that it can be sent twice or
// inspected, and sets r.Body and r.GetBody to replay it.
func bufferBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, true
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, false // the client went away
	}
	if len(b) > maxBody {
		http.Error(w, "stormcheck fault proxy: request body over 8 MiB", http.StatusRequestEntityTooLarge)
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	return b, true
}

// markingWriter sets Header on the response before its status goes out.
type markingWriter struct {
	http.ResponseWriter
	mark  string
	wrote bool
}

func (m *markingWriter) WriteHeader(code int) {
	if !m.wrote {
		m.wrote = true
		m.Header().Set(Header, m.mark)
	}
	m.ResponseWriter.WriteHeader(code)
}

func (m *markingWriter) Write(b []byte) (int, error) {
	if !m.wrote {
		m.WriteHeader(http.StatusOK)
	}
	return m.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection.
func (m *markingWriter) Unwrap() http.ResponseWriter { return m.ResponseWriter }

// buffered is a ResponseWriter that keeps the response in memory: a stage
// forwards into it, then decides what the client gets.
type buffered struct {
	h      http.Header
	status int
	body   bytes.Buffer
}

func newBuffered() *buffered { return &buffered{h: http.Header{}} }

func (b *buffered) Header() http.Header { return b.h }
func (b *buffered) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}
func (b *buffered) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

// replay sends the buffered response to w.
func (b *buffered) replay(w http.ResponseWriter) {
	for k, v := range b.h {
		w.Header()[k] = v
	}
	if b.status == 0 {
		b.status = http.StatusOK
	}
	w.WriteHeader(b.status)
	_, _ = w.Write(b.body.Bytes())
}

// rewind gives r a fresh copy of its buffered body.
func rewind(r *http.Request) *http.Request {
	r2 := r.Clone(r.Context())
	if r.GetBody != nil {
		r2.Body, _ = r.GetBody()
	}
	return r2
}
