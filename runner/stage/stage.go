package stage

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
type Cut struct {
	Ctx context.Context
	Why error
}

// cause is the cut's reason.
func (c Cut) cause() error {
	if c.Why != nil {
		return c.Why
	}
	return context.Cause(c.Ctx)
}

// Errors a stage is cut with when an interrupt ends it.
var (
	ErrInterruptedAgain = errors.New("interrupted again")
	ErrInterruptedThird = errors.New("interrupted a third time")
)

// stage is one stage's context: derived from its parent (the Ctrl-C that
// cuts it: a press cancels it at once, in the same call), with the
// stage's deadline, and ended by its other cuts too.
type stage struct {
	Ctx    context.Context
	Cancel context.CancelFunc
	parent Cut
}

// beginStage starts a stage of at most bound from now, a child of
// parent's context, ended at once by any of more; a cut already done ends
// it before it returns, so no call of the stage starts.
func Begin(name string, bound time.Duration, parent Cut, more ...Cut) *stage {
	root, cancel := context.WithCancelCause(parent.Ctx)
	ctx, cancelT := context.WithDeadlineCause(root, time.Now().Add(bound), &stageBoundError{name, bound})
	var stops []func() bool
	for _, c := range more {
		if c.Ctx.Err() != nil {
			cancel(c.cause())
			break
		}
		stops = append(stops, context.AfterFunc(c.Ctx, func() { cancel(c.cause()) }))
	}
	return &stage{Ctx: ctx, parent: parent, Cancel: func() {
		for _, s := range stops {
			s()
		}
		cancelT()
		cancel(nil)
	}}
}

// why says how the stage ended early: its bound, or the cut's reason; ""
// while it runs.
func (s *stage) Why() string {
	if s.Ctx.Err() == nil {
		return ""
	}
	c := context.Cause(s.Ctx)
	var b *stageBoundError
	if !errors.As(c, &b) && s.parent.Ctx.Err() != nil {
		c = s.parent.cause()
	}
	return c.Error()
}

// stoppingStage is the stage actors draw on once the load's context is
// done (Ctrl-C, or the target declared unreachable): it begins with the
// first call that asks for it, so its bound counts from the stop, not
// from the run's start. A second Ctrl-C cuts it, and so does the run's
// trouble: an unreachable target gets no release at all.
type Stopping struct {
	mu     sync.Mutex
	st     *stage
	closed bool
	live   bool // begun before any cut: calls were sent in it
	Cut    Cut  // the second Ctrl-C
	More   []Cut
	Logf   func(string, ...any)
}

// context is the stage's context, begun on first use; after end, a
// context already done (no call starts once the load returned).
func (s *Stopping) Context() context.Context {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st == nil {
		s.st = Begin("stopping the load", StoppingBound, s.Cut, s.More...)
		if s.closed {
			s.st.Cancel()
		} else if s.st.Ctx.Err() == nil {
			s.live = true
			s.Logf("load stopping: the lease releases still to send get at most %s (Ctrl-C again to cut them)", StoppingBound)
		}
	}
	return s.st.Ctx
}

// end closes the stage once no actor runs, and says how it ended if it
// was cut or ran out while calls were still pending.
func (s *Stopping) End() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.st == nil {
		return
	}
	if why := s.st.Why(); why != "" && s.live {
		s.Logf("load stopped: lease releases cut short (%s)", why)
	}
	s.st.Cancel()
}

// Bounds of the phases after the load: none waits longer, whatever the
// target does.
const (
	// FinalReadsBound bounds the quiet reads after the load.
	FinalReadsBound = 2 * time.Minute
	// CleanupBound bounds deleting the run's resources.
	CleanupBound = time.Minute
	// CleanupAfterAbort bounds the cleanup after a second interrupt, and
	// after the target stopped answering.
	CleanupAfterAbort = 10 * time.Second
)
