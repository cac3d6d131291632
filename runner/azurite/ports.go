package azurite

import (
	"context"
	"fmt"
	"net"
	"regexp"

	"github.com/stormcheck/stormcheck/internal/procgroup"
)

// listenAddr is one "Azurite X service is successfully listening at URL" line.
type listenAddr struct {
	service string // "Blob", "Queue" or "Table"
	scheme  string // "http" or "https"
	port    string
}

var listenRE = regexp.MustCompile(`Azurite (Blob|Queue|Table) service is successfully listening at (https?)://(\S+)`)

// parseListening recognises the line Azurite prints once a service's socket
// is bound; with --*Port 0 it carries the kernel-chosen port.
func parseListening(line string) (listenAddr, bool) {
	m := listenRE.FindStringSubmatch(line)
	if m == nil {
		return listenAddr{}, false
	}
	_, port, err := net.SplitHostPort(m[3])
	if err != nil || port == "0" {
		return listenAddr{}, false
	}
	return listenAddr{service: m[1], scheme: m[2], port: port}, true
}

// waitListening collects the three services' addresses, failing if the
// process exits or ctx ends first.
func waitListening(ctx context.Context, s *logSink, p *procgroup.Process) (map[string]listenAddr, error) {
	got := map[string]listenAddr{}
	for len(got) < 3 {
		select {
		case a := <-s.listen:
			got[a.service] = a
		case <-p.Done():
			return nil, fmt.Errorf("process exited before listening (%v)", p.Err())
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for its ports (%d of 3 services listening): %w", len(got), context.Cause(ctx))
		}
	}
	return got, nil
}
