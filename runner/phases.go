package runner

import "time"

// waitingNoteEvery is how often a phase that waits on the target says so.
const waitingNoteEvery = 5 * time.Second

// waiting says, every few seconds until the returned func is called, that
// a phase is still waiting on the target, for how long and for how long at
// most: a silent target shows as a wait with a bound, not as a hang.
func waiting(logf func(string, ...any), what string, bound time.Duration) func() {
	start := time.Now()
	return every(waitingNoteEvery, func() {
		logf("%s: still waiting for the target after %s (gives up after %s)", what, time.Since(start).Round(time.Second), bound)
	})
}
