package runner

import (
	"runtime"
	"time"
)

// cpuSample is the machine's CPU time used so far, by every process (steal
// included: on a shared VM that is the neighbours' work) and by the
// target's processes, one entry per pid.
type cpuSample struct {
	machine time.Duration
	target  map[int]time.Duration
	own     time.Duration
	ok      bool
}

// sampleCPU reads the machine's, this process's and the target's
// process groups' CPU time (Linux; ok is false elsewhere).
func sampleCPU(groups []int) cpuSample {
	m, ok := machineCPU()
	if !ok {
		return cpuSample{}
	}
	own, ok := processCPU()
	if !ok {
		return cpuSample{}
	}
	return cpuSample{machine: m, own: own, target: groupsCPU(groups), ok: true}
}

// otherShare is the share of the machine's CPU that processes other than
// the harness and its target used between a and b over wall: near 0 on a
// machine given to the run; high when something else competed for it, and
// then the figures measure the neighbours as much as the target. A target
// process that exited in between loses what it used since a (its time
// then counts as other work), so the share errs high, never low.
func otherShare(a, b cpuSample, wall time.Duration) (float64, bool) {
	if !a.ok || !b.ok || wall <= 0 {
		return 0, false
	}
	used := b.machine - a.machine - (b.own - a.own)
	for pid, t := range b.target {
		used -= t - a.target[pid] // a process started since a counts whole
	}
	return max(float64(used)/float64(wall)/float64(runtime.NumCPU()), 0), true
}
