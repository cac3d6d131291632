package throttle

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
)

func TestStartValidates(t *testing.T) {
	ctx := context.Background()
	const ok = "http://127.0.0.1:1/devstoreaccount1"
	for _, tc := range []struct {
		name string
		o    Options
		want string // in the error
		not  string // never in the error
	}{
		{"no upstream", Options{}, "no upstream", ""},
		{"remote IP", Options{Blob: "http://10.0.0.1:10000/devstoreaccount1"}, "not loopback", ""},
		{"remote name", Options{Table: "http://example.com/devstoreaccount1"}, "not loopback", ""},
		{"localhost lookalike", Options{Queue: "http://localhost.example.com:1/x"}, "not loopback", ""},
		{"https", Options{Blob: "https://127.0.0.1:1/devstoreaccount1"}, "only http", ""},
		{"query (SAS)", Options{Blob: "http://127.0.0.1:1/devstoreaccount1?sv=1&sig=SECRET"}, "no query", "SECRET"},
		{"credentials", Options{Blob: "http://user:SECRET@127.0.0.1:1/devstoreaccount1"}, "credentials", "SECRET"},
		{"negative limit", Options{Blob: ok, Limits: Limits{BlobRequests: -1}}, "BlobRequests", ""},
		{"NaN limit", Options{Blob: ok, Limits: Limits{AccountRequests: math.NaN()}}, "AccountRequests", ""},
		{"negative burst", Options{Blob: ok, Burst: -time.Second}, "Burst", ""},
		{"negative warm-up", Options{Blob: ok, Warmup: -time.Second}, "Warmup", ""},
		{"negative delay", Options{Blob: ok, Delay: -time.Second}, "Delay", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Start(ctx, tc.o)
			if err == nil {
				p.Close()
				t.Fatal("Start accepted it")
			}
			if !strings.Contains(err.Error(), tc.want) || (tc.not != "" && strings.Contains(err.Error(), tc.not)) {
				t.Errorf("error %q: want %q in it, and not %q", err, tc.want, tc.not)
			}
		})
	}
	// Loopback upstreams are accepted; the proxy URLs keep their paths.
	ctx, cancel := context.WithCancel(ctx)
	p, err := Start(ctx, Options{Blob: "http://localhost:1/devstoreaccount1", Table: "http://[::1]:1/devstoreaccount1/"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.BlobURL, "http://127.0.0.1:") || !strings.HasSuffix(p.BlobURL, "/devstoreaccount1") ||
		!strings.HasSuffix(p.TableURL, "/devstoreaccount1") || p.QueueURL != "" || p.BlobURL == p.TableURL {
		t.Errorf("URLs blob %q queue %q table %q", p.BlobURL, p.QueueURL, p.TableURL)
	}
	cancel() // ctx ends the proxy
	// A deadline, not a speed: that it stops is asserted, not how soon.
	deadline := time.Now().Add(time.Minute)
	for {
		_, err := http.Get(p.BlobURL)
		if err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("still serving after its context ended")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close after the context ended: %v", err)
	}
}

// newTestProxy is a Proxy without listeners, for admit and settle.
func newTestProxy(l Limits, burst, warmup time.Duration) *Proxy {
	return &Proxy{opts: Options{Limits: l, Burst: burst, Warmup: warmup}, started: t0, now: func() time.Time { return t0 },
		reg: newRegistry(l, burst, warmup)}
}

func statsOf(p *Proxy, kind UnitKind, name string) UnitStats {
	for _, s := range p.Stats() {
		if s.Kind == kind && s.Name == name {
			return s
		}
	}
	return UnitStats{}
}

func blobDemand(name string) demand {
	return demand{account: testAccount, unit: unitKey{KindBlob, testAccount + "/c/" + name}, amount: 1, accountAmount: 1}
}

