package runner

import (
	"context"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/stormcheck/stormcheck/runner/azurite"
)

// foreignTableAndQueue creates a table and a queue stormcheck did not make,
// which cleanup must leave alone.
func foreignTableAndQueue(ctx context.Context, t *testing.T, inst *azurite.Instance) (*aztables.ServiceClient, *azqueue.ServiceClient) {
	t.Helper()
	tcred, _ := aztables.NewSharedKeyCredential(inst.Account, inst.Key)
	tsvc, err := aztables.NewServiceClientWithSharedKey(inst.TableURL, tcred, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tsvc.CreateTable(ctx, "someoneelses", nil); err != nil {
		t.Fatal(err)
	}
	qcred, _ := azqueue.NewSharedKeyCredential(inst.Account, inst.Key)
	qsvc, err := azqueue.NewServiceClientWithSharedKeyCredential(inst.QueueURL, qcred, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := qsvc.CreateQueue(ctx, "someone-elses", nil); err != nil {
		t.Fatal(err)
	}
	return tsvc, qsvc
}

// listTablesAndQueues lists every table and queue of the account.
func listTablesAndQueues(ctx context.Context, t *testing.T, tsvc *aztables.ServiceClient, qsvc *azqueue.ServiceClient) (tables, queues []string) {
	t.Helper()
	tp := tsvc.NewListTablesPager(nil)
	for tp.More() {
		page, err := tp.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range page.Tables {
			tables = append(tables, *tb.Name)
		}
	}
	qp := qsvc.NewListQueuesPager(nil)
	for qp.More() {
		page, err := qp.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range page.Queues {
			queues = append(queues, *q.Name)
		}
	}
	return tables, queues
}
