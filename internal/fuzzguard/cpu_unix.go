//go:build unix

package fuzzguard

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time this process has used (user + system); ok is
// false where the platform cannot say.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
