package files

import (
	"context"
	"strconv"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/runner/workload"
	"github.com/stormcheck/stormcheck/scenarios"
)

// Ranges: a file of RangeSlots records of RecordSize bytes each. A write
// covers a run of whole slots and writes in each slot a record that names
// the write and the slot ("a3-17/5" padded with dots, then a newline), so
// the final read says, slot by slot, which write's bytes are there and
// whether they are whole.
const (
	RangeSlots  = 8
	RecordSize  = 32
	maxRunSlots = 4
)

// Record is the record write tag leaves in slot.
func Record(tag string, slot int) []byte {
	s := tag + "/" + strconv.Itoa(slot)
	b := make([]byte, RecordSize)
	copy(b, s)
	for i := len(s); i < RecordSize-1; i++ {
		b[i] = '.'
	}
	b[RecordSize-1] = '\n'
	return b
}

// RangeValue is the recorded input of a write by tag of n slots from lo:
// "TAG@LO+N".
func RangeValue(tag string, lo, n int) string {
	return tag + "@" + strconv.Itoa(lo) + "+" + strconv.Itoa(n)
}

// DecodeSlots is a final read as recorded: each slot's writer tag, or "?"
// for a slot that is not exactly one record for that slot, space-separated
// ("?" slots past the end of a short file too).
func DecodeSlots(b []byte) string {
	out := make([]string, RangeSlots)
	for i := range out {
		out[i] = "?"
		if (i+1)*RecordSize > len(b) {
			continue
		}
		rec := b[i*RecordSize : (i+1)*RecordSize]
		head := strings.TrimRight(string(rec[:RecordSize-1]), ".")
		tag, slot, ok := strings.Cut(head, "/")
		if ok && slot == strconv.Itoa(i) && tag != "" && !strings.ContainsAny(tag, " ?") && string(Record(tag, i)) == string(rec) {
			out[i] = tag
		}
	}
	if len(b) != RangeSlots*RecordSize {
		out = append(out, "?") // a file of another length than set up
	}
	return strings.Join(out, " ")
}

// restRanges is files.rest-ranges: last writer wins on overlapping Put
// Range. Each file (key) is RangeSlots records; every actor writes runs of
// 1 to 4 whole slots from a random slot, unconditionally, each slot a
// record naming the write. The final read decodes each slot's writer; the
// range-writes check decides that every slot holds exactly one whole
// record of a write that covered it and may have applied, and that the
// writes seen are in an order Put Range's atomicity and real time allow.
type restRanges struct{ r *rest }

func init() {
	workload.Register("files.rest-ranges", func(w scenarios.Workload, t *target.Target) (workload.Workload, error) {
		r, err := newREST(w.Kind, t)
		if err != nil {
			return nil, err
		}
		return &restRanges{r: r}, nil
	})
}

// setupFiles creates the share and each key's file of size bytes,
// filling it with fill's bytes when fill is set.
func (r *rest) setupFiles(ctx context.Context, e *workload.Env, size int64, fill func(a *workload.Actor) (data []byte, value string)) error {
	r.open(e)
	if e.AttachOnly {
		return nil
	}
	a := e.Actor(checks.ActorSetup)
	if op := r.createShare(ctx, a); op.Outcome != checks.OK {
		return target.OpError("create share "+r.name, &op)
	}
	for i := 0; i < e.Keys; i++ {
		k := workload.KeyName(i)
		if op := r.createFile(ctx, a, k, size); op.Outcome != checks.OK {
			return target.OpError("create file "+k, &op)
		}
		if fill == nil {
			continue
		}
		data, value := fill(a)
		if op := r.putRange(ctx, a, k, 0, data, "", value); op.Outcome != checks.OK {
			return target.OpError("fill file "+k, &op)
		}
	}
	return nil
}

// finalAndDelete reads every key once the load stopped, then deletes the
// share.
func (r *rest) finalAndDelete(ctx context.Context, e *workload.Env, decode func([]byte) string) error {
	keys := make([]string, 0, e.Keys)
	for i := 0; i < e.Keys; i++ {
		if e.KeyN > 0 && (i < e.KeyLo || i >= e.KeyLo+e.KeyN) {
			continue
		}
		keys = append(keys, workload.KeyName(i))
	}
	workload.FinalReads(ctx, e, keys, func(ctx context.Context, a *workload.Actor, k string) { r.get(ctx, a, k, decode) })
	if e.Sharded || e.AttachOnly {
		return nil // the shard that set the share up deletes it (cleanup by prefix otherwise)
	}
	if op := r.deleteShare(ctx, e.Actor(checks.ActorFinal)); op.Outcome != checks.OK {
		return target.OpError("delete share "+r.name, &op)
	}
	return nil
}

func (w *restRanges) Setup(ctx context.Context, e *workload.Env) error {
	return w.r.setupFiles(ctx, e, RangeSlots*RecordSize, func(a *workload.Actor) ([]byte, string) {
		tag := a.Tag()
		return rangeBody(tag, 0, RangeSlots), RangeValue(tag, 0, RangeSlots)
	})
}

func rangeBody(tag string, lo, n int) []byte {
	b := make([]byte, 0, n*RecordSize)
	for s := lo; s < lo+n; s++ {
		b = append(b, Record(tag, s)...)
	}
	return b
}

func (w *restRanges) Iterate(ctx context.Context, a *workload.Actor) {
	key := workload.KeyName(a.Key())
	lo := a.Rand.IntN(RangeSlots)
	n := 1 + a.Rand.IntN(min(maxRunSlots, RangeSlots-lo))
	tag := a.Tag()
	w.r.putRange(ctx, a, key, int64(lo*RecordSize), rangeBody(tag, lo, n), "", RangeValue(tag, lo, n))
}

func (w *restRanges) Final(ctx context.Context, e *workload.Env) error {
	return w.r.finalAndDelete(ctx, e, DecodeSlots)
}
