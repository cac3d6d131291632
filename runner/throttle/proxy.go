package throttle

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Limits are the per-second targets the proxy enforces; 0 means unlimited.
type Limits struct {
	// BlobRequests limits each blob (requests per second).
	BlobRequests float64
	// PartitionEntities limits each table partition (entities per second).
	PartitionEntities float64
	// QueueMessages limits each queue (messages per second).
	QueueMessages float64
	// AccountRequests limits each account (requests per second; a table
	// request counts its entities).
	AccountRequests float64
}

// UpstreamErrorHeader marks the proxy's own 502 answer when the target
// behind it did not answer (refused, dead): the client can tell it from an
// answer of the target's. Its value is the upstream error.
const UpstreamErrorHeader = "X-Stormcheck-Upstream-Error"

// Options configures Start.
type Options struct {
	// Blob, Queue and Table are the upstream service URLs, path-style
	// (http://127.0.0.1:PORT/devstoreaccount1). Only plain-HTTP loopback
	// upstreams are accepted: host 127.0.0.1, ::1 or localhost. An empty
	// one is not proxied (its URL on the Proxy stays empty).
	Blob, Queue, Table string
	// Limits are the targets; the zero value throttles nothing.
	Limits Limits
	// Burst is the bucket depth, in seconds of the (current) rate;
	// default 1s.
	Burst time.Duration
	// Warmup turns the warm-up model on: a cold unit sustains ColdFraction
	// of its target, rising to all of it after Warmup of load. 0 = off.
	Warmup time.Duration
	// Delay is a fixed latency added to every request, throttled or not,
	// before it is looked at.
	Delay time.Duration
	// Log, if not nil, receives one line per listener at start, one per
	// unit at its first throttled request, and a summary at Close.
	Log io.Writer
	// Clock is the time the buckets read at each request; nil is
	// time.Now. A virtual clock (set by a test to each request's scheduled
	// arrival) makes every decision a function of the arrivals alone, not
	// of how fast the machine delivered them.
	Clock func() time.Time
	// Wrap, if set, puts stages in front of each service's handler (the
	// fault stages of runner/faults): svc is "blob", "queue" or "table".
	// They run in the same proxy chain, before throttling and forwarding.
	Wrap func(svc string, next http.Handler) http.Handler
}

// withDefaults validates o and fills in the defaults.
func (o Options) withDefaults() (Options, error) {
	for name, v := range map[string]float64{"BlobRequests": o.Limits.BlobRequests, "PartitionEntities": o.Limits.PartitionEntities,
		"QueueMessages": o.Limits.QueueMessages, "AccountRequests": o.Limits.AccountRequests} {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return o, fmt.Errorf("throttle: Limits.%s = %v: want a finite rate ≥ 0 (0 = unlimited)", name, v)
		}
	}
	switch {
	case o.Burst < 0:
		return o, fmt.Errorf("throttle: Burst %s is negative", o.Burst)
	case o.Warmup < 0:
		return o, fmt.Errorf("throttle: Warmup %s is negative", o.Warmup)
	case o.Delay < 0:
		return o, fmt.Errorf("throttle: Delay %s is negative", o.Delay)
	case o.Blob == "" && o.Queue == "" && o.Table == "":
		return o, errors.New("throttle: no upstream: set at least one of Blob, Queue, Table")
	}
	if o.Burst == 0 {
		o.Burst = time.Second
	}
	return o, nil
}

// Proxy is a running throttling proxy. Its URL fields are read-only.
type Proxy struct {
	// BlobURL, QueueURL and TableURL are the proxy's service URLs: the
	// upstream's path on the proxy's loopback host:port; empty for a
	// service not proxied.
	BlobURL, QueueURL, TableURL string

	opts      Options
	now       func() time.Time
	started   time.Time
	transport *http.Transport
	endpoints []*endpoint
	stopAfter func() bool

	mu  sync.Mutex // guards reg
	reg *registry

	logMu     sync.Mutex
	closeOnce sync.Once
	closeErr  error
}

// endpoint is one service's listener.
type endpoint struct {
	p   *Proxy
	svc service
	srv *http.Server
	rp  *httputil.ReverseProxy
}

