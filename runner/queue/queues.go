package queue

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
)

// conflictPopReceipt are the answers to an Update or Delete Message whose
// pop receipt a later dequeue or update replaced: 404 MessageNotFound, and
// 400 PopReceiptMismatch for a receipt the service recognises as stale.
var conflictPopReceipt = []workload.Expect{{Status: 404, Code: "MessageNotFound"}, {Status: 400, Code: "PopReceiptMismatch"}}

// queues holds one workload's queues: names prefix-q0, prefix-q1, ...
type queues struct {
	svc   *azqueue.ServiceClient
	names []string
}

func newQueues(e *workload.Env, n int) (*queues, error) {
	svc, err := e.Target.Queues()
	if err != nil {
		return nil, err
	}
	e.Target.UsedQueues.Store(true)
	q := &queues{svc: svc}
	for i := 0; i < n; i++ {
		q.names = append(q.names, fmt.Sprintf("%s-q%d", e.Prefix, i))
	}
	return q, nil
}

// queueSetup opens the workload's queues (one per key) and creates them,
// recorded as setup.
func queueSetup(ctx context.Context, e *workload.Env) (*queues, error) {
	q, err := newQueues(e, e.Keys)
	if err != nil || e.AttachOnly {
		return q, err
	}
	return q, q.create(ctx, e.Actor(checks.ActorSetup))
}

func (q *queues) client(name string) *azqueue.QueueClient { return q.svc.NewQueueClient(name) }

// create creates every queue, recorded as setup.
func (q *queues) create(ctx context.Context, a *workload.Actor) error {
	for _, name := range q.names {
		op := a.Do(ctx, workload.Call{Kind: "queue.create", Key: name}, func(ctx context.Context, _ int) (checks.Input, string, error) {
			_, err := q.client(name).Create(ctx, nil)
			return checks.Input{}, "", err
		})
		if op.Outcome != checks.OK {
			return target.OpError("create queue "+name, &op)
		}
	}
	return nil
}

// messageText is a put's text: the writer's tag, then padding up to pad
// bytes. It never holds '#', which separates an update's progress.
func MessageText(tag string, pad int) string {
	if len(tag) >= pad {
		return tag
	}
	return tag + " " + strings.Repeat(".", pad-len(tag)-1)
}

func httpDate(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(http.TimeFormat)
}

func seconds(d time.Duration) *int32 {
	s := int32(d / time.Second)
	return &s
}

func intPtr(p *int32) *int {
	if p == nil {
		return nil
	}
	v := int(*p)
	return &v
}

// put enqueues a message with the text textOf gives.
//
// text is called once per attempt: every attempt, retries included, sends a
// text no other attempt sent, so a retried put whose first attempt's
// outcome is unknown can be told apart from it (a delivery of the first
// text resolves it as applied; at-least-once judges each text).
func (q *queues) put(ctx context.Context, a *workload.Actor, name string, textOf func() string) checks.Op {
	return a.DoOut(ctx, workload.Call{Kind: checks.KindQueuePut, Key: name}, func(ctx context.Context, _ int) (checks.Input, checks.Output, error) {
		text := textOf()
		in := checks.Input{Value: text}
		r, err := q.client(name).EnqueueMessage(ctx, text, nil)
		if err != nil {
			return in, checks.Output{}, err
		}
		var out checks.Output
		if len(r.Messages) > 0 && r.Messages[0] != nil {
			m := r.Messages[0]
			out.MessageID, out.PopReceipt, out.NextVisible = deref(m.MessageID), deref(m.PopReceipt), httpDate(m.TimeNextVisible)
		}
		return in, out, nil
	})
}

