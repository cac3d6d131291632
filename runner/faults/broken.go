package faults

import "github.com/stormcheck/stormcheck/scenarios"

// brokenStage returns the HTTP stage of a broken-promise fault (nil: not
// one). Each breaks one promise of the service on purpose, so that the
// check that holds it must fail (scenarios.FaultKinds names the check).
func brokenStage(f scenarios.Fault) Stage {
	switch f.Kind {
	case "broken.stale-read":
		return &StaleRead{}
	case "broken.second-lease":
		return SecondLease{}
	case "broken.early-visible":
		return &EarlyVisible{}
	case "broken.strip-if-match":
		return StripIfMatch{}
	case "broken.strip-appendpos":
		return StripAppendPos{}
	case "broken.strip-seqnum":
		return StripSeqNum{}
	case "broken.partial-batch":
		return PartialBatch{}
	}
	return nil
}
