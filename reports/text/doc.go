// Package text writes the terminal renderings: the run report (checks,
// thresholds, per-operation latency, units against their targets, faults),
// a merged run's report and a comparison of two runs.
//
// It may use reports, checks and scenarios.
package text
