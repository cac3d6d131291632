// Package faults injects a scenario's faults (scenarios.Fault) on purpose:
// HTTP faults as a stage of the loopback proxy chain in front of a managed
// Azurite (runner/throttle serves the chain, so request signatures stay
// valid), network faults through Toxiproxy, target faults on the Azurite
// process. Every request a fault touches is logged (which fault, what was
// done), so the history can say what became of it.
//
// Each HTTP fault kind is a struct of its named parameters with one method,
// Apply, in a file of its own (the shape of Toxiproxy's toxics).
package faults