func TestAdmitUnitAndAccount(t *testing.T) {
	p := newTestProxy(Limits{BlobRequests: 2, AccountRequests: 5}, time.Second, 0)
	admitOK := func(d demand, now time.Time) bool {
		tk, refusal := p.admit(d, now)
		if refusal == "" {
			p.settle(tk, &respCount{})
		}
		return refusal == ""
	}
	if !admitOK(blobDemand("a"), t0) || !admitOK(blobDemand("a"), t0) {
		t.Fatal("two requests to a 2/s blob refused")
	}
	if _, refusal := p.admit(blobDemand("a"), t0); refusal != MsgServerBusy {
		t.Fatalf("third request to blob a: refusal %q, want %q", refusal, MsgServerBusy)
	}
	if !admitOK(blobDemand("b"), t0) || !admitOK(blobDemand("c"), t0) || !admitOK(blobDemand("d"), t0) {
		t.Fatal("other blobs refused under the account limit")
	}
	if _, refusal := p.admit(blobDemand("e"), t0); refusal != MsgAccountOps {
		t.Fatalf("sixth request in the account: refusal %q, want %q", refusal, MsgAccountOps)
	}
	a, e, acct := statsOf(p, KindBlob, testAccount+"/c/a"), statsOf(p, KindBlob, testAccount+"/c/e"), statsOf(p, KindAccount, testAccount)
	if a.Admitted != 2 || a.Throttled != 1 || !a.FirstThrottle.Equal(t0) {
		t.Errorf("blob a: %+v", a)
	}
	if e.Admitted != 0 || e.Throttled != 0 {
		t.Errorf("blob e (refused by the account, not by itself): %+v", e)
	}
	if acct.Admitted != 5 || acct.Throttled != 1 {
		t.Errorf("account: %+v", acct)
	}
}

func TestSettleCountsAfterTheResponse(t *testing.T) {
	p := newTestProxy(Limits{PartitionEntities: 10, AccountRequests: 100}, time.Second, 0)
	q := demand{account: testAccount, unit: unitKey{KindPartition, testAccount + "/t/p"}, amount: 1, accountAmount: 1, post: postEntities, accountFollows: true}
	tk, refusal := p.admit(q, t0)
	if refusal != "" {
		t.Fatal(refusal)
	}
	c := &valueCounter{}
	c.feed([]byte(`{"value":[` + strings.TrimSuffix(strings.Repeat(`{"a":1},`, 30), ",") + `]}`))
	p.settle(tk, &respCount{c: c, ok: true})
	if s := statsOf(p, KindPartition, testAccount+"/t/p"); s.Admitted != 30 {
		t.Errorf("partition admitted %d, want the 30 entities returned", s.Admitted)
	}
	if s := statsOf(p, KindAccount, testAccount); s.Admitted != 30 {
		t.Errorf("account admitted %d, want 30 entities", s.Admitted)
	}
	// The partition is 20 in debt: refused until 2.1 s later.
	if _, refusal := p.admit(on(KindPartition, "t/p", 1), t0.Add(2*time.Second)); refusal != MsgServerBusy {
		t.Errorf("after 2 s: refusal %q, want ServerBusy", refusal)
	}
	tk, refusal = p.admit(on(KindPartition, "t/p", 1), t0.Add(2200*time.Millisecond))
	if refusal != "" {
		t.Fatalf("after 2.2 s: refused %q", refusal)
	}
	p.settle(tk, &respCount{})
	// A failed query (no counted response) costs 1.
	tk, _ = p.admit(demand{account: testAccount, amount: 1, accountAmount: 1, post: postEntities, accountFollows: true}, t0.Add(3*time.Second))
	p.settle(tk, &respCount{c: &valueCounter{}})
	if s := statsOf(p, KindAccount, testAccount); s.Admitted != 32 {
		t.Errorf("account admitted %d, want 30+1+1", s.Admitted)
	}
}

func TestUnitsAreBounded(t *testing.T) {
	p := newTestProxy(Limits{BlobRequests: 10}, time.Second, 0)
	p.reg.max = 3 // the account and two units
	for _, n := range []string{"a", "b", "c"} {
		tk, refusal := p.admit(blobDemand(n), t0)
		if refusal != "" {
			t.Fatal(refusal)
		}
		p.settle(tk, &respCount{})
	}
	if s := statsOf(p, KindBlob, OtherUnits); s.Admitted != 1 {
		t.Errorf("the untracked unit's request: %+v", s)
	}
	// 10 s later a and b are as good as new: a sweep forgets them.
	tk, _ := p.admit(blobDemand("d"), t0.Add(10*time.Second))
	p.settle(tk, &respCount{})
	if s := statsOf(p, KindBlob, testAccount+"/c/d"); s.Admitted != 1 {
		t.Errorf("blob d not tracked after the sweep: %+v", s)
	}
	if s := statsOf(p, KindBlob, OtherUnits); s.Admitted != 3 {
		t.Errorf("other units after the sweep: %+v", s)
	}
	if n := len(p.reg.units); n > 3 {
		t.Errorf("%d units tracked, max 3", n)
	}

	// Accounts too: past the bound, new accounts share one bucket.
	p = newTestProxy(Limits{AccountRequests: 1}, time.Second, 0)
	p.reg.max = 1
	for i, name := range []string{"a1", "a2", "a3"} {
		tk, refusal := p.admit(demand{account: name, amount: 1, accountAmount: 1}, t0)
		if want := []string{"", "", MsgAccountOps}[i]; refusal != want {
			t.Fatalf("account %s: refusal %q, want %q", name, refusal, want)
		}
		if refusal == "" {
			p.settle(tk, &respCount{})
		}
	}
	if s := statsOf(p, KindAccount, OtherUnits); s.Admitted != 1 || s.Throttled != 1 {
		t.Errorf("shared account bucket: %+v", s)
	}
	if s := statsOf(p, KindAccount, "a1"); s.Admitted != 1 {
		t.Errorf("account a1: %+v", s)
	}
}

