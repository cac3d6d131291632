package runner

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
)

// The Table and Queue clients of a target. A target that cannot reach one
// of these services (a connection string without its endpoint) still runs
// blob workloads; a table or queue workload then fails at setup with the
// reason kept in TablesErr or QueuesErr. Errors are redacted: the SDK may
// quote a connection string.

func (t *Target) sharedKeyServices(tableURL, queueURL, account, key string, hc *http.Client) {
	if tcred, err := aztables.NewSharedKeyCredential(account, key); err != nil {
		t.TablesErr = redactedErr("table service", err)
	} else {
		t.Table, t.TablesErr = tableClient(aztables.NewServiceClientWithSharedKey(tableURL, tcred, tableOptions(hc)))
	}
	if qcred, err := azqueue.NewSharedKeyCredential(account, key); err != nil {
		t.QueuesErr = redactedErr("queue service", err)
	} else {
		t.Queue, t.QueuesErr = queueClient(azqueue.NewServiceClientWithSharedKeyCredential(queueURL, qcred, queueOptions(hc)))
	}
}

func (t *Target) connectionStringServices(cs string, hc *http.Client) {
	t.Table, t.TablesErr = tableClient(aztables.NewServiceClientFromConnectionString(cs, tableOptions(hc)))
	t.Queue, t.QueuesErr = queueClient(azqueue.NewServiceClientFromConnectionString(cs, queueOptions(hc)))
}

func (t *Target) tokenServices(tableURL, queueURL string, cred azcore.TokenCredential, hc *http.Client) {
	t.Table, t.TablesErr = tableClient(aztables.NewServiceClient(tableURL, cred, tableOptions(hc)))
	t.Queue, t.QueuesErr = queueClient(azqueue.NewServiceClient(queueURL, cred, queueOptions(hc)))
}

func tableOptions(hc *http.Client) *aztables.ClientOptions {
	return &aztables.ClientOptions{ClientOptions: clientOptions(hc)}
}

func queueOptions(hc *http.Client) *azqueue.ClientOptions {
	return &azqueue.ClientOptions{ClientOptions: clientOptions(hc)}
}

func tableClient(c *aztables.ServiceClient, err error) (*aztables.ServiceClient, error) {
	if err != nil {
		return nil, redactedErr("table service", err)
	}
	return c, nil
}

func queueClient(c *azqueue.ServiceClient, err error) (*azqueue.ServiceClient, error) {
	if err != nil {
		return nil, redactedErr("queue service", err)
	}
	return c, nil
}

func redactedErr(what string, err error) error {
	return fmt.Errorf("%s: %s", what, Redact(err.Error()))
}

// tables returns the Table service client, or why the target has none.
func (t *Target) tables() (*aztables.ServiceClient, error) {
	if t.Table == nil {
		if t.TablesErr != nil {
			return nil, t.TablesErr
		}
		return nil, errors.New("the target has no table endpoint")
	}
	return t.Table, nil
}

// queues returns the Queue service client, or why the target has none.
func (t *Target) queues() (*azqueue.ServiceClient, error) {
	if t.Queue == nil {
		if t.QueuesErr != nil {
			return nil, t.QueuesErr
		}
		return nil, errors.New("the target has no queue endpoint")
	}
	return t.Queue, nil
}
