package workload

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
)

// Actor is one concurrent client of a workload. Its random source is derived
// from the scenario seed, the workload and the actor id, so a run's choices
// are reproducible. An Actor is used by one goroutine at a time.
type Actor struct {
	ID   int
	Rand *rand.Rand
	Env  *Env
	// intended is the scheduled start of the next call (open loop), 0 when
	// the call is due as soon as it is made.
	Intended int64
	writes   int
	Cache    map[string]CachedRead // per key, for conditional reads
	// unanswered counts this actor's attempts in a row that got no answer
	// at all (refused, unreachable, timed out): its next call backs off.
	unanswered int
	Wire       target.ByteCount // the current attempt's, reused
	timer      AttemptTimer     // bounds each attempt
	Op         checks.Op        // the attempt being recorded
	clock      DateClock        // this machine's clock against the service's
}

// Call describes one logical operation for Do.
type Call struct {
	Kind string
	Key  string
	// Conflicts are the answers that mean the race was lost as documented.
	Conflicts []Expect
	// CreateOnly marks an operation that fails when the resource exists
	// without sending a header that says so (Insert Entity): it is
	// recorded with If-None-Match: *, the condition it implies.
	CreateOnly bool
	// Settle marks a call whose retry could act twice where the first
	// attempt acted: a lease acquire or change (a late first attempt would
	// renew or grant the lease again). An attempt that may have taken
	// effect is not retried; the workload settles it with its own next
	// call (CHECKERS.md, unknown outcomes, rule 6).
	Settle bool
}

// Attempt performs one try of a call. It returns what it sent (recorded as
// the op's input) and, for reads, the value it got. ctx carries the attempt
// timeout and captures the raw response for the record.
type Attempt func(ctx context.Context, try int) (in checks.Input, value string, err error)

// AttemptOut is an Attempt that reports more than a value: what a table or
// queue call returned (entities, messages, receipts). Status, error code,
// ETag and request id always come from the response itself.
type AttemptOut func(ctx context.Context, try int) (in checks.Input, out checks.Output, err error)

// Do runs a logical operation with the scenario's retry policy, recording
// every attempt, and returns the last attempt's record.
func (a *Actor) Do(ctx context.Context, c Call, fn Attempt) checks.Op {
	return a.DoOut(ctx, c, func(ctx context.Context, try int) (checks.Input, checks.Output, error) {
		in, value, err := fn(ctx, try)
		return in, checks.Output{Value: value}, err
	})
}

// DoOut is Do for calls that return more than a value.
func (a *Actor) DoOut(ctx context.Context, c Call, fn AttemptOut) checks.Op {
	e := a.Env
	// Only the first call of an iteration carries the pacer's schedule: the
	// calls after it are due when the previous one returns.
	scheduled := a.Intended
	a.Intended = 0
	if scheduled > 0 && e.openKind.Load() == nil {
		k := c.Kind
		e.openKind.CompareAndSwap(nil, &k)
	}
	if !a.awaitTarget(ctx) {
		a.Intended = scheduled // not consumed: the open loop counts the arrival unserved
		return a.notSent(c)
	}
	var op checks.Op
	for try := 1; ; try++ {
		// The clock is read before ctx is: an attempt recorded as called
		// at t found ctx live after t, so none is recorded as called after
		// the load was stopped or a stage ended (except the stopping
		// stage's own calls).
		call := e.Rec.Now()
		if ctx.Err() != nil {
			if try == 1 {
				a.Intended = scheduled // not consumed: the open loop counts the arrival unserved
				return a.notSent(c)
			}
			return op
		}
		wire := &a.Wire
		wire.Reset()
		actx := a.timer.Start(ctx, e.Timeout, wire)
		intended := call // closed loop, and retries (scheduled by the back-off)
		if try == 1 && scheduled > 0 {
			if scheduled < call {
				intended = scheduled
			}
			if m := e.Rec.Metrics; m != nil {
				m.RecordLag(e.Name, c.Kind, call-intended) // the client's own lateness
			}
		}
		actx, attempt := e.tagAttempt(actx)
		in, got, err := fn(actx, try)
		ret := e.Rec.Now()
		err = a.timer.Stop(err)
		resp := wire.Resp
		a.clock.Observe(resp, call, ret, e.Zero)
		outcome, out := Classify(resp, err, c.Conflicts)
		e.faultOf(attempt, &out)
		out.Done = e.Target.Managed() && EndedByTarget(outcome, &out)
		if err == nil {
			mergeOutput(&out, &got)
		}
		in = SentInput(in, resp, err)
		if c.CreateOnly {
			in.IfNoneMatch = "*"
		}
		in.Bytes, out.Bytes = wire.Sent.Load(), wire.Received.Load()
		// The record is built in the actor's own Op, which Record reads and
		// does not keep: a fresh one would escape to the heap every call.
		a.Op = checks.Op{
			Actor: a.ID, Workload: e.Name, Kind: c.Kind, Key: c.Key, Attempt: try,
			Intended: intended, Call: call, Return: ret, Outcome: outcome, In: in, Out: out,
		}
		e.Rec.Record(&a.Op)
		op = a.Op
		a.noteAnswer(&op, ctx)
		if !e.retryable(outcome) || try >= e.Retry.MaxAttempts || ctx.Err() != nil || e.Stopping() || readFirst(&op) || c.Settle && MayHaveApplied(&op) {
			return op
		}
		d := Backoff(a.Rand, e.Retry.Base, e.Retry.Max, try)
		if !within(ctx, d) { // the next attempt would start past ctx's deadline
			return op
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return op
		case <-t.C:
		}
	}
}

