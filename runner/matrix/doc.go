// Package matrix runs the fault matrix: every core scenario under every
// fault kind, each cell a short run on a managed Azurite, and says of each
// cell whether the checks held their verdicts and decided enough of what
// they could judge, and whether every broken promise was caught.
//
// It may use checks, reports, scenarios, runner, runner/azurite,
// runner/target and the service packages (runner/blob, runner/table,
// runner/queue), which it runs.
package matrix
