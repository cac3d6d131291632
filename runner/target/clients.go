package target

import (
	"net"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// newHTTPClient is the one HTTP client every SDK client of a run shares.
// Idle connections are closed after 4 s, under Azurite's 5 s keep-alive, so
// a request is never sent on a connection the server is closing (Go does not
// resend a PUT that fails that way, and it would be recorded as unknown).
func NewHTTPClient(maxConns int) *http.Client {
	tr := &http.Transport{
		Proxy:                 nil, // loopback targets must not go through a proxy from the environment
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:          maxConns,
		MaxIdleConnsPerHost:   maxConns,
		IdleConnTimeout:       4 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ExpectContinueTimeout: time.Second,
		DisableCompression:    true,
		ForceAttemptHTTP2:     false,
	}
	return &http.Client{Transport: tr}
}

// clientOptions disables the SDK's own retries: every attempt must be the
// harness's, so that each one is recorded.
func clientOptions(hc *http.Client) azcore.ClientOptions {
	return azcore.ClientOptions{
		Transport:       CountingTransport{hc},
		Retry:           policy.RetryOptions{MaxRetries: -1},
		Telemetry:       policy.TelemetryOptions{ApplicationID: "stormcheck"},
		PerCallPolicies: []policy.Policy{injectHeaders{}, captureBody{}},
	}
}
