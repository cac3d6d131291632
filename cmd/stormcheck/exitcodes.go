package main

import (
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
)

// Exit codes, as the usage text documents them.
const (
	exitOK          = 0
	exitViolation   = 1
	exitUsage       = 2
	exitHarness     = 3
	exitUndecided   = 4
	exitThreshold   = 5
	exitRegression  = 6
	exitInterrupted = 130
)

// exitCode derives the exit code from a finished run: a violation wins over
// everything, then an interrupt (an error after Ctrl-C is its consequence),
// a harness error, a failed threshold, an undecided check.
func exitCode(s *reports.Summary, runErr error) int {
	undecided := false
	for _, r := range s.Checks {
		switch r.Verdict {
		case checks.Fail:
			return exitViolation
		case checks.Undecided:
			undecided = true
		}
	}
	switch {
	case s.Interrupted:
		return exitInterrupted
	case runErr != nil:
		return exitHarness
	case thresholdFailed(s):
		return exitThreshold
	case undecided:
		return exitUndecided
	}
	return exitOK
}

func thresholdFailed(s *reports.Summary) bool {
	for _, t := range s.Thresholds {
		if !t.Pass {
			return true
		}
	}
	return false
}
