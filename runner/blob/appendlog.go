package blob

import (
	"context"
	"fmt"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// appendLog is blob.append-log: many appenders share one append blob per
// key, the classic shared log without a lease. Each reads the blob's length
// (Get Blob Properties), then appends one record at that position with
// x-ms-blob-condition-appendpos; a 412 AppendPositionConditionNotMet means
// another appender got there first, and the next iteration reads again.
// Every attempt of one append sends the same position, so a retry after
// an attempt that landed is refused and can never land twice. The final
// read returns the whole log (checks/appendlog).
type appendLog struct{ b *Blobs }

func init() {
	workload.Register("blob.append-log", func(scenarios.Workload, *target.Target) (workload.Workload, error) { return &appendLog{}, nil })
}

func (w *appendLog) Setup(ctx context.Context, e *workload.Env) error {
	w.b = newBlobs(e)
	return setupKeys(ctx, e, w.b, func(a *workload.Actor, k string) checks.Op {
		return w.b.CreateAppend(ctx, a, k, AppendConds{IfNoneMatch: "*"})
	})
}

// AppendRecord is the record an append attempt writes: who wrote it (the
// append's tag, unique in the run), which attempt, the position it was
// sent for, padded with dots to at least pad bytes, and a newline. A
// record names itself: a log read back can be split into records and each
// traced to one attempt.
func AppendRecord(tag string, try int, pos int64, pad int) string {
	r := fmt.Sprintf("%s#%d@%d", tag, try, pos)
	if n := pad - len(r) - 1; n > 0 {
		r += strings.Repeat(".", n)
	}
	return r + "\n"
}

func (w *appendLog) Iterate(ctx context.Context, a *workload.Actor) {
	key := workload.KeyName(a.Key())
	_, n := w.b.Props(ctx, a, key)
	if n < 0 {
		return
	}
	tag, pad := a.Tag(), a.Env.Params.PayloadBytes
	w.b.AppendBlock(ctx, a, key, AppendConds{AppendPos: &n}, func(try int) string { return AppendRecord(tag, try, n, pad) })
}

func (w *appendLog) Final(ctx context.Context, e *workload.Env) error {
	keys := make([]string, e.Keys)
	for i := range keys {
		keys[i] = workload.KeyName(i)
	}
	workload.FinalReads(ctx, e, keys, func(ctx context.Context, a *workload.Actor, k string) { w.b.ReadLog(ctx, a, k) })
	return nil
}