// TestErrorBodies checks the 503 answers' shape and that the SDK's own
// error parsing reads them as ServerBusy.
func TestErrorBodies(t *testing.T) {
	for _, svc := range []service{svcBlob, svcQueue, svcTable} {
		t.Run(svc.String(), func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPut, "/devstoreaccount1/c/b", nil)
			r.Header.Set("x-ms-version", "2025-01-05")
			r.Header.Set("x-ms-client-request-id", "client-1")
			w := httptest.NewRecorder()
			writeError(w, r, svc, http.StatusServiceUnavailable, "ServerBusy", MsgServerBusy, t0)
			resp := w.Result()
			resp.Request = r
			body, _ := io.ReadAll(resp.Body)
			resp.Body = io.NopCloser(strings.NewReader(string(body)))
			h := resp.Header
			if h.Get("x-ms-error-code") != "ServerBusy" || h.Get("x-ms-version") != "2025-01-05" ||
				h.Get("x-ms-client-request-id") != "client-1" || len(h.Get("x-ms-request-id")) != 36 {
				t.Errorf("headers %v", h)
			}
			if svc == svcTable {
				var e struct {
					E struct {
						Code    string `json:"code"`
						Message struct{ Lang, Value string }
					} `json:"odata.error"`
				}
				if err := json.Unmarshal(body, &e); err != nil || e.E.Code != "ServerBusy" || e.E.Message.Lang != "en-US" ||
					!strings.HasPrefix(e.E.Message.Value, MsgServerBusy+"\nRequestId:"+h.Get("x-ms-request-id")+"\nTime:2026-01-01T00:00:00.0000000Z") {
					t.Errorf("table body %s (%v)", body, err)
				}
			} else {
				var e struct {
					XMLName xml.Name `xml:"Error"`
					Code    string
					Message string
				}
				if err := xml.Unmarshal(body, &e); err != nil || e.Code != "ServerBusy" || !strings.HasPrefix(e.Message, MsgServerBusy+"\nRequestId:") ||
					!strings.HasPrefix(string(body), `<?xml version="1.0" encoding="utf-8"?><Error><Code>ServerBusy</Code><Message>`) {
					t.Errorf("body %s (%v)", body, err)
				}
			}
			// Without the header, the SDK falls back on the body.
			resp.Header.Del("x-ms-error-code")
			err := runtime.NewResponseError(resp)
			var re *azcore.ResponseError
			if !errors.As(err, &re) || re.StatusCode != 503 || re.ErrorCode != "ServerBusy" {
				t.Errorf("SDK parsed %v", err)
			}
			if svc == svcBlob && !bloberror.HasCode(err, bloberror.ServerBusy) {
				t.Errorf("bloberror.HasCode(ServerBusy) is false")
			}
		})
	}
}

func TestOversizedBodies(t *testing.T) {
	p := newTestProxy(Limits{}, time.Second, 0)
	e := &endpoint{p: p, svc: svcTable}
	// Announced too large: refused before reading.
	r := httptest.NewRequest(http.MethodPost, "/devstoreaccount1/$batch", strings.NewReader("x"))
	r.ContentLength = MaxBatchBody + 1
	w := httptest.NewRecorder()
	e.ServeHTTP(w, r)
	if w.Code != http.StatusRequestEntityTooLarge || w.Header().Get("x-ms-error-code") != "RequestBodyTooLarge" {
		t.Errorf("announced: %d %v", w.Code, w.Header())
	}
	// Chunked, found too large while reading: refused after MaxBatchBody+1.
	r = httptest.NewRequest(http.MethodPost, "/devstoreaccount1/t1", strings.NewReader(strings.Repeat("x", MaxBatchBody+10)))
	r.ContentLength = -1
	w = httptest.NewRecorder()
	e.ServeHTTP(w, r)
	if w.Code != http.StatusRequestEntityTooLarge || !strings.Contains(w.Body.String(), "RequestBodyTooLarge") {
		t.Errorf("chunked: %d %s", w.Code, w.Body.String())
	}
}
