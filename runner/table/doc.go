// Package table holds the Table service's calls and the workloads that race
// them: entity counters, forced updates, merges, batches, queries and hot
// partitions. Each workload kind registers itself with runner/workload.
//
// It may use checks, scenarios, runner/target and runner/workload.
package table
