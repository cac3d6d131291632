package runner

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// A run's stages after the load (stopping the load, the final reads, the
// shard's word to the others, the cleanup) each draw every call they make
// on one deadline, set when the stage begins, whatever the retry policy or
// the per-attempt timeout says (Actor.DoOut starts no attempt and sleeps
// no back-off past it); a cut (the next Ctrl-C, the target declared
// unreachable) ends the stage at once. A stage's context is the only way a
// call outlives the load's context: nothing after the load uses
// context.Background or context.WithoutCancel.

// StoppingBound bounds the calls actors still make once Ctrl-C stopped the
// load: the release of a lease they hold (or may hold), so that nobody
// else (another shard, the final reads' writers) waits a lease out.
const StoppingBound = 5 * time.Second

// stageBoundError is the cause of a stage that reached its deadline.
type stageBoundError struct {
	stage string
	bound time.Duration
}

func (e *stageBoundError) Error() string {
	return fmt.Sprintf("%s: gave up after %s", e.stage, e.bound)
}

// cut is what ends a stage early: ctx done, with why as the cause (nil:
// ctx's own).
type cut struct {
	ctx context.Context
	why error
}

// cause is the cut's reason.
func (c cut) cause() error {
	if c.why != nil {
		return c.why
	}
	return context.Cause(c.ctx)
}

// Errors a stage is cut with when an interrupt ends it.
var (
	errInterruptedAgain = errors.New("interrupted again")
	errInterruptedThird = errors.New("interrupted a third time")
)

// stage is one stage's context: derived from its parent (the Ctrl-C that
// cuts it: a press cancels it at once, in the same call), with the
// stage's deadline, and ended by its other cuts too.
type stage struct {
	ctx    context.Context
	cancel context.CancelFunc
	parent cut
}

// beginStage starts a stage of at most bound from now, a child of
// parent's context, ended at once by any of more; a cut already done ends
// it before it returns, so no call of the stage starts.
func beginStage(name string, bound time.Duration, parent cut, more ...cut) *stage {
	root, cancel := context.WithCancelCause(parent.ctx)
	ctx, cancelT := context.WithDeadlineCause(root, time.Now().Add(bound), &stageBoundError{name, bound})
	var stops []func() bool
	for _, c := range more {
		if c.ctx.Err() != nil {
			cancel(c.cause())
			break
		}
		stops = append(stops, context.AfterFunc(c.ctx, func() { cancel(c.cause()) }))
	}
	return &stage{ctx: ctx, parent: parent, cancel: func() {
		for _, s := range stops {
			s()
		}
		cancelT()
		cancel(nil)
	}}
}

// why says how the stage ended early: its bound, or the cut's reason; ""
// while it runs.
func (s *stage) why() string {
	if s.ctx.Err() == nil {
		return ""
	}
	c := context.Cause(s.ctx)
	var b *stageBoundError
	if !errors.As(c, &b) && s.parent.ctx.Err() != nil {
		c = s.parent.cause()
	}
	return c.Error()
}

// stoppingStage is the stage actors draw on once the load's context is
// done (Ctrl-C, or the target declared unreachable): it begins with the
// first call that asks for it, so its bound counts from the stop, not
// from the run's start. A second Ctrl-C cuts it, and so does the run's
// trouble: an unreachable target gets no release at all.
type stoppingStage struct {
	mu     sync.Mutex
	st     *stage
	closed bool
	live   bool // begun before any cut: calls were sent in it
	cut    cut  // the second Ctrl-C
	more   []cut
	logf   func(string, ...any)
}

// context is the stage's context, begun on first use; after end, a
// context already done (no call starts once the load returned).
func (s *stoppingStage) context() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st == nil {
		s.st = beginStage("stopping the load", StoppingBound, s.cut, s.more...)
		if s.closed {
			s.st.cancel()
		} else if s.st.ctx.Err() == nil {
			s.live = true
			s.logf("load stopping: the lease releases still to send get at most %s (Ctrl-C again to cut them)", StoppingBound)
		}
	}
	return s.st.ctx
}

// end closes the stage once no actor runs, and says how it ended if it
// was cut or ran out while calls were still pending.
func (s *stoppingStage) end() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.st == nil {
		return
	}
	if why := s.st.why(); why != "" && s.live {
		s.logf("load stopped: lease releases cut short (%s)", why)
	}
	s.st.cancel()
}
