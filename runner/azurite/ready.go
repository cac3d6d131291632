package azurite

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
)

// waitReady returns once blob, queue and table each answer a request signed
// with the account's shared key, retrying with short backoff until ctx ends.
// A 401/403 answer is final: the service is up but refuses the credentials.
func waitReady(ctx context.Context, i *Instance) error {
	copts := azcore.ClientOptions{
		Transport: i.httpClient,
		Retry:     policy.RetryOptions{MaxRetries: -1}, // we retry ourselves
		Telemetry: policy.TelemetryOptions{Disabled: true},
	}
	bcred, err := azblob.NewSharedKeyCredential(i.Account, i.Key)
	if err != nil {
		return err
	}
	blob, err := azblob.NewClientWithSharedKeyCredential(i.BlobURL, bcred, &azblob.ClientOptions{ClientOptions: copts})
	if err != nil {
		return err
	}
	qcred, err := azqueue.NewSharedKeyCredential(i.Account, i.Key)
	if err != nil {
		return err
	}
	queue, err := azqueue.NewServiceClientWithSharedKeyCredential(i.QueueURL, qcred, &azqueue.ClientOptions{ClientOptions: copts})
	if err != nil {
		return err
	}
	tcred, err := aztables.NewSharedKeyCredential(i.Account, i.Key)
	if err != nil {
		return err
	}
	table, err := aztables.NewServiceClientWithSharedKey(i.TableURL, tcred, &aztables.ClientOptions{ClientOptions: copts})
	if err != nil {
		return err
	}
	probes := []struct {
		name string
		call func(context.Context) error
	}{
		{"blob", func(ctx context.Context) error {
			_, err := blob.ServiceClient().GetProperties(ctx, nil)
			return err
		}},
		{"queue", func(ctx context.Context) error {
			_, err := queue.GetServiceProperties(ctx, nil)
			return err
		}},
		{"table", func(ctx context.Context) error {
			_, err := table.NewListTablesPager(nil).NextPage(ctx)
			return err
		}},
	}
	for _, p := range probes {
		if err := probe(ctx, p.call); err != nil {
			return fmt.Errorf("%s service not ready: %w", p.name, err)
		}
	}
	return nil
}

// probe calls call until it succeeds, fails with 401/403, or ctx ends.
func probe(ctx context.Context, call func(context.Context) error) error {
	delay := 20 * time.Millisecond
	for {
		actx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := call(actx)
		cancel()
		if err == nil {
			return nil
		}
		var re *azcore.ResponseError
		if errors.As(err, &re) && (re.StatusCode == http.StatusUnauthorized || re.StatusCode == http.StatusForbidden) {
			return fmt.Errorf("authenticated request refused: HTTP %d %s", re.StatusCode, re.ErrorCode)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w; last attempt: %s", context.Cause(ctx), describe(err))
		case <-time.After(delay):
		}
		delay = min(2*delay, 500*time.Millisecond)
	}
}

// describe shortens SDK errors to one line.
func describe(err error) string {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return fmt.Sprintf("HTTP %d %s", re.StatusCode, re.ErrorCode)
	}
	return err.Error()
}
