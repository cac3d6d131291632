// Package merge combines the results of a sharded run: the histories in
// wall-clock order with each shard's clock bound, the latency logs
// (HDR histograms merge exactly) and the summaries.
//
// It may use reports and checks.
package merge
