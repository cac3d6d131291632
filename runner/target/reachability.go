package target

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stormcheck/stormcheck/runner/throttle"
)

// reachability watches every request the run's clients send, to tell a
// target that answers slowly or with errors (it answers: the run goes on)
// from one that does not answer at all (refused connections, or requests
// that hang until their timeout): a dead or frozen target.
type reachability struct {
	// pendingSince is the start (unix ns) of the oldest request sent since
	// the target last answered; 0 when none is waiting or failed unanswered.
	pendingSince atomic.Int64
	// inflight counts requests waiting for an answer; unanswered is set by
	// a request that ended without one (cleared by the next answer).
	inflight   atomic.Int64
	unanswered atomic.Bool
	mu         sync.Mutex
	lastErr    string
	lastHost   string
	now        func() time.Time
}

func newReachability() *reachability { return &reachability{now: time.Now} }

// sent notes a request leaving.
func (r *reachability) sent(at time.Time) {
	r.inflight.Add(1)
	r.pendingSince.CompareAndSwap(0, at.UnixNano())
}

// returned notes a request's end, however it ended.
func (r *reachability) returned() { r.inflight.Add(-1) }

// answered notes a response: any status, even an error, is an answer.
func (r *reachability) answered() {
	r.unanswered.Store(false)
	r.pendingSince.Store(0)
}

// failed notes a request that ended without a response.
func (r *reachability) failed(host string, err error) {
	r.unanswered.Store(true)
	r.mu.Lock()
	r.lastErr, r.lastHost = Redact(ShortErr(err)), host
	r.mu.Unlock()
}

// silence is how long the target has not answered while requests wait for
// it, and since when; zero while it answers or nothing is asked.
func (r *reachability) silence() (time.Duration, time.Time) {
	p := r.pendingSince.Load()
	if p == 0 || r.inflight.Load() == 0 && !r.unanswered.Load() {
		return 0, time.Time{}
	}
	since := time.Unix(0, p)
	return r.now().Sub(since), since
}

// lastError is the last transport error, redacted, and the host it came
// from ("" if none).
func (r *reachability) lastError() (host, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lastHost, r.lastErr
}

// watchedTransport reports every round trip to a reachability.
type watchedTransport struct {
	next  http.RoundTripper
	watch *reachability
}

func (w watchedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	w.watch.sent(time.Now())
	resp, err := w.next.RoundTrip(req)
	defer w.watch.returned()
	var upstream string
	if resp != nil && len(resp.Header[throttle.UpstreamErrorHeader]) > 0 { // a canonical key: no Header.Get
		upstream = resp.Header[throttle.UpstreamErrorHeader][0]
	}
	switch {
	case upstream != "":
		// The emulation proxy answered for a target that did not.
		w.watch.failed(req.URL.Host, errors.New(upstream))
	case resp != nil:
		w.watch.answered()
	case errors.Is(req.Context().Err(), context.Canceled):
		// The run itself gave up on the request (Ctrl-C, the load's end):
		// that says nothing about the target.
	case err != nil:
		w.watch.failed(req.URL.Host, err)
	}
	return resp, err
}

// CloseIdleConnections passes through, so http.Client.CloseIdleConnections
// still reaches the pool.
func (w watchedTransport) CloseIdleConnections() {
	if c, ok := w.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// watchedClient is hc with every request reported to watch.
func watchedClient(hc *http.Client, watch *reachability) *http.Client {
	c := *hc
	next := hc.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = watchedTransport{next: next, watch: watch}
	return &c
}

// unreachableError is the run's error when the target answered nothing for
// the scenario's unreachable_after.
type UnreachableError struct {
	host    string
	since   time.Time
	silence time.Duration
	last    string
}

func (e *UnreachableError) Error() string {
	s := fmt.Sprintf("target %s unreachable: no answer at all since %s (%s; unreachable_after)", e.host,
		e.since.Format("15:04:05"), e.silence.Round(time.Second))
	if e.last != "" {
		s += "; last error: " + e.last
	}
	return s + "; stopped the load"
}

// watchTarget stops the run (stop, with an unreachableError) once the
// target has left every request unanswered for after, and says so on an
// ERROR line. The returned func ends the watch.
func WatchTarget(t *Target, after time.Duration, stop context.CancelCauseFunc, logf func(string, ...any)) func() {
	if t == nil || t.reach == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(min(after/10, 250*time.Millisecond))
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			d, since := t.reach.silence()
			if d < after {
				continue
			}
			host, last := t.reach.lastError()
			if host == "" && t.Blob != nil {
				host = HostOf(t.Blob.URL())
			}
			err := &UnreachableError{host: host, since: since, silence: d, last: last}
			stop(err) // first: once the line is out, no call of the load starts
			logf("ERROR: %v", err)
			return
		}
	}()
	return func() { close(done); wg.Wait() }
}
