package queue

import (
	"context"
	"github.com/stormcheck/stormcheck/runner/workload"
	"sync"
	"time"
)

// idlePolls is how a queue consumer polls an empty queue: after an empty
// get it waits, 50 ms at first and twice as long after each further empty
// get, up to 1 s; a get that returns messages resets it. A consumer that
// polled an empty queue in a tight loop would spend the service's capacity
// (and, on Azurite, its one thread) on empty answers. The checklist's
// "polling frequency" advice: poll often enough for latency, no more.
type idlePolls struct {
	mu   sync.Mutex
	wait map[int]time.Duration // per actor
}

const (
	idleFirst = 50 * time.Millisecond
	idleMax   = time.Second
)

// after records a get's result and, when it was empty, sleeps the actor's
// current back-off (cut short when the load phase stops).
func (p *idlePolls) after(ctx context.Context, a *workload.Actor, empty bool) {
	p.mu.Lock()
	if p.wait == nil {
		p.wait = map[int]time.Duration{}
	}
	d := p.wait[a.ID]
	if !empty {
		delete(p.wait, a.ID)
		p.mu.Unlock()
		return
	}
	d = min(max(2*d, idleFirst), idleMax)
	p.wait[a.ID] = d
	p.mu.Unlock()
	a.Pause(ctx, d)
}
