package runner

import (
	"fmt"

	"github.com/stormcheck/stormcheck/checks"
)

// opError describes a harness call that had to succeed and did not.
func opError(what string, op *checks.Op) error {
	s := fmt.Sprintf("%s: %s", what, op.Outcome)
	if op.Out.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d %s)", op.Out.Status, op.Out.ErrorCode)
	}
	if op.Out.Err != "" {
		s += ": " + op.Out.Err
	}
	return fmt.Errorf("%s", s)
}
