package workload

import (
	"context"
	"errors"
	"github.com/stormcheck/stormcheck/runner/target"
	"time"
)

// attemptTimer bounds each attempt of one actor with the scenario's timeout
// without a new context and timer per attempt: the actor keeps one
// cancellable context and one timer, re-armed per attempt, and makes new
// ones only after the timer fired or the parent changed or ended. A fresh
// context.WithTimeout per attempt costs several allocations, a timer, and
// a registration with the run's context that every actor contends for; the
// HTTP transport then hangs its own per-request contexts off it.
type AttemptTimer struct {
	parent context.Context
	ctx    context.Context // cancellable child of parent
	vctx   context.Context // ctx carrying the actor's byteCount
	cancel context.CancelCauseFunc
	timer  *time.Timer
	spent  bool // the timer fired: ctx is, or is about to be, cancelled
}

// errAttemptTimeout is the cause an attempt's context is cancelled with.
var errAttemptTimeout = errors.New("attempt timed out")

// start returns the context for one attempt of at most d, carrying wire
// (the same for every attempt of an actor).
func (t *AttemptTimer) Start(parent context.Context, d time.Duration, wire *target.ByteCount) context.Context {
	if t.ctx == nil || t.spent || t.parent != parent || t.ctx.Err() != nil {
		if t.cancel != nil {
			t.timer.Stop()
			t.cancel(nil)
		}
		t.parent, t.spent = parent, false
		t.ctx, t.cancel = context.WithCancelCause(parent)
		cancel := t.cancel
		t.timer = time.AfterFunc(d, func() { cancel(errAttemptTimeout) })
		t.vctx = target.WithByteCount(t.ctx, wire)
		return t.vctx
	}
	t.timer.Reset(d)
	return t.vctx
}

// stop ends the attempt; err is what it returned. A cancellation caused by
// the timer becomes a timeout (context.DeadlineExceeded), as
// context.WithTimeout would have said.
func (t *AttemptTimer) Stop(err error) error {
	if !t.timer.Stop() {
		t.spent = true
	}
	if err != nil && errors.Is(err, context.Canceled) && context.Cause(t.ctx) == errAttemptTimeout {
		return attemptTimeoutError{err}
	}
	return err
}

// attemptTimeoutError is an attempt's error when its timeout ended it: it
// is context.DeadlineExceeded, and still the error the call returned.
type attemptTimeoutError struct{ err error }

func (e attemptTimeoutError) Error() string   { return "timeout: " + e.err.Error() }
func (e attemptTimeoutError) Unwrap() []error { return []error{context.DeadlineExceeded, e.err} }
