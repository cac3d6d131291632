//go:build !linux

package runner

import "time"

// machineCPU is known on Linux only.
func machineCPU() (time.Duration, bool) { return 0, false }

func groupsCPU([]int) map[int]time.Duration { return nil }
