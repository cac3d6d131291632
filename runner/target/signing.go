package target

import (
	"slices"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/stormcheck/stormcheck/runner/sharedkey"
)

// sharedKeyBlobClient is the Blob service client at serviceURL whose
// requests stormcheck signs with the account's key.
func SharedKeyBlobClient(serviceURL, account, key string, opts *service.ClientOptions) (*service.Client, error) {
	s, err := sharedkey.New(account, key)
	if err != nil {
		return nil, err
	}
	o := *opts
	o.PerRetryPolicies = append(slices.Clip(o.PerRetryPolicies), s.Policy()) // in place of azblob's signer: runner/sharedkey
	return service.NewClientWithNoCredential(serviceURL, &o)
}
