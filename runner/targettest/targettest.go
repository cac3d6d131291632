// Package targettest helps tests look at a storage target from outside a
// run: it plants resources stormcheck did not create, named like its own,
// and lists everything a target holds, so a test can show that a cleanup
// deleted exactly the run's resources and nothing else.
package targettest

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/stormcheck/stormcheck/runner/connstr"
)

// LookAlikes are resources stormcheck did not create, named like its own:
// the prefix shape of a run without its marker, a marker-shaped container
// without the stamp, one stamped for another run id, and plain names.
var LookAlikes = []string{
	"container sc0badc0de-counter", "container sc0badc0de", "container sc1234abcd",
	"container someone-elses", "container scratch",
	"table sc0badc0decounter", "table someoneelses",
	"queue sc0badc0de-q0", "queue someone-elses",
}

// EarlierRun is what an earlier stormcheck run (id 0e0e0e0e) left: its
// stamped marker and one resource per service. A later run, and a cleanup
// of another run, must leave it alone.
var EarlierRun = []string{
	"container sc0e0e0e0e", "container sc0e0e0e0e-counter",
	"table sc0e0e0e0eentitiest1a2b", "queue sc0e0e0e0e-messages-q0",
}

// PlantEarlierRun creates EarlierRun, its marker stamped as created at.
func (c *Clients) PlantEarlierRun(ctx context.Context, at time.Time) error {
	id, created := "0e0e0e0e", at.UTC().Format(time.RFC3339)
	if _, err := c.Blob.CreateContainer(ctx, "sc"+id, &container.CreateOptions{
		Metadata: map[string]*string{"stormcheck_run": &id, "stormcheck_created": &created}}); err != nil {
		return err
	}
	if _, err := c.Blob.CreateContainer(ctx, "sc"+id+"-counter", nil); err != nil {
		return err
	}
	if _, err := c.Table.CreateTable(ctx, "sc"+id+"entitiest1a2b", nil); err != nil {
		return err
	}
	_, err := c.Queue.CreateQueue(ctx, "sc"+id+"-messages-q0", nil)
	return err
}

// Clients are a target's three service clients.
type Clients struct {
	Blob  *service.Client
	Table *aztables.ServiceClient
	Queue *azqueue.ServiceClient
}

// Open makes the clients for a connection string, read as stormcheck
// reads it (runner/connstr), with the SDK's own credentials: each at the
// endpoint the string names or derives, signed with its key or carrying
// its SAS.
func Open(cs string) (*Clients, error) {
	p, err := connstr.Parse(cs)
	if err != nil {
		return nil, err
	}
	var urls [3]string
	for i, s := range []connstr.Service{connstr.Blob, connstr.Table, connstr.Queue} {
		if urls[i], err = p.ClientURL(s); err != nil {
			return nil, fmt.Errorf("the connection string %w", err)
		}
	}
	c := &Clients{}
	if p.Auth != connstr.SharedKey {
		if c.Blob, err = service.NewClientWithNoCredential(urls[0], nil); err != nil {
			return nil, err
		}
		if c.Table, err = aztables.NewServiceClientWithNoCredential(urls[1], nil); err != nil {
			return nil, err
		}
		c.Queue, err = azqueue.NewServiceClientWithNoCredential(urls[2], nil)
		return c, err
	}
	bcred, err := service.NewSharedKeyCredential(p.AccountName, p.AccountKey)
	if err != nil {
		return nil, err
	}
	if c.Blob, err = service.NewClientWithSharedKeyCredential(urls[0], bcred, nil); err != nil {
		return nil, err
	}
	tcred, err := aztables.NewSharedKeyCredential(p.AccountName, p.AccountKey)
	if err != nil {
		return nil, err
	}
	if c.Table, err = aztables.NewServiceClientWithSharedKey(urls[1], tcred, nil); err != nil {
		return nil, err
	}
	qcred, err := azqueue.NewSharedKeyCredential(p.AccountName, p.AccountKey)
	if err != nil {
		return nil, err
	}
	c.Queue, err = azqueue.NewServiceClientWithSharedKeyCredential(urls[2], qcred, nil)
	return c, err
}

// PlantLookAlikes creates LookAlikes (sc1234abcd stamped with the metadata
// of a run marker, but for run id 99999999).
func (c *Clients) PlantLookAlikes(ctx context.Context) error {
	other := "99999999"
	for _, r := range LookAlikes {
		var kind, name string
		fmt.Sscan(r, &kind, &name)
		var err error
		switch kind {
		case "container":
			var o *container.CreateOptions
			if name == "sc1234abcd" {
				o = &container.CreateOptions{Metadata: map[string]*string{"stormcheck_run": &other}}
			}
			_, err = c.Blob.CreateContainer(ctx, name, o)
		case "table":
			_, err = c.Table.CreateTable(ctx, name, nil)
		case "queue":
			_, err = c.Queue.CreateQueue(ctx, name, nil)
		}
		if err != nil {
			return fmt.Errorf("planting %s: %w", r, err)
		}
	}
	return nil
}

// List is every container, table and queue on the target ("container x"),
// sorted.
func (c *Clients) List(ctx context.Context) ([]string, error) {
	var all []string
	cp := c.Blob.NewListContainersPager(nil)
	for cp.More() {
		page, err := cp.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, x := range page.ContainerItems {
			all = append(all, "container "+*x.Name)
		}
	}
	tp := c.Table.NewListTablesPager(nil)
	for tp.More() {
		page, err := tp.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, x := range page.Tables {
			all = append(all, "table "+*x.Name)
		}
	}
	qp := c.Queue.NewListQueuesPager(nil)
	for qp.More() {
		page, err := qp.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, x := range page.Queues {
			all = append(all, "queue "+*x.Name)
		}
	}
	sort.Strings(all)
	return all, nil
}

// SortedLookAlikes is LookAlikes sorted, as List returns them.
func SortedLookAlikes() []string {
	s := append([]string(nil), LookAlikes...)
	sort.Strings(s)
	return s
}

// AccountSAS is an account SAS signed with the account's key, good for an
// hour, for the blob, queue and table services, every resource type and
// every permission a run needs (read, write, delete, list, add, create,
// update, process): what a user gives as SharedAccessSignature.
func AccountSAS(account, key string) (string, error) {
	cred, err := aztables.NewSharedKeyCredential(account, key)
	if err != nil {
		return "", err
	}
	q, err := aztables.AccountSASSignatureValues{
		Protocol:      aztables.SASProtocolHTTPSandHTTP,
		StartTime:     time.Now().Add(-5 * time.Minute).UTC(),
		ExpiryTime:    time.Now().Add(time.Hour).UTC(),
		Permissions:   aztables.AccountSASPermissions{Read: true, Write: true, Delete: true, List: true, Add: true, Create: true, Update: true, Process: true}.String(),
		Services:      "bqt",
		ResourceTypes: aztables.AccountSASResourceTypes{Service: true, Container: true, Object: true}.String(),
	}.Sign(cred)
	if err != nil {
		return "", err
	}
	return q.Encode(), nil
}
