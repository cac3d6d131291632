package runner

import (
	"net/http"
	"slices"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/stormcheck/stormcheck/runner/sharedkey"
)

// signPolicy is the per-retry policy that signs each attempt with Shared
// Key, in place of azblob's own (same headers, less CPU: runner/sharedkey).
type signPolicy struct{ s *sharedkey.Signer }

func (p signPolicy) Do(req *policy.Request) (*http.Response, error) {
	if err := p.s.Sign(req.Raw()); err != nil {
		return nil, err
	}
	return req.Next()
}

// sharedKeyBlobClient is the Blob service client at serviceURL whose
// requests stormcheck signs with the account's key.
func sharedKeyBlobClient(serviceURL, account, key string, opts *service.ClientOptions) (*service.Client, error) {
	s, err := sharedkey.New(account, key)
	if err != nil {
		return nil, err
	}
	o := *opts
	o.PerRetryPolicies = append(slices.Clip(o.PerRetryPolicies), signPolicy{s})
	return service.NewClientWithNoCredential(serviceURL, &o)
}