// Start validates o, listens on 127.0.0.1 (a kernel-chosen port per
// service) and serves until Close or until ctx is done.
func Start(ctx context.Context, o Options) (*Proxy, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("throttle: %w", err)
	}
	ups := []struct {
		svc service
		raw string
		dst func(*Proxy) *string
	}{
		{svcBlob, o.Blob, func(p *Proxy) *string { return &p.BlobURL }},
		{svcQueue, o.Queue, func(p *Proxy) *string { return &p.QueueURL }},
		{svcTable, o.Table, func(p *Proxy) *string { return &p.TableURL }},
	}
	parsed := make([]*url.URL, len(ups))
	for i, u := range ups {
		if u.raw == "" {
			continue
		}
		if parsed[i], err = parseUpstream(u.svc, u.raw); err != nil {
			return nil, err
		}
	}
	now := o.Clock
	if now == nil {
		now = time.Now
	}
	p := &Proxy{opts: o, now: now, started: now(), reg: newRegistry(o.Limits, o.Burst, o.Warmup)}
	p.transport = &http.Transport{
		Proxy:               nil, // loopback only: never a proxy from the environment
		DialContext:         dialLoopback,
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: 256,
		// Under Azurite's 5 s keep-alive, so a request is never sent on a
		// connection the upstream is closing (see runner/clients.go).
		IdleConnTimeout:       4 * time.Second,
		DisableCompression:    true, // pass Accept-Encoding and bodies through untouched
		ExpectContinueTimeout: time.Second,
	}
	for i, u := range ups {
		if parsed[i] == nil {
			continue
		}
		e, addr, err := p.listen(ctx, u.svc, parsed[i])
		if err != nil {
			p.Close()
			return nil, err
		}
		*u.dst(p) = "http://" + addr + strings.TrimSuffix(parsed[i].EscapedPath(), "/")
		p.logf("throttle: %s %s -> %s://%s%s", u.svc, *u.dst(p), parsed[i].Scheme, parsed[i].Host, parsed[i].EscapedPath())
		p.endpoints = append(p.endpoints, e)
	}
	l := o.Limits
	p.logf("throttle: limits per second: blob %s, partition %s, queue %s, account %s; burst %s; warm-up %s; delay %s",
		rateText(l.BlobRequests), rateText(l.PartitionEntities), rateText(l.QueueMessages), rateText(l.AccountRequests),
		o.Burst, warmText(o.Warmup), o.Delay)
	p.stopAfter = context.AfterFunc(ctx, func() { p.Close() })
	return p, nil
}

func rateText(r float64) string {
	if r == 0 {
		return "unlimited"
	}
	return fmt.Sprintf("%g", r)
}

func warmText(w time.Duration) string {
	if w == 0 {
		return "off"
	}
	return fmt.Sprintf("%s from %g%%", w, ColdFraction*100)
}

// parseUpstream checks an upstream service URL: plain http on loopback.
// Errors show scheme, host and path only, never a query (it could be a
// SAS).
func parseUpstream(svc service, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("throttle: %s upstream is not a URL", svc)
	}
	shown := u.Scheme + "://" + u.Host + u.EscapedPath()
	switch {
	case u.User != nil:
		return nil, fmt.Errorf("throttle: %s upstream %s: credentials in the URL are not accepted", svc, u.Scheme+"://"+u.Hostname())
	case u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("throttle: %s upstream %s: a service URL carries no query (a SAS stays with the client)", svc, shown)
	case u.Scheme != "http":
		return nil, fmt.Errorf("throttle: %s upstream %s: only http upstreams are supported (the proxy serves plain HTTP on loopback)", svc, shown)
	}
	switch h := u.Hostname(); {
	case h == "127.0.0.1", h == "::1", strings.EqualFold(h, "localhost"):
	default:
		return nil, fmt.Errorf("throttle: %s upstream %s is not loopback: only 127.0.0.1, ::1 or localhost may be proxied", svc, shown)
	}
	return u, nil
}

// dialLoopback dials and refuses any connection whose peer is not a
// loopback address (localhost resolving elsewhere, say).
func dialLoopback(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if ta, ok := c.RemoteAddr().(*net.TCPAddr); !ok || !ta.IP.IsLoopback() {
		c.Close()
		return nil, fmt.Errorf("throttle: upstream %s is not a loopback address", addr)
	}
	return c, nil
}

