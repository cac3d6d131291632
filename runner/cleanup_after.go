package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner/cleanup"
	"github.com/stormcheck/stormcheck/runner/stage"
	"github.com/stormcheck/stormcheck/runner/target"
)

// cleanupAfterRun deletes the run's resources within its own bound, never
// the interrupt's context: a first or second Ctrl-C, a dead or frozen
// target still leave a bounded attempt. Only a third Ctrl-C (o.Abandon)
// stops it. What it could not delete goes into the summary, with the run
// id that `stormcheck cleanup --run` takes.
func cleanupAfterRun(t *target.Target, runID string, trouble context.Context, o Options, sum *reports.Summary, logf func(string, ...any)) {
	bound, why := stage.CleanupBound, ""
	var unreachable *target.UnreachableError
	switch {
	case o.Abandon.Err() != nil:
		noteLeft(t, sum, logf, []string{"(not listed)"}, errors.New("cleanup not attempted: interrupted three times"))
		return
	case errors.As(context.Cause(trouble), &unreachable):
		bound, why = stage.CleanupAfterAbort, ", the target stopped answering"
	case o.Abort.Err() != nil:
		bound, why = stage.CleanupAfterAbort, ", interrupted twice"
	}
	stopHint := ""
	if o.Abort.Err() != nil {
		stopHint = "; Ctrl-C again to stop it"
	}
	logf("cleanup: deleting the run's resources (%s*, at most %s%s%s)", cleanup.RunPrefix(runID), bound, why, stopHint)
	var more []stage.Cut
	if trouble.Err() == nil { // the target going silent now ends it too
		more = append(more, stage.Cut{Ctx: trouble, Why: nil})
	}
	st := stage.Begin("cleanup", bound, stage.Cut{Ctx: o.Abandon, Why: stage.ErrInterruptedThird}, more...)
	defer st.Cancel()
	ctx := st.Ctx
	start := time.Now()
	waited := waiting(logf, "cleanup", bound)
	_, left, err := cleanup.CleanupRun(ctx, t, cleanup.CleanupScope{RunID: runID})
	waited()
	if err == nil {
		return
	}
	switch {
	case o.Abandon.Err() != nil:
		err = fmt.Errorf("stopped by a third interrupt after %s: %w", time.Since(start).Round(time.Second), err)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		err = fmt.Errorf("gave up after %s: %w", bound, err)
	case ctx.Err() != nil:
		err = fmt.Errorf("stopped: %v: %w", context.Cause(ctx), err)
	}
	noteLeft(t, sum, logf, left, err)
}

// noteLeft records what the cleanup left. A managed Azurite's data goes
// with it, so nothing can be left there.
func noteLeft(t *target.Target, sum *reports.Summary, logf func(string, ...any), left []string, err error) {
	if t.Managed() {
		logf("cleanup: %v (nothing is left: the managed Azurite's data is deleted with it)", oneLine(err))
		return
	}
	sum.Left = left
	sum.CleanupError = target.Redact(oneLine(err))
	logf("cleanup: %s", sum.CleanupError)
}

// oneLine joins a multi-line error (errors.Join) with "; ".
func oneLine(err error) string {
	return strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ")
}
