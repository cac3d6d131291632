// Package workload is the core every workload shares: the actor and its
// attempts (Actor.Do), the classification of every answer into an
// outcome (ok, conflict, throttled, error, unknown), retries with
// back-off, the per-attempt timeout, the recorder that writes each
// attempt to the history, the workload interface and the registry in
// which each service package registers its kinds (Register), the way
// database/sql drivers register themselves.
//
// It may use checks, reports (the live metrics), scenarios, runner/target
// and runner/faults.
package workload
