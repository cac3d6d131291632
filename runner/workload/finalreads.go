package workload

import (
	"context"

	"github.com/stormcheck/stormcheck/checks"
)

// finalReads reads every key as the final actor, a few at a time.
func FinalReads(ctx context.Context, e *Env, keys []string, read func(ctx context.Context, a *Actor, key string)) {
	const par = 8
	ch := make(chan string)
	done := make(chan struct{})
	for w := 0; w < par; w++ {
		go func() {
			a := e.Actor(checks.ActorFinal)
			for k := range ch {
				read(ctx, a, k)
			}
			done <- struct{}{}
		}()
	}
	for _, k := range keys {
		if ctx.Err() != nil {
			break
		}
		ch <- k
	}
	close(ch)
	for w := 0; w < par; w++ {
		<-done
	}
}
