// Package verdict judges conformance responses: one step's observed
// response against the documented expectation of a rule (JudgeStep), a
// rule's steps into pass, diverges or error (JudgeRule), a run against the
// divergences accepted for its target (Baseline, CompareBaseline), and two
// targets' runs against each other (DiffTargets).
//
// It is pure like the history checkers of package checks (standard library
// only, no SDK, no network): the runner observes, this package judges. The
// rule file format and its loader are in scenarios/conformance.
package verdict
