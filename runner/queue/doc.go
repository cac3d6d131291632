// Package queue holds the Queue service's calls and the workloads that race
// them: producers and consumers with visibility timeouts and pop receipts,
// and hot queues. Each workload kind registers itself with
// runner/workload.
//
// It may use checks, scenarios, runner/target and runner/workload.
package queue
