package conform

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/stormcheck/stormcheck/conformance/verdict"
	"github.com/stormcheck/stormcheck/scenarios/conformance"
)

// The queue message steps of the conformance rules. Each rule has its own
// queue, named with the rule's resource prefix (an alias adds "-" and the
// alias), so the run's cleanup removes it.

// queue is the name of the rule's queue with alias a ("" is the rule's).
func (rr *RuleRun) queue(a string) string {
	if a == "" {
		return rr.Prefix
	}
	return rr.Prefix + "-" + a
}

// createQueue creates the rule's own queue.
func (rr *RuleRun) createQueue(ctx context.Context) error {
	svc, err := rr.T.Queues()
	if err != nil {
		return err
	}
	rr.T.UsedQueues.Store(true)
	_, err = svc.CreateQueue(ctx, rr.queue(""), nil)
	return err
}

// int32p is n as the SDK's optional int32; nil stays nil (not sent).
func int32p(n *int) *int32 {
	if n == nil {
		return nil
	}
	v := int32(*n)
	return &v
}

// queueCall performs a queue step. Only the parameters the rule writes
// are sent: without num_messages or visibility, the SDK sends none and the
// service's defaults apply.
func (rr *RuleRun) queueCall(ctx context.Context, st *conformance.Step) (callOut, error) {
	var out callOut
	svc, err := rr.T.Queues()
	if err != nil {
		return out, err
	}
	q := svc.NewQueueClient(rr.queue(st.Queue))
	text := ""
	if st.Text != nil {
		text = *st.Text
	}
	if st.TextRepeat > 0 {
		text = strings.Repeat(text, st.TextRepeat)
	}
	switch st.Op {
	case "queue.create":
		_, err = q.Create(ctx, nil)
	case "queue.put":
		var r azqueue.EnqueueMessagesResponse
		for i := 0; i < max(st.Count, 1) && err == nil; i++ {
			r, err = q.EnqueueMessage(ctx, text, &azqueue.EnqueueMessageOptions{VisibilityTimeout: int32p(st.Visibility), TimeToLive: int32p(st.TTL)})
		}
		if err == nil {
			var msgs []*verdict.ConformMessage
			for _, m := range r.Messages {
				if m != nil {
					msgs = append(msgs, &verdict.ConformMessage{ID: conformStr(m.MessageID), PopReceipt: conformStr(m.PopReceipt), NextVisibleIn: visibleIn(m.TimeNextVisible, r.Date)})
					if out.nextVisible == "" {
						out.nextVisible = conformDate(m.TimeNextVisible)
					}
				}
			}
			out.svc.Message = firstMessage(msgs)
		}
	case "queue.get":
		var r azqueue.DequeueMessagesResponse
		r, err = q.DequeueMessages(ctx, &azqueue.DequeueMessagesOptions{NumberOfMessages: int32p(st.NumMessages), VisibilityTimeout: int32p(st.Visibility)})
		if err == nil {
			var msgs []*verdict.ConformMessage
			for _, m := range r.Messages {
				if m != nil {
					msgs = append(msgs, &verdict.ConformMessage{ID: conformStr(m.MessageID), PopReceipt: conformStr(m.PopReceipt), Text: conformStr(m.MessageText),
						DequeueCount: m.DequeueCount, NextVisibleIn: visibleIn(m.TimeNextVisible, r.Date)})
					if out.nextVisible == "" {
						out.nextVisible = conformDate(m.TimeNextVisible)
					}
				}
			}
			n := len(msgs)
			out.svc.Messages, out.svc.Message = &n, firstMessage(msgs)
		}
	case "queue.peek":
		var r azqueue.PeekMessagesResponse
		r, err = q.PeekMessages(ctx, &azqueue.PeekMessagesOptions{NumberOfMessages: int32p(st.NumMessages)})
		if err == nil {
			var msgs []*verdict.ConformMessage
			for _, m := range r.Messages {
				if m != nil {
					msgs = append(msgs, &verdict.ConformMessage{ID: conformStr(m.MessageID), Text: conformStr(m.MessageText), DequeueCount: m.DequeueCount})
				}
			}
			n := len(msgs)
			out.svc.Messages, out.svc.Message = &n, firstMessage(msgs)
		}
	case "queue.update":
		var r azqueue.UpdateMessageResponse
		r, err = q.UpdateMessage(ctx, rr.value(st.MessageID), rr.value(st.PopReceipt), text, &azqueue.UpdateMessageOptions{VisibilityTimeout: int32p(st.Visibility)})
		if err == nil {
			out.svc.Message = &verdict.ConformMessage{ID: rr.value(st.MessageID), PopReceipt: conformStr(r.PopReceipt), NextVisibleIn: visibleIn(r.TimeNextVisible, r.Date)}
			out.nextVisible = conformDate(r.TimeNextVisible)
		}
	case "queue.delete":
		_, err = q.DeleteMessage(ctx, rr.value(st.MessageID), rr.value(st.PopReceipt), nil)
	case "queue.clear":
		_, err = q.ClearMessages(ctx, nil)
	default:
		err = fmt.Errorf("stormcheck cannot run op %s yet", st.Op)
	}
	return out, err
}

// conformStr is *s, "" for nil.
func conformStr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// conformDate is t as an HTTP date, "" for nil.
func conformDate(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(http.TimeFormat)
}

func firstMessage(msgs []*verdict.ConformMessage) *verdict.ConformMessage {
	if len(msgs) == 0 {
		return nil
	}
	return msgs[0]
}

// visibleIn is next minus the response's Date in whole seconds (what
// time-next-visible is relative to); nil when either is missing.
func visibleIn(next, date *time.Time) *int {
	if next == nil || next.IsZero() || date == nil || date.IsZero() {
		return nil
	}
	s := int(math.Round(next.Sub(*date).Seconds()))
	return &s
}
