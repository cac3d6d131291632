package queue

import (
	"context"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// queueHot is queue.hot: a message rate against one queue (keys: 1) or
// spread over several, the checklist's 2,000 messages/s per queue target.
// An iteration enqueues one message, or (read_fraction of them) gets up to
// messages_per_get and deletes what it got. The report shows messages per
// second per queue against the target.
type queueHot struct {
	q    *queues
	idle idlePolls
}

func init() {
	workload.Register("queue.hot", func(scenarios.Workload, *target.Target) (workload.Workload, error) { return &queueHot{}, nil })
}

// hotVisibility is how long a hot consumer's messages stay invisible
// before it deletes them.
const hotVisibility = 30 * time.Second

func (w *queueHot) Setup(ctx context.Context, e *workload.Env) (err error) {
	w.q, err = queueSetup(ctx, e)
	return err
}

func (w *queueHot) Iterate(ctx context.Context, a *workload.Actor) {
	p := a.Env.Params
	name := w.q.names[a.Key()]
	if a.Rand.Float64() >= p.ReadFraction {
		w.q.put(ctx, a, name, func() string { return MessageText(a.Tag(), p.PayloadBytes) })
		return
	}
	got := w.q.get(ctx, a, name, p.MessagesPerGet, hotVisibility)
	w.idle.after(ctx, a, got.Outcome == checks.OK && len(got.Out.Messages) == 0)
	for _, m := range got.Out.Messages {
		w.q.delete(ctx, a, name, m.ID, m.PopReceipt)
	}
}

// Final does nothing: no check reads a hot queue's contents, and cleanup
// deletes the queues.
func (w *queueHot) Final(context.Context, *workload.Env) error { return nil }
