// Package compare judges one run against another: each figure of the new run
// against the base with its tolerance, noisy and thin figures said as such.
//
// It may use reports.
package compare
