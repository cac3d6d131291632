// Package cleanup finds and deletes what a run left on a target: each run
// stamps a marker container, and cleanup deletes the containers, tables
// and queues that carry the run's prefix and nothing else, for the run that
// just ended or for earlier runs (stormcheck cleanup).
//
// It may use runner/target.
package cleanup
