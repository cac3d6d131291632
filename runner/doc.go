// Package runner runs a scenario end to end: it opens the target, sets up
// each workload, drives its actors with the closed- or open-loop executor
// through the load stages, injects the scenario's faults, watches for a
// target that stops answering, does the final reads and the cleanup as
// bounded stages, checks the recorded history and writes the results
// directory. It names no Azure service: the workloads it runs are the kinds
// the service packages registered with runner/workload.
//
// It may use checks, reports, scenarios, runner/workload, runner/target,
// runner/cleanup and runner/faults.
package runner
