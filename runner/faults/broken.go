package faults

import "github.com/stormcheck/stormcheck/scenarios"

// brokenStage returns the HTTP stage of a broken-promise fault (nil: not
// one, or not injected by this build).
func brokenStage(f scenarios.Fault) Stage {
	return nil
}