type respCountKey struct{}

// respCount carries a response counter from the handler to ModifyResponse.
type respCount struct {
	c  counter
	ok bool // the response was a success and went through c
}

// listen starts one service's listener on 127.0.0.1:0.
func (p *Proxy) listen(ctx context.Context, svc service, up *url.URL) (*endpoint, string, error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", fmt.Errorf("throttle: %s listener: %w", svc, err)
	}
	e := &endpoint{p: p, svc: svc}
	e.rp = &httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			// Same path, query, headers and body; only where it goes.
			pr.Out.URL.Scheme = up.Scheme
			pr.Out.URL.Host = up.Host
			pr.Out.Host = ""
		},
		Transport: p.transport,
		ModifyResponse: func(resp *http.Response) error {
			if rc, ok := resp.Request.Context().Value(respCountKey{}).(*respCount); ok && resp.StatusCode/100 == 2 {
				rc.ok = true
				resp.Body = &countingBody{ReadCloser: resp.Body, c: rc.c}
			}
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			if r.Context().Err() == nil {
				p.logf("throttle: %s upstream: %v", svc, err)
			}
			// Marked as the proxy's own: the target did not answer.
			w.Header().Set(UpstreamErrorHeader, svc.String()+": "+err.Error())
			w.WriteHeader(http.StatusBadGateway)
		},
		ErrorLog: log.New(io.Discard, "", 0),
	}
	var h http.Handler = e
	if p.opts.Wrap != nil {
		h = p.opts.Wrap(svc.String(), e)
	}
	e.srv = &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       2 * time.Minute, // longer than any client's idle timeout
		ErrorLog:          log.New(io.Discard, "", 0),
	}
	go e.srv.Serve(ln)
	return e, ln.Addr().String(), nil
}