// notSent is what a call returns when no attempt of it started: its
// context was done (the load stopped, a stage ended) or would be before
// the wait for a silent target ended. Nothing was sent, so nothing is
// recorded; the outcome says it certainly did not apply.
func (a *Actor) notSent(c Call) checks.Op {
	return checks.Op{Actor: a.ID, Workload: a.Env.Name, Kind: c.Kind, Key: c.Key, Outcome: checks.Error,
		Out: checks.Output{Err: "not sent: stopped"}}
}

// within reports whether a wait of d ends before ctx's deadline (true
// without one): a wait past it is not started, as no attempt could follow.
func within(ctx context.Context, d time.Duration) bool {
	dl, ok := ctx.Deadline()
	return !ok || time.Until(dl) > d
}

// readFirst reports whether a failed attempt must not be retried as it is:
// a conditional write (If-Match on an ETag the actor read, or a create-once)
// whose outcome is unknown may have taken effect, so its condition no
// longer says anything. The actor goes back to its loop, which reads before
// it writes again (CHECKERS.md, unknown outcomes, rule 6).
func readFirst(op *checks.Op) bool {
	conditional := (op.In.IfMatch != "" && op.In.IfMatch != "*") || op.In.IfNoneMatch == "*"
	return conditional && MayHaveApplied(op)
}

// endedByTarget reports whether an attempt of unknown outcome was ended by
// the target's side: an answer (not the proxy's 502 for a silent target,
// which carries the upstream error) or a connection it closed; not by the
// client's timeout or cancellation. A managed Azurite, and stormcheck's own
// proxies in front of it, act on a request only until they answer it or
// close its connection (checks.Output.Done).
func EndedByTarget(o checks.Outcome, out *checks.Output) bool {
	switch {
	case o == checks.OK || o != checks.Unknown && out.Status != http.StatusInternalServerError:
		return false // not of unknown outcome
	case out.Status != 0:
		return out.Err == ""
	}
	return out.Err != "" && out.Err != "timeout" && out.Err != "canceled"
}

// mayHaveApplied reports whether a failed attempt may have taken effect:
// no answer, or a 500.
func MayHaveApplied(op *checks.Op) bool {
	return op.Outcome == checks.Unknown || op.Out.Status == http.StatusInternalServerError
}

// noteAnswer counts attempts in a row that the target did not answer.
func (a *Actor) noteAnswer(op *checks.Op, ctx context.Context) {
	switch {
	case op.Out.Status != 0 && op.Out.Err == "": // (a status with Err: the emulation proxy's 502 for a silent target)
		a.unanswered = 0
	case ctx.Err() == nil: // not the run giving up on the call
		a.unanswered++
	}
}

// awaitTarget backs off before a call while the target does not answer
// (a killed target refuses at once: without a pause, actors would retry it
// thousands of times a second). The wait doubles from retry.base up to
// retry.max, with equal jitter (half fixed, half random), and ends early
// when the load stops. It reports false when ctx's deadline comes first:
// the call is then not made.
func (a *Actor) awaitTarget(ctx context.Context) bool {
	if a.unanswered == 0 {
		return true
	}
	e := a.Env
	d := Backoff(a.Rand, e.Retry.Base, e.Retry.Max, a.unanswered)
	ceil := e.Retry.Base << min(a.unanswered-1, 30)
	if ceil > e.Retry.Max || ceil <= 0 {
		ceil = e.Retry.Max
	}
	d = max(d, ceil/2) // at least half the ceiling: a bounded rate of attempts
	if !within(ctx, d) {
		return false
	}
	a.Pause(ctx, d)
	return true
}

// pause waits d, or less if ctx ends or the load stops.
func (a *Actor) Pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	poll := time.NewTicker(25 * time.Millisecond)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			return
		case <-poll.C:
			if a.Env.Stopping() {
				return
			}
		}
	}
}

// Tag returns a tag no other write attempt of the run carries.
func (a *Actor) Tag() string {
	a.writes++
	var b [32]byte
	var t []byte
	switch a.ID {
	case checks.ActorSetup:
		t = append(b[:0], "setup-"...)
	case checks.ActorFinal:
		t = append(b[:0], "final-"...)
	default:
		t = strconv.AppendInt(append(b[:0], 'a'), int64(a.ID), 10)
		t = append(t, '-')
	}
	return string(strconv.AppendInt(t, int64(a.writes), 10))
}

// Key picks one of the keys this process's actors use, uniformly.
func (a *Actor) Key() int { return a.Env.KeyLo + a.Rand.IntN(a.Env.OwnKeys()) }

// mergeOutput copies what an attempt read from the response body into the
// record built from the response's status line and headers.
func mergeOutput(out, got *checks.Output) {
	out.Value, out.Props, out.Entities, out.Scanned = got.Value, got.Props, got.Entities, got.Scanned
	out.Messages, out.MessageID, out.PopReceipt, out.NextVisible = got.Messages, got.MessageID, got.PopReceipt, got.NextVisible
	if out.ETag == "" {
		out.ETag = got.ETag
	}
}

// cachedRead is the last version of a blob an actor read.
type CachedRead struct{ Etag, Value, LastModified string }
