package sharedkey

import (
	"context"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
)

// answer200 is a transport that answers every request 200 with nothing,
// so that a benchmark times the SDK's side of a call alone.
type answer200 struct{}

func (answer200) Do(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Etag": {`"0x1"`}}, Body: http.NoBody, Request: req}, nil
}

// BenchmarkSigning is a whole Get Blob through azblob (If-Match, as
// stormcheck's reads and writes carry conditions), with nothing on the
// wire, signed by azblob's Shared Key policy and by Signer, side by side:
// the difference is the signing's.
//
//	go test -run '^$' -bench Signing -benchmem ./runner/sharedkey/
func BenchmarkSigning(b *testing.B) {
	opts := &service.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: answer200{}, Retry: policy.RetryOptions{MaxRetries: -1}}}
	cred, err := service.NewSharedKeyCredential(account, key)
	if err != nil {
		b.Fatal(err)
	}
	sdk, err := service.NewClientWithSharedKeyCredential("http://127.0.0.1:10000/"+account, cred, opts)
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(account, key)
	if err != nil {
		b.Fatal(err)
	}
	o := *opts
	o.PerRetryPolicies = []policy.Policy{s.Policy()}
	ours, err := service.NewClientWithNoCredential("http://127.0.0.1:10000/"+account, &o)
	if err != nil {
		b.Fatal(err)
	}
	etag := azcore.ETag(`"0x8DC0000000000001"`)
	get := &blob.DownloadStreamOptions{AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: &etag}}}
	for _, c := range []struct {
		name string
		c    *service.Client
	}{{"azblob", sdk}, {"stormcheck", ours}} {
		bb := c.c.NewContainerClient("c").NewBlockBlobClient("k0")
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := bb.DownloadStream(context.Background(), get); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
