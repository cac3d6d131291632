// Package blob holds the Blob service's calls (blobs, containers,
// leases) and the workloads that race them: ETag counters, last writer
// wins, create-once, block commits, lease mutexes and lifecycles,
// container ETags and container leases. Each workload kind registers
// itself with runner/workload.
//
// It may use checks, scenarios, runner/target and runner/workload.
package blob
