package target

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/stormcheck/stormcheck/runner/connstr"
)

// The Table and Queue clients of a target. A target that cannot reach one
// of these services (a connection string without its endpoint) still runs
// blob workloads; a table or queue workload then fails at setup with the
// reason kept in TablesErr or QueuesErr. Errors are redacted: the SDK may
// quote a URL with a SAS.

func (t *Target) sharedKeyServices(tableURL, queueURL, account, key string, hc *http.Client) {
	t.sharedKeyTables(tableURL, account, key, hc)
	t.sharedKeyQueues(queueURL, account, key, hc)
}

func (t *Target) sharedKeyTables(tableURL, account, key string, hc *http.Client) {
	if cred, err := aztables.NewSharedKeyCredential(account, key); err != nil {
		t.TablesErr = redactedErr("table service", err)
	} else {
		t.Table, t.TablesErr = tableClient(aztables.NewServiceClientWithSharedKey(tableURL, cred, TableOptions(hc)))
		t.tableURL = tableURL
	}
}

func (t *Target) sharedKeyQueues(queueURL, account, key string, hc *http.Client) {
	if cred, err := azqueue.NewSharedKeyCredential(account, key); err != nil {
		t.QueuesErr = redactedErr("queue service", err)
	} else {
		t.Queue, t.QueuesErr = queueClient(azqueue.NewServiceClientWithSharedKeyCredential(queueURL, cred, queueOptions(hc)))
	}
}

// connectionStringClients makes the clients of a connection-string target
// from what runner/connstr read: each service's client at the endpoint the
// string names or derives, with the string's credential (the account's
// key, or the SAS in the URL's query), never from the raw string. A
// service without an endpoint gets no client: Blob stays nil (the caller
// said it does not use it), TablesErr and QueuesErr say why.
func (t *Target) connectionStringClients(p *connstr.Parsed, opts *service.ClientOptions, hc *http.Client) error {
	for _, s := range []connstr.Service{connstr.Blob, connstr.Table, connstr.Queue} {
		if u, _, err := p.Endpoint(s); err == nil {
			t.Desc = "connection string (" + HostOf(u) + ")"
			break
		}
	}
	if u, err := p.ClientURL(connstr.Blob); err == nil {
		if p.Auth == connstr.SharedKey {
			t.Blob, err = SharedKeyBlobClient(u, p.AccountName, p.AccountKey, opts)
			t.setRawSigners(p.AccountName, p.AccountKey)
		} else {
			t.Blob, err = service.NewClientWithNoCredential(u, opts)
		}
		if err != nil {
			return err
		}
	}
	if u, err := p.ClientURL(connstr.Table); err != nil {
		t.TablesErr = fmt.Errorf("table service: the connection string %s", err)
	} else if p.Auth == connstr.SharedKey {
		t.sharedKeyTables(u, p.AccountName, p.AccountKey, hc)
	} else {
		t.Table, t.TablesErr = tableClient(aztables.NewServiceClientWithNoCredential(u, TableOptions(hc)))
	}
	if u, err := p.ClientURL(connstr.Queue); err != nil {
		t.QueuesErr = fmt.Errorf("queue service: the connection string %s", err)
	} else if p.Auth == connstr.SharedKey {
		t.sharedKeyQueues(u, p.AccountName, p.AccountKey, hc)
	} else {
		t.Queue, t.QueuesErr = queueClient(azqueue.NewServiceClientWithNoCredential(u, queueOptions(hc)))
	}
	t.connectionStringFiles(p, hc)
	return nil
}

func (t *Target) tokenServices(tableURL, queueURL string, cred azcore.TokenCredential, hc *http.Client) {
	t.Table, t.TablesErr = tableClient(aztables.NewServiceClient(tableURL, cred, TableOptions(hc)))
	t.Queue, t.QueuesErr = queueClient(azqueue.NewServiceClient(queueURL, cred, queueOptions(hc)))
}

func TableOptions(hc *http.Client) *aztables.ClientOptions {
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
func (t *Target) Tables() (*aztables.ServiceClient, error) {
	if t.Table == nil {
		if t.TablesErr != nil {
			return nil, t.TablesErr
		}
		return nil, errors.New("the target has no table endpoint")
	}
	return t.Table, nil
}

// queues returns the Queue service client, or why the target has none.
func (t *Target) Queues() (*azqueue.ServiceClient, error) {
	if t.Queue == nil {
		if t.QueuesErr != nil {
			return nil, t.QueuesErr
		}
		return nil, errors.New("the target has no queue endpoint")
	}
	return t.Queue, nil
}
