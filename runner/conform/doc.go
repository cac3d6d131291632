// Package conform executes conformance rules against a target: each rule's
// steps run in a fresh container, table or queue, each answer is judged by
// conformance/verdict against the rule's expectation, and what the rules
// created is cleaned up.
//
// It may use conformance/verdict, scenarios/conformance, runner/target,
// runner/connstr and runner/cleanup.
package conform
