package runner

import (
	"sync"
	"time"
)

// waitingNoteEvery is how often a phase that waits on the target says so.
const waitingNoteEvery = 5 * time.Second

// waiting says, every few seconds until the returned func is called, that
// a phase is still waiting on the target, for how long and for how long at
// most: a silent target shows as a wait with a bound, not as a hang.
func waiting(logf func(string, ...any), what string, bound time.Duration) func() {
	start := time.Now()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(waitingNoteEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				logf("%s: still waiting for the target after %s (gives up after %s)", what, time.Since(start).Round(time.Second), bound)
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
