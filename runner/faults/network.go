package faults

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	zlog "github.com/rs/zerolog/log"

	"github.com/stormcheck/stormcheck/scenarios"
)

// Network is the TCP stage of the chain: a Toxiproxy proxy per service, in
// process, between the SDK and the next hop (the HTTP proxy or Azurite).
// Network faults are Toxiproxy toxics added when their window opens and
// removed when it closes.
type Network struct {
	mu      sync.Mutex
	proxies map[string]*toxiproxy.Proxy // by service
	open    map[string][]string         // fault name -> "service/toxic" added
}

// StartNetwork starts a Toxiproxy proxy on 127.0.0.1 for each service URL
// in ups ("blob", "queue", "table" to an http://HOST:PORT/PATH URL) and
// returns the URLs to use instead: the same path on the proxy's address.
func StartNetwork(ups map[string]string) (*Network, map[string]string, error) {
	// Some toxics (bandwidth) log to zerolog's global logger, at trace
	// level, per chunk: stormcheck has no use for it and nothing else in it
	// logs with zerolog.
	silenceOnce.Do(func() { zlog.Logger = zerolog.Nop() })
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop())
	n := &Network{proxies: map[string]*toxiproxy.Proxy{}, open: map[string][]string{}}
	out := map[string]string{}
	for svc, raw := range ups {
		if raw == "" {
			continue
		}
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" {
			n.Stop()
			return nil, nil, fmt.Errorf("network faults: %s upstream is not a URL", svc)
		}
		p := toxiproxy.NewProxy(srv, "stormcheck-"+svc, "127.0.0.1:0", u.Host)
		if err := p.Start(); err != nil {
			n.Stop()
			return nil, nil, fmt.Errorf("network faults: %s listener: %w", svc, err)
		}
		n.proxies[svc] = p
		v := *u
		v.Host = p.Listen
		out[svc] = v.String()
	}
	return n, out, nil
}

var silenceOnce sync.Once

// toxic is one Toxiproxy toxic as its JSON API takes it.
type toxic struct {
	Name       string         `json:"name"`
	Type       string         `json:"type"`
	Stream     string         `json:"stream"`
	Toxicity   float32        `json:"toxicity"`
	Attributes map[string]any `json:"attributes"`
}

// toxicsFor returns the toxics that carry network fault f.
func toxicsFor(f scenarios.Fault) []toxic {
	t := func(typ, stream string, attrs map[string]any) toxic {
		return toxic{Name: f.Name + "-" + stream, Type: typ, Stream: stream, Toxicity: float32(f.Fraction), Attributes: attrs}
	}
	switch f.Kind {
	case "net.latency":
		return []toxic{t("latency", "downstream", map[string]any{"latency": f.Latency.Milliseconds(), "jitter": f.Jitter.Milliseconds()})}
	case "net.bandwidth":
		return []toxic{t("bandwidth", "downstream", map[string]any{"rate": int64(max(f.Rate, 1))})}
	case "net.reset-before":
		return []toxic{t("reset_peer", "upstream", map[string]any{"timeout": 0})}
	case "net.reset-after":
		return []toxic{t("reset_peer", "downstream", map[string]any{"timeout": 0})}
	case "net.blackhole":
		return []toxic{t("timeout", "upstream", map[string]any{"timeout": 0}), t("timeout", "downstream", map[string]any{"timeout": 0})}
	case "net.cut-response":
		return []toxic{t("limit_data", "downstream", map[string]any{"bytes": f.Bytes})}
	}
	return nil
}

// Open adds f's toxics on the services in its scope (all when none).
func (n *Network) Open(f scenarios.Fault) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if len(n.open[f.Name]) > 0 {
		return nil
	}
	for _, svc := range scopeServices(f) {
		p := n.proxies[svc]
		if p == nil {
			continue
		}
		for _, tx := range toxicsFor(f) {
			b, _ := json.Marshal(tx)
			if _, err := p.Toxics.AddToxicJson(bytes.NewReader(b)); err != nil {
				return fmt.Errorf("fault %s: adding toxic %s on %s: %w", f.Name, tx.Type, svc, err)
			}
			n.open[f.Name] = append(n.open[f.Name], svc+"/"+tx.Name)
		}
	}
	return nil
}

// Close removes f's toxics.
func (n *Network) Close(f scenarios.Fault) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	var first error
	for _, st := range n.open[f.Name] {
		svc, name, _ := strings.Cut(st, "/")
		if err := n.proxies[svc].Toxics.RemoveToxic(context.Background(), name); err != nil && first == nil {
			first = fmt.Errorf("fault %s: removing toxic %s on %s: %w", f.Name, name, svc, err)
		}
	}
	delete(n.open, f.Name)
	return first
}

// Stop closes every proxy and its connections.
func (n *Network) Stop() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, p := range n.proxies {
		p.Stop()
	}
}

func scopeServices(f scenarios.Fault) []string {
	if len(f.Services) > 0 {
		return f.Services
	}
	return scenarios.FaultServices
}