// ServeHTTP delays, identifies the unit, admits or answers 503 ServerBusy,
// forwards, and settles amounts known only from the response.
func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p := e.p
	if p.opts.Delay > 0 {
		t := time.NewTimer(p.opts.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	var body []byte
	if needsBody(e.svc, r) {
		if r.ContentLength > MaxBatchBody {
			w.Header().Set("Connection", "close")
			writeError(w, r, e.svc, http.StatusRequestEntityTooLarge, "RequestBodyTooLarge", msgTooLarge, p.now())
			return
		}
		b, err := io.ReadAll(io.LimitReader(r.Body, MaxBatchBody+1))
		if err != nil {
			return // the client went away
		}
		if len(b) > MaxBatchBody {
			w.Header().Set("Connection", "close")
			writeError(w, r, e.svc, http.StatusRequestEntityTooLarge, "RequestBodyTooLarge", msgTooLarge, p.now())
			return
		}
		body = b
		r.Body = io.NopCloser(bytes.NewReader(b))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	d := identify(e.svc, r, body)
	now := p.now()
	t, refusal := p.admit(d, now)
	if refusal != "" {
		// Read (a bounded part of) the body so the client sees the answer
		// rather than a reset while it is still sending.
		_, _ = io.CopyN(io.Discard, r.Body, MaxBatchBody)
		writeError(w, r, e.svc, http.StatusServiceUnavailable, "ServerBusy", refusal, now)
		return
	}
	rc := &respCount{}
	switch d.post {
	case postEntities:
		rc.c = &valueCounter{}
	case postMessages:
		rc.c = newSubstrCounter("<QueueMessage>")
	}
	if rc.c != nil {
		r = r.WithContext(context.WithValue(r.Context(), respCountKey{}, rc))
	}
	defer p.settle(t, rc)
	e.rp.ServeHTTP(w, r)
}

// ticket is an admitted request's hold on its buckets.
type ticket struct {
	d         demand
	u         *unit // nil: the account only, or an untracked unit
	untracked bool
	acct      *unit
}

// admit decides at now whether d may go: both its unit's and its account's
// buckets must allow their amounts; if so both are debited. The refusal is
// the 503 message ("" when admitted): the account's when the account
// refused, else the unit's.
func (p *Proxy) admit(d demand, now time.Time) (ticket, string) {
	var firsts []string
	p.mu.Lock()
	acct := p.reg.account(d.account, now)
	t := ticket{d: d, acct: acct}
	if d.unit.kind != "" {
		acct.inflight++ // pinned: a sweep while getting the unit must keep it
		t.u = p.reg.get(d.unit, now)
		t.untracked = t.u == nil
		acct.inflight--
	}
	unitOK, acctOK := true, true
	if t.u != nil && t.u.b != nil {
		t.u.b.advance(now)
		t.u.b.touch(now)
		unitOK = t.u.b.allows(d.amount)
	}
	if acct.b != nil {
		acct.b.advance(now)
		acct.b.touch(now)
		acctOK = acct.b.allows(d.accountAmount)
	}
	if !unitOK && t.u.throttled(now) {
		firsts = append(firsts, p.firstText(t.u, now))
	}
	if !acctOK && acct.throttled(now) {
		firsts = append(firsts, p.firstText(acct, now))
	}
	refusal := ""
	switch {
	case !acctOK:
		refusal = MsgAccountOps
	case !unitOK:
		refusal = MsgServerBusy
	default:
		if t.u != nil {
			if t.u.b != nil {
				t.u.b.take(d.amount)
			}
			t.u.inflight++
		}
		if acct.b != nil {
			acct.b.take(d.accountAmount)
		}
		acct.inflight++
	}
	p.mu.Unlock()
	for _, s := range firsts {
		p.logf("%s", s)
	}
	return t, refusal
}

func (p *Proxy) firstText(u *unit, now time.Time) string {
	return fmt.Sprintf("throttle: first 503 ServerBusy for %s %s at +%s (sustaining %.4g of %g/s)",
		u.key.kind, u.key.name, now.Sub(p.started).Round(time.Millisecond), u.b.rate(), u.b.target)
}

// settle replaces reserved amounts by counted ones and books the admitted
// amounts.
func (p *Proxy) settle(t ticket, rc *respCount) {
	d := t.d
	unitAmt, acctAmt := d.amount, d.accountAmount
	if d.post != postNone {
		n := int64(1) // a failed or empty answer still cost one
		if rc.ok {
			n = max(rc.c.count(), 1)
		}
		unitAmt = float64(n)
		if d.accountFollows {
			acctAmt = float64(n)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case t.u != nil:
		if t.u.b != nil && unitAmt != d.amount {
			t.u.b.settle(unitAmt - d.amount)
		}
		t.u.stats.Admitted += int64(unitAmt)
		t.u.inflight--
	case t.untracked:
		p.reg.otherFor(d.unit.kind).Admitted += int64(unitAmt)
	}
	if t.acct.b != nil && acctAmt != d.accountAmount {
		t.acct.b.settle(acctAmt - d.accountAmount)
	}
	t.acct.stats.Admitted += int64(acctAmt)
	t.acct.inflight--
}

// Stats returns every unit's figures so far, by kind then name.
func (p *Proxy) Stats() []UnitStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reg.stats()
}

// Close stops the listeners (waiting up to 5 s for requests in flight)
// and logs a summary. It is safe to call more than once.
func (p *Proxy) Close() error {
	p.closeOnce.Do(func() {
		if p.stopAfter != nil {
			p.stopAfter()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, e := range p.endpoints {
			if err := e.srv.Shutdown(ctx); err != nil {
				e.srv.Close()
				p.closeErr = errors.Join(p.closeErr, fmt.Errorf("throttle: %s listener: %w", e.svc, err))
			}
		}
		if p.transport != nil {
			p.transport.CloseIdleConnections()
		}
		var units, refused int64
		for _, s := range p.Stats() {
			if s.Throttled > 0 {
				units++
				refused += s.Throttled
			}
		}
		p.logf("throttle: closed after %s: %d units refused %d requests in all", p.now().Sub(p.started).Round(time.Millisecond), units, refused)
	})
	return p.closeErr
}

// logf writes one line to Options.Log.
func (p *Proxy) logf(format string, args ...any) {
	if p.opts.Log == nil {
		return
	}
	p.logMu.Lock()
	defer p.logMu.Unlock()
	fmt.Fprintf(p.opts.Log, format+"\n", args...)
}
