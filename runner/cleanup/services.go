package cleanup

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/stormcheck/stormcheck/runner/target"
)

// cleanupTables deletes the run's tables: their names are the run prefix
// without hyphens (see tableName). Only when a workload created tables, or
// for an earlier run (s.allServices).
func cleanupTables(ctx context.Context, t *target.Target, prefix string, s CleanupScope) (found, left []string, err error) {
	if t.Table == nil || !s.allServices && !t.UsedTables.Load() {
		return nil, nil, nil
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
			return found, append(left, "(listing failed)"), fmt.Errorf("listing tables %s*: %s", p, target.DescribeCallErr(err))
		}
		for _, tb := range page.Tables {
			if tb.Name == nil || !strings.HasPrefix(*tb.Name, p) {
				continue
			}
			found = append(found, "table "+*tb.Name)
			if s.dryRun {
				continue
			}
			if _, err := t.Table.DeleteTable(ctx, *tb.Name, nil); err != nil && !target.IsStatus(err, 404) {
				left = append(left, "table "+*tb.Name)
				errs = append(errs, fmt.Errorf("deleting table %s: %s", *tb.Name, target.DescribeCallErr(err)))
			}
		}
	}
	return found, left, errors.Join(errs...)
}

// cleanupQueues deletes the run's queues. Only when a workload created
// queues, or for an earlier run (s.allServices).
func cleanupQueues(ctx context.Context, t *target.Target, prefix string, s CleanupScope) (found, left []string, err error) {
	if t.Queue == nil || !s.allServices && !t.UsedQueues.Load() {
		return nil, nil, nil
	}
	pager := t.Queue.NewListQueuesPager(&azqueue.ListQueuesOptions{Prefix: &prefix})
	var errs []error
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return found, append(left, "(listing failed)"), fmt.Errorf("listing queues %s*: %s", prefix, target.DescribeCallErr(err))
		}
		for _, q := range page.Queues {
			if q.Name == nil || !strings.HasPrefix(*q.Name, prefix) {
				continue
			}
			found = append(found, "queue "+*q.Name)
			if s.dryRun {
				continue
			}
			if _, err := t.Queue.DeleteQueue(ctx, *q.Name, nil); err != nil && !target.IsStatus(err, 404) {
				left = append(left, "queue "+*q.Name)
				errs = append(errs, fmt.Errorf("deleting queue %s: %s", *q.Name, target.DescribeCallErr(err)))
			}
		}
	}
	return found, left, errors.Join(errs...)
}
