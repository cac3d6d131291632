package queue

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// queueWork is queue.work: competing consumers. The first `producers`
// actors enqueue unique messages; the others get up to messages_per_get at
// a time with a visibility timeout, and for each message either crash on
// purpose (never delete it, so it reappears when the timeout runs out), or
// save progress with Update Message (a new pop receipt, the text extended
// with "#p1") and then delete it with the latest receipt, or release it
// (see release). After the load,
// the final actor drains every queue. The checks judge at-least-once
// delivery, exclusive visibility and the pop receipt rules.
type queueWork struct {
	q    *queues
	idle idlePolls
}

func init() {
	workload.Register("queue.work", func(w scenarios.Workload, _ *target.Target) (workload.Workload, error) {
		if w.Params.Producers >= w.Actors {
			return nil, fmt.Errorf("producers %d leaves no consumer among %d actors: set actors above producers", w.Params.Producers, w.Actors)
		}
		return &queueWork{}, nil
	})
}

func (w *queueWork) Setup(ctx context.Context, e *workload.Env) (err error) {
	w.q, err = queueSetup(ctx, e)
	return err
}

func (w *queueWork) Iterate(ctx context.Context, a *workload.Actor) {
	p := a.Env.Params
	name := w.q.names[a.Key()]
	if a.ID-a.Env.ActorBase < p.Producers {
		w.q.put(ctx, a, name, func() string { return MessageText(a.Tag(), p.PayloadBytes) })
		return
	}
	got := w.q.get(ctx, a, name, p.MessagesPerGet, p.Visibility)
	if got.Outcome != checks.OK {
		return
	}
	w.idle.after(ctx, a, len(got.Out.Messages) == 0)
	for _, m := range got.Out.Messages {
		if a.Env.Stopping() {
			return // stop as a crashed consumer would: the drain gets them
		}
		if a.Rand.Float64() < p.CrashFraction {
			continue
		}
		receipt := m.PopReceipt
		if a.Rand.Float64() < p.ReleaseFraction {
			w.release(ctx, a, name, m.ID, receipt, m.Text)
			continue
		}
		if a.Rand.Float64() < p.UpdateFraction {
			up := w.q.update(ctx, a, name, m.ID, receipt, progressText(m.Text), p.Visibility)
			if up.Outcome != checks.OK {
				continue // the receipt is stale: another consumer has it
			}
			receipt = up.Out.PopReceipt
		}
		w.q.delete(ctx, a, name, m.ID, receipt)
	}
}

// progressText is a message's text with one more step of saved progress:
// "tag" becomes "tag#p1", "tag#p1" becomes "tag#p2".
func progressText(text string) string {
	base, step := text, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '#' {
			base = text[:i]
			fmt.Sscanf(text[i+1:], "p%d", &step)
			break
		}
	}
	return fmt.Sprintf("%s#p%d", base, step+1)
}

func (w *queueWork) Final(ctx context.Context, e *workload.Env) error {
	a := e.Actor(checks.ActorFinal)
	// Messages a crashed consumer holds come back after the visibility
	// timeout; allow for that and a margin.
	deadline := time.Now().Add(e.Params.Visibility + 30*time.Second)
	var errs []error
	for _, name := range w.q.names {
		errs = append(errs, w.q.drain(ctx, a, name, 30*time.Second, deadline))
	}
	return errors.Join(errs...)
}

// release gives a message back at once (Update Message, visibility 0: a
// new receipt), then deletes it with the receipt it had before the update,
// which the update replaced (must be refused, the message survives), and a
// moment later with the new one, which another consumer may have replaced
// meanwhile by getting the message (then refused too). Stale receipts under
// a real race, for pop-receipt to judge.
func (w *queueWork) release(ctx context.Context, a *workload.Actor, name, id, receipt, text string) {
	up := w.q.update(ctx, a, name, id, receipt, text, 0)
	w.q.delete(ctx, a, name, id, receipt)
	if up.Outcome != checks.OK {
		return
	}
	time.Sleep(time.Duration(a.Rand.IntN(50)) * time.Millisecond)
	w.q.delete(ctx, a, name, id, up.Out.PopReceipt)
}
