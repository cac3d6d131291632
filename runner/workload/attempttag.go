package workload

import (
	"context"
	"strconv"
	"sync/atomic"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
)

// attemptSeq numbers attempts for AttemptHeader.
var attemptSeq atomic.Uint64

// tagAttempt gives the attempt an id the fault proxy sees (AttemptHeader),
// when the run has HTTP faults; id is "" otherwise.
func (e *Env) tagAttempt(ctx context.Context) (context.Context, string) {
	if e.Target == nil || e.Target.Faults == nil || !e.Target.Faults.HasHTTP() {
		return ctx, ""
	}
	id := strconv.FormatUint(attemptSeq.Add(1), 36)
	return context.WithValue(ctx, target.AttemptKey{}, id), id
}

// faultOf names, in out, the fault that left attempt id without an answer
// (a dropped response), when out does not name one already.
func (e *Env) faultOf(id string, out *checks.Output) {
	if id == "" || out.Fault != "" {
		return
	}
	out.Fault = e.Target.Faults.Unanswered(id)
}
