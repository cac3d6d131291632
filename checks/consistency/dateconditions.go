package consistency

import (
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/stormcheck/stormcheck/checks"
)

// date-conditions judges If-Modified-Since and If-Unmodified-Since answers
// on containers and blobs from the Last-Modified values the service itself
// returned. A read answered 304 counts as "condition false", like a 412.
//
// Last-Modified has one-second precision and only grows, so for an
// operation called at c and returning at r:
//   - every write that returned before c left the resource with a
//     Last-Modified at least its own;
//   - if no write may have landed between the last write that returned
//     before c and r, the resource's Last-Modified during the request was
//     exactly that write's.
//
// A condition is flagged only when one of these facts proves the answer
// wrong: an If-Unmodified-Since T that succeeded although a write with
// Last-Modified after T had certainly completed, or was refused although
// the Last-Modified was certainly at most T for the whole request (and the
// mirror images for If-Modified-Since). Writes with unknown outcomes count
// as "may have landed" and so only ever suppress a verdict.
type dateConditions struct {
	keys map[string]*dcKey
	n    int
	v    checks.Violations
}

type dcWrite struct {
	op      checks.Op
	lm      time.Time // zero when the write's outcome is unknown
	unknown bool
}

type dcKey struct {
	writes []dcWrite
	conds  []checks.Op
}

func init() {
	checks.Register("date-conditions", func() checks.Checker { return &dateConditions{keys: map[string]*dcKey{}} })
}

func (d *dateConditions) Name() string { return "date-conditions" }

// dcWrites are the operations that change a resource's Last-Modified.
var dcWrites = map[string]bool{
	"container.create": true, "container.setmeta": true, "container.setacl": true,
	"blob.put": true, "blob.create": true, "blob.commit": true, "blob.setmeta": true,
}

func (d *dateConditions) key(k string) *dcKey {
	x := d.keys[k]
	if x == nil {
		x = &dcKey{}
		d.keys[k] = x
	}
	return x
}

func (d *dateConditions) Observe(op *checks.Op) {
	conditional := op.In.IfModifiedSince != "" || op.In.IfUnmodifiedSince != ""
	if dcWrites[op.Kind] {
		k := d.key(op.Key)
		switch {
		case op.Outcome == checks.OK:
			if lm, err := http.ParseTime(op.Out.LastModified); err == nil {
				k.writes = append(k.writes, dcWrite{op: *op, lm: lm})
			} else {
				k.writes = append(k.writes, dcWrite{op: *op, unknown: true}) // no date: treat as "may have landed"
			}
		case maybeApplied(op):
			k.writes = append(k.writes, dcWrite{op: *op, unknown: true})
		}
	}
	if !conditional {
		return
	}
	// A refusal is judged only when the date was the request's only
	// condition; a success means every condition held, the date included.
	other := op.In.IfMatch != "" || op.In.IfNoneMatch != "" || op.In.LeaseID != ""
	refused := (op.Outcome == checks.Conflict && op.Out.Status == http.StatusPreconditionFailed &&
		(op.Out.ErrorCode == "" || op.Out.ErrorCode == "ConditionNotMet")) || (op.Outcome == checks.OK && op.Out.Status == http.StatusNotModified)
	if (op.Outcome == checks.OK && !refused) || (refused && !other) {
		k := d.key(op.Key)
		k.conds = append(k.conds, *op)
		d.n++
	}
}

// maybeApplied: a write whose outcome is unknown, or a 5xx that may have
// been applied.
func maybeApplied(op *checks.Op) bool {
	return op.Outcome == checks.Unknown || (op.Out.Status >= 500 && op.Out.Status != http.StatusServiceUnavailable)
}

func (d *dateConditions) Finish() checks.Result {
	names := make([]string, 0, len(d.keys))
	for k := range d.keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		d.judgeKey(name, d.keys[name])
	}
	if d.n == 0 && d.v.Total == 0 {
		return d.v.Result(d.Name(), fmt.Sprintf("%d resource(s), 0 date-conditioned requests: undecided, nothing to check", len(d.keys))).WithDecided(0)
	}
	return d.v.Result(d.Name(), fmt.Sprintf("%d resource(s), %d date-conditioned requests: %s", len(d.keys), d.n, verdictWords(d.v.Total))).WithDecided(d.n).Of(d.n)
}

func verdictWords(n int) string {
	if n == 0 {
		return "every answer consistent with the Last-Modified values returned"
	}
	return fmt.Sprintf("%d answer(s) contradict the Last-Modified values", n)
}

func (d *dateConditions) judgeKey(name string, k *dcKey) {
	for i := range k.conds {
		op := &k.conds[i]
		// floor: the largest Last-Modified of a write certainly completed
		// before the call; exact: true when nothing may have landed after it
		// until the return.
		var last *dcWrite
		for j := range k.writes {
			w := &k.writes[j]
			if w.unknown || w.op.Return >= op.Call || w.op.Seq == op.Seq {
				continue
			}
			if last == nil || w.lm.After(last.lm) {
				last = w
			}
		}
		if last == nil {
			continue
		}
		exact := true
		for j := range k.writes {
			w := &k.writes[j]
			if w.op.Seq == op.Seq || w == last {
				continue
			}
			if (w.op.Return >= op.Call && w.op.Call <= op.Return) || (w.unknown && w.op.Call <= op.Return) {
				exact = false // may have changed Last-Modified during the request
				break
			}
		}
		floor := last.lm
		ok := op.Outcome == checks.OK && op.Out.Status != http.StatusNotModified
		if t, err := http.ParseTime(op.In.IfUnmodifiedSince); err == nil {
			switch {
			case ok && floor.After(t):
				d.v.AddKind("If-Unmodified-Since not enforced", name, fmt.Sprintf("If-Unmodified-Since %s succeeded although a write had already set Last-Modified to %s",
					op.In.IfUnmodifiedSince, last.op.Out.LastModified), last.op, *op)
			case !ok && exact && !floor.After(t):
				d.v.AddKind("If-Unmodified-Since refused in vain", name, fmt.Sprintf("If-Unmodified-Since %s was refused although Last-Modified was %s for the whole request",
					op.In.IfUnmodifiedSince, last.op.Out.LastModified), last.op, *op)
			}
		}
		if t, err := http.ParseTime(op.In.IfModifiedSince); err == nil {
			switch {
			case !ok && floor.After(t):
				d.v.AddKind("If-Modified-Since refused in vain", name, fmt.Sprintf("If-Modified-Since %s was refused although a write had already set Last-Modified to %s",
					op.In.IfModifiedSince, last.op.Out.LastModified), last.op, *op)
			case ok && exact && !floor.After(t):
				d.v.AddKind("If-Modified-Since not enforced", name, fmt.Sprintf("If-Modified-Since %s succeeded although Last-Modified was %s for the whole request",
					op.In.IfModifiedSince, last.op.Out.LastModified), last.op, *op)
			}
		}
	}
}
