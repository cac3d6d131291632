package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
)

// cleanupTables deletes the run's tables: their names are the run prefix
// without hyphens (see tableName). Only when a workload created tables.
func cleanupTables(ctx context.Context, t *Target, prefix string) error {
	if t.Table == nil || !t.usedTables.Load() {
		return nil
	}
	p := strings.ReplaceAll(prefix, "-", "")
	// Table names compare as strings: every name with prefix p sorts in
	// [p, p+"{"), "{" following the letters and digits names may use.
	filter := fmt.Sprintf("TableName ge '%s' and TableName lt '%s{'", p, p)
	pager := t.Table.NewListTablesPager(&aztables.ListTablesOptions{Filter: &filter})
	var errs []error
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("listing tables %s*: %s", p, Redact(err.Error()))
		}
		for _, tb := range page.Tables {
			if tb.Name == nil || !strings.HasPrefix(*tb.Name, p) {
				continue
			}
			if _, err := t.Table.DeleteTable(ctx, *tb.Name, nil); err != nil {
				errs = append(errs, fmt.Errorf("deleting table %s: %s", *tb.Name, Redact(err.Error())))
			}
		}
	}
	return errors.Join(errs...)
}

// cleanupQueues deletes the run's queues. Only when a workload created
// queues.
func cleanupQueues(ctx context.Context, t *Target, prefix string) error {
	if t.Queue == nil || !t.usedQueues.Load() {
		return nil
	}
	pager := t.Queue.NewListQueuesPager(&azqueue.ListQueuesOptions{Prefix: &prefix})
	var errs []error
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("listing queues %s*: %s", prefix, Redact(err.Error()))
		}
		for _, q := range page.Queues {
			if q.Name == nil {
				continue
			}
			if _, err := t.Queue.DeleteQueue(ctx, *q.Name, nil); err != nil {
				errs = append(errs, fmt.Errorf("deleting queue %s: %s", *q.Name, Redact(err.Error())))
			}
		}
	}
	return errors.Join(errs...)
}
