//go:build !linux

package runner

// peakRSS is not measured outside Linux (getrusage's maxrss is in
// different units per system and, after exec, may count the parent).
func peakRSS() (int64, bool) { return 0, false }
