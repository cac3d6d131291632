package faults

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/scenarios"
)

// netChain starts a loopback upstream that counts requests and answers a
// 4 KiB body, and a Network in front of it.
func netChain(t *testing.T) (n *Network, url string, hits *atomic.Int64) {
	hits = &atomic.Int64{}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		hits.Add(1)
		_, _ = io.WriteString(w, strings.Repeat("x", 4096))
	}))
	t.Cleanup(up.Close)
	n, urls, err := StartNetwork(map[string]string{"blob": up.URL + "/devstoreaccount1"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Stop)
	return n, urls["blob"], hits
}

// get sends one request on a fresh connection.
func get(url string, timeout time.Duration) (int, error) {
	c := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := c.Get(url + "/c/k0")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	return len(b), nil
}

func TestNetworkFaults(t *testing.T) {
	for _, c := range []struct {
		kind      string
		edit      func(*scenarios.Fault)
		reaches   bool // the upstream sees the request
		fails     bool // the client gets no whole answer
		clientTmo time.Duration
	}{
		{kind: "net.reset-before", reaches: false, fails: true},
		{kind: "net.reset-after", reaches: true, fails: true},
		{kind: "net.blackhole", reaches: false, fails: true, clientTmo: 300 * time.Millisecond},
		{kind: "net.cut-response", edit: func(f *scenarios.Fault) { f.Bytes = 200 }, reaches: true, fails: true},
		{kind: "net.latency", edit: func(f *scenarios.Fault) { f.Latency = 5 * time.Millisecond; f.Jitter = time.Millisecond }, reaches: true},
		{kind: "net.bandwidth", edit: func(f *scenarios.Fault) { f.Rate = 1000 }, reaches: true},
	} {
		t.Run(c.kind, func(t *testing.T) {
			n, url, hits := netChain(t)
			f := scenarios.Fault{Name: "f", Kind: c.kind, Fraction: 1}
			if c.edit != nil {
				c.edit(&f)
			}
			if err := n.Open(f); err != nil {
				t.Fatal(err)
			}
			if got := len(n.proxies["blob"].Toxics.GetToxicArray()); got != len(toxicsFor(f)) {
				t.Fatalf("%d toxics on the proxy, want %d", got, len(toxicsFor(f)))
			}
			tmo := c.clientTmo
			if tmo == 0 {
				tmo = 30 * time.Second
			}
			size, err := get(url, tmo)
			switch {
			case c.fails && err == nil && size == 4096:
				t.Fatalf("the client got the whole answer through %s", c.kind)
			case !c.fails && (err != nil || size != 4096):
				t.Fatalf("%s: %d bytes, %v", c.kind, size, err)
			}
			if c.kind == "net.reset-after" || c.kind == "net.cut-response" {
				// the answer is lost or cut only once the request reached it
				deadline := time.Now().Add(10 * time.Second)
				for hits.Load() == 0 && time.Now().Before(deadline) {
					time.Sleep(5 * time.Millisecond)
				}
			}
			if got := hits.Load() > 0; got != c.reaches {
				t.Fatalf("upstream reached: %v, want %v", got, c.reaches)
			}
			if err := n.Close(f); err != nil {
				t.Fatal(err)
			}
			if got := len(n.proxies["blob"].Toxics.GetToxicArray()); got != 0 {
				t.Fatalf("%d toxics left after Close", got)
			}
			if size, err := get(url, 30*time.Second); err != nil || size != 4096 {
				t.Fatalf("after the fault lifted: %d bytes, %v", size, err)
			}
		})
	}
}