// get dequeues up to n messages, invisible for vis afterwards.
func (q *queues) get(ctx context.Context, a *workload.Actor, name string, n int, vis time.Duration) checks.Op {
	return a.DoOut(ctx, workload.Call{Kind: checks.KindQueueGet, Key: name}, func(ctx context.Context, _ int) (checks.Input, checks.Output, error) {
		num := int32(n)
		o := &azqueue.DequeueMessagesOptions{NumberOfMessages: &num, VisibilityTimeout: seconds(vis)}
		in := checks.Input{NumMessages: n, Visibility: intPtr(o.VisibilityTimeout)}
		r, err := q.client(name).DequeueMessages(ctx, o)
		if err != nil {
			return in, checks.Output{}, err
		}
		out := checks.Output{Messages: []checks.Message{}}
		for _, m := range r.Messages {
			if m == nil {
				continue
			}
			msg := checks.Message{ID: deref(m.MessageID), PopReceipt: deref(m.PopReceipt), NextVisible: httpDate(m.TimeNextVisible), Text: deref(m.MessageText)}
			if m.DequeueCount != nil {
				msg.DequeueCount = *m.DequeueCount
			}
			out.Messages = append(out.Messages, msg)
		}
		return in, out, nil
	})
}

// update replaces a message's text and makes it invisible for vis.
func (q *queues) update(ctx context.Context, a *workload.Actor, name, id, receipt, text string, vis time.Duration) checks.Op {
	return a.DoOut(ctx, workload.Call{Kind: checks.KindQueueUpdate, Key: name, Conflicts: conflictPopReceipt}, func(ctx context.Context, _ int) (checks.Input, checks.Output, error) {
		o := &azqueue.UpdateMessageOptions{VisibilityTimeout: seconds(vis)}
		in := checks.Input{MessageID: id, PopReceipt: receipt, Value: text, Visibility: intPtr(o.VisibilityTimeout)}
		r, err := q.client(name).UpdateMessage(ctx, id, receipt, text, o)
		if err != nil {
			return in, checks.Output{}, err
		}
		return in, checks.Output{PopReceipt: deref(r.PopReceipt), NextVisible: httpDate(r.TimeNextVisible)}, nil
	})
}

// delete deletes a message with its pop receipt.
func (q *queues) delete(ctx context.Context, a *workload.Actor, name, id, receipt string) checks.Op {
	return a.Do(ctx, workload.Call{Kind: checks.KindQueueDelete, Key: name, Conflicts: conflictPopReceipt}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		in := checks.Input{MessageID: id, PopReceipt: receipt}
		_, err := q.client(name).DeleteMessage(ctx, id, receipt, nil)
		return in, "", err
	})
}

// count asks for the approximate number of messages, visible or not.
func (q *queues) count(ctx context.Context, a *workload.Actor, name string) (int, bool) {
	n := 0
	op := a.Do(ctx, workload.Call{Kind: "queue.props", Key: name}, func(ctx context.Context, _ int) (checks.Input, string, error) {
		r, err := q.client(name).GetProperties(ctx, nil)
		if err == nil && r.ApproximateMessagesCount != nil {
			n = int(*r.ApproximateMessagesCount)
		}
		return checks.Input{}, fmt.Sprint(n), err
	})
	return n, op.Outcome == checks.OK
}

// drain receives and deletes every message of a queue, waiting for the
// invisible ones (received by a consumer that never deleted them) to come
// back, until a get returns nothing and the queue holds nothing. It gives
// up at the deadline; the checks then see an unfinished drain.
func (q *queues) drain(ctx context.Context, a *workload.Actor, name string, vis time.Duration, deadline time.Time) error {
	for time.Now().Before(deadline) && ctx.Err() == nil {
		op := q.get(ctx, a, name, 32, vis)
		if op.Outcome != checks.OK {
			continue
		}
		for _, m := range op.Out.Messages {
			q.delete(ctx, a, name, m.ID, m.PopReceipt)
		}
		if len(op.Out.Messages) > 0 {
			continue
		}
		if n, ok := q.count(ctx, a, name); ok && n == 0 {
			// The empty get must be the drain's last word: get once more
			// now that the queue is known to be empty.
			if last := q.get(ctx, a, name, 32, vis); last.Outcome == checks.OK && len(last.Out.Messages) == 0 {
				return nil
			}
			continue
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
	}
	return fmt.Errorf("queue %s: drain did not finish", name)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
