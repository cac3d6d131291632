package main

import (
	"testing"
	"time"
)

// TestCleanupAge: a run seconds old is not "0s ago"; past an hour the age
// is in minutes.
func TestCleanupAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		15 * time.Second:                             "15s",
		4*time.Minute + 10*time.Second:               "4m10s",
		26*time.Hour + 3*time.Minute + 9*time.Second: "26h3m",
		2 * time.Hour:                                "2h0m",
		-time.Second:                                 "0s",
	} {
		if got := runAge(d); got != want {
			t.Errorf("runAge(%v) = %q, want %q", d, got, want)
		}
	}
}
