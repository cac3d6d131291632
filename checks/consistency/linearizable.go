package consistency

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/stormcheck/stormcheck/checks"
)

// LinearizableName is the name scenarios use for the linearizable check.
const LinearizableName = "linearizable"

// Defaults of the linearizable checker; tests and benchmarks may change them
// before creating a checker.
var (
	// LinearizableBudget is the total time porcupine may search, over all
	// keys of one history. A key it does not finish is undecided.
	LinearizableBudget = 10 * time.Second
	// LinearizableMaxOps and LinearizableMaxActors bound the keys given to
	// porcupine: a key with more operations or more workload actors is
	// "too large for porcupine", and the check decides it with the
	// version-chain checker instead, in linear time ("decided by
	// version-chain"). CHECKERS.md and the benchmark
	// BenchmarkCheckersCompared give the figures behind the defaults.
	LinearizableMaxOps    = 20000
	LinearizableMaxActors = 16
)

// linFirstPrefix is the length of the first prefix of a long key searched
// on its own.
const linFirstPrefix = 2048

func init() {
	checks.Register(LinearizableName, func() checks.Checker { return NewLinearizable() })
}

// Linearizable checks that every blob behaved as one atomic register with
// ETags, using porcupine's search for a linearization. It reads blob.get,
// blob.put, blob.create, blob.commit and blob.setmeta operations and judges
// each key (blob) on its own; leases, staging and container calls are
// ignored. The model has no delete: a key that a delete may have touched is
// undecided (no workload the check applies to deletes).
//
// Unknown outcomes are "may or may not have applied", as the model allows;
// the pre-pass of CHECKERS.md (see linPrepare) resolves what it soundly can
// first, so that porcupine stays within its budget. A key porcupine cannot
// decide within its share of the budget makes the verdict undecided, never a
// pass; a key too large to try is decided by the version-chain checker
// (exact without refusals and unknown outcomes, sound with them; see
// VersionChain), and is undecided only when version-chain cannot decide it. A violation carries the operations the
// search could not place and a picture of the history (porcupine's HTML),
// returned as an artifact.
type Linearizable struct {
	// Budget, MaxOps and MaxActors start as the package defaults.
	Budget            time.Duration
	MaxOps, MaxActors int

	keys  map[string]*linKey
	order []*linKey

	outs               []*linOutcome // the keys judged so far (EndGroup)
	groups, groupsDone int
	spent              time.Duration // of the budget, by the groups judged
}

// NewLinearizable returns a fresh checker with the package defaults.
func NewLinearizable() *Linearizable {
	return &Linearizable{Budget: LinearizableBudget, MaxOps: LinearizableMaxOps, MaxActors: LinearizableMaxActors,
		keys: map[string]*linKey{}}
}

// Name implements Checker.
func (c *Linearizable) Name() string { return LinearizableName }

type linKey struct {
	key, workload string
	ops           []checks.Op // compacted; nil once the key is too large
	n             int
	actors        map[int]struct{}
	tooLarge      bool
	vc            *VersionChain // decides the key once it is too large for porcupine
	deleted       bool          // a delete may have applied: the model has no delete
}

// Observe implements Checker.
func (c *Linearizable) Observe(op *checks.Op) {
	deleted := checks.Canon(op.Kind) == checks.KindBlobDelete && op.Outcome != checks.Conflict && !checks.Refused(op)
	if !linRelevant(op.Kind) && !deleted {
		return
	}
	k := c.keys[op.Key]
	if k == nil {
		k = &linKey{key: op.Key, workload: op.Workload, actors: map[int]struct{}{}}
		c.keys[op.Key] = k
		c.order = append(c.order, k)
	}
	if deleted {
		k.deleted = true
		return
	}
	k.n++
	if op.Actor >= 0 {
		k.actors[op.Actor] = struct{}{}
	}
	cop := checks.CompactOp(op, k.workload, op.Kind, k.key)
	if k.tooLarge {
		k.vc.Observe(&cop)
		return
	}
	if k.n > c.MaxOps || len(k.actors) > c.MaxActors {
		// Too large for porcupine: version-chain takes the key over, from
		// its first operation (values compacted alike, so reads still
		// match their writes).
		k.tooLarge, k.vc = true, NewVersionChain()
		for i := range k.ops {
			k.vc.Observe(&k.ops[i])
		}
		k.vc.Observe(&cop)
		k.ops = nil
		return
	}
	k.ops = append(k.ops, cop)
}

// linOutcome is what the checker concluded about one key.
type linOutcome struct {
	k       *linKey
	h       *linHist // while it is checked
	stats   linStats
	verdict checks.Verdict
	why     string // for an undecided key
	took    time.Duration
	vio     *checks.Violation
	name    string // the artifact's name
	html    []byte
	vc      *checks.Result // version-chain's result on a key too large for porcupine
}

// Groups implements KeyLocal: the budget is shared out evenly among the
// groups (what a group does not use goes to the next ones).
func (c *Linearizable) Groups(n int) { c.groups = n }

// Finish implements Checker.
func (c *Linearizable) Finish() checks.Result {
	c.EndGroup()
	return c.Result(c.outs)
}

// EndGroup implements KeyLocal: it judges the keys seen so far, within
// their group's share of what is left of the budget.
func (c *Linearizable) EndGroup() {
	start := time.Now()
	budget := (c.Budget - c.spent) / time.Duration(max(1, c.groups-c.groupsDone))
	defer func() {
		c.spent += time.Since(start)
		c.groupsDone++
		c.keys, c.order = map[string]*linKey{}, nil
	}()
	outs := make([]*linOutcome, len(c.order))
	// Small keys first: each key may use its share of what is left of the
	// budget, so the time small keys do not need goes to the large ones.
	var sched []*linOutcome
	for i, k := range c.order {
		outs[i] = &linOutcome{k: k}
		c.outs = append(c.outs, outs[i])
		switch {
		case k.deleted:
			k.ops, k.vc = nil, nil
			outs[i].verdict = checks.Undecided
			outs[i].why = "the blob was deleted, and the model has no delete"
			continue
		case k.tooLarge:
			r := k.vc.Finish()
			k.vc = nil
			outs[i].vc, outs[i].verdict = &r, r.Verdict
			if r.Verdict == checks.Undecided {
				outs[i].why = "too large for porcupine, and version-chain could not decide it: " + r.Summary
			}
			continue
		}
		sched = append(sched, outs[i])
	}
	sort.SliceStable(sched, func(i, j int) bool { return len(sched[i].k.ops) < len(sched[j].k.ops) })
	for i, o := range sched {
		left := budget - time.Since(start)
		c.checkKey(o, left/time.Duration(len(sched)-i), left)
		o.stats = o.h.stats
		o.h, o.k.ops = nil, nil // the history is no longer needed
	}
}

// checkKey runs porcupine on one key within share (and, to picture a
// violation, what is left of the budget).
func (c *Linearizable) checkKey(o *linOutcome, share, left time.Duration) {
	k := o.k
	o.h = linPrepare(k.key, k.ops, len(k.actors))
	if len(o.h.ops) == 0 {
		o.verdict = checks.Pass
		return
	}
	if share <= 0 {
		o.verdict, o.why = checks.Undecided, "the budget ran out before porcupine could start on it"
		return
	}
	t0 := time.Now()
	defer func() { o.took = time.Since(t0) }()

	// Porcupine's memory grows with the square of the operations it holds,
	// and a violation makes it search everything before it: a long key is
	// searched in prefixes of doubling length first (see linHist.prefix),
	// for at most half its share, so that an early violation is found
	// without searching all of it. Each prefix, and then the whole key, is
	// searched on its writes alone first (for at most a quarter of what is
	// left): reads and refusals only constrain the order, so writes that no
	// order explains (a fork: two writes applied on one base) show a
	// violation whatever the reads say, and porcupine finds it far faster
	// without them. Once porcupine does not finish a prefix, the longer
	// ones are searched on their writes only.
	type stage struct {
		ops  []*linOp
		what string
	}
	var stages []stage
	if len(o.h.ops) >= 2*linFirstPrefix {
		rets := make([]int64, 0, len(o.h.ops))
		for _, op := range o.h.ops {
			if op.ret != linInf {
				rets = append(rets, op.ret)
			}
		}
		sort.Slice(rets, func(i, j int) bool { return rets[i] < rets[j] })
		for m := linFirstPrefix; 2*m <= len(rets); m *= 2 {
			p := o.h.prefix(rets[m-1])
			stages = append(stages, stage{p, fmt.Sprintf("the %d operations answered by %.3fms", len(p), float64(rets[m-1])/1e6)})
		}
	}
	stages = append(stages, stage{o.h.ops, fmt.Sprintf("the %d operations", len(o.h.ops))})
	stuck := false // a prefix porcupine did not finish: the longer ones are searched on their writes only
	for i, st := range stages {
		whole := i == len(stages)-1
		if w := writesOnly(st.ops); len(w) > 0 && len(w) < len(st.ops) {
			if rest := share - time.Since(t0); rest > 0 {
				if porcupine.CheckOperationsTimeout(o.h.model(o.h.init, w), o.h.operations(w, false), linTimeout(rest/4)) == porcupine.Illegal {
					o.fail(c, w, fmt.Sprintf("the %d writes among %s (reads and refusals aside)", len(w), st.what), time.Since(t0), left)
					return
				}
			}
		}
		rest := share/2 - time.Since(t0)
		if whole {
			rest = share - time.Since(t0)
		}
		if !whole && (stuck || rest <= 0) {
			continue
		}
		if rest <= 0 {
			o.verdict, o.why = checks.Undecided, fmt.Sprintf("porcupine did not finish within %s", linRound(time.Since(t0)))
			return
		}
		switch porcupine.CheckOperationsTimeout(o.h.model(o.h.init, st.ops), o.h.operations(st.ops, false), rest) {
		case porcupine.Illegal:
			o.fail(c, st.ops, st.what, time.Since(t0), left)
			return
		case porcupine.Ok:
			if whole {
				o.verdict = checks.Pass
				return
			}
		case porcupine.Unknown:
			if whole {
				o.verdict, o.why = checks.Undecided, fmt.Sprintf("porcupine did not finish within %s", linRound(time.Since(t0)))
				return
			}
			stuck = true
		}
	}
}

// fail searches ops again, keeping the partial linearizations that show
// where the search got stuck (about twice as slow), and builds the
// violation. The search found the violation once in took, so it gets three
// times as long again even when the budget is spent, up to the budget once
// more: a failure may take twice the budget, a pass or an undecided key
// never more than it.
func (o *linOutcome) fail(c *Linearizable, ops []*linOp, what string, took, left time.Duration) {
	o.verdict = checks.Fail
	model := o.h.model(o.h.init, ops)
	again := linTimeout(max(left-took, min(3*took+100*time.Millisecond, c.Budget)))
	_, info := porcupine.CheckOperationsVerbose(model, o.h.operations(ops, true), again)
	o.vio, o.name, o.html = o.h.violation(model, info, ops, what)
}

// linTimeout keeps a timeout given to porcupine positive: 0 would mean
// no timeout at all.
func linTimeout(d time.Duration) time.Duration { return max(d, time.Nanosecond) }

func linRound(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(time.Millisecond)
	}
	return d.Round(time.Microsecond)
}

func (c *Linearizable) Result(outs []*linOutcome) checks.Result {
	var v checks.Violations
	artifacts := map[string][]byte{}
	var st linStats
	var failed, undecided []string
	passed, byVC, decided := 0, 0, 0
	for _, o := range outs {
		st.dropped += o.stats.dropped
		st.stripped += o.stats.stripped
		st.resolved += o.stats.resolved
		st.unknownDropped += o.stats.unknownDropped
		st.unknownKept += o.stats.unknownKept
		st.ops += o.k.n
		switch o.verdict {
		case checks.Pass:
			passed++
			decided += o.k.n
			if o.vc != nil {
				byVC++
			}
		case checks.Fail:
			failed = append(failed, o.k.key)
			decided += o.k.n
			if o.vc != nil {
				listed := map[string]int{}
				for _, x := range o.vc.Violations {
					v.AddKind(x.Kind, o.k.key, "decided by version-chain (too large for porcupine): "+x.Message, x.Ops...)
					listed[x.Kind]++
				}
				for k, n := range o.vc.Kinds {
					v.Count(k, n-listed[k])
				}
				continue
			}
			v.Add(o.k.key, o.vio.Message, o.vio.Ops...)
			if o.html != nil {
				artifacts[o.name] = o.html
			}
		default:
			why := fmt.Sprintf("%s (%s: %s, %s)", o.k.key, o.why, checks.Plural(o.k.n, "op", "ops"), checks.Plural(len(o.k.actors), "actor", "actors"))
			undecided = append(undecided, why)
		}
	}
	var b strings.Builder
	if len(outs) == 0 {
		b.WriteString("no blob reads or writes in the history: undecided, nothing to check")
	} else {
		fmt.Fprintf(&b, "%s, %s", checks.Plural(len(outs), "key", "keys"), checks.Plural(st.ops, "op", "ops"))
		fmt.Fprintf(&b, " (pre-pass: %s verified and stripped, %s resolved by a read, %s dropped as immaterial, %s left to search)",
			checks.Plural(st.stripped, "refusal", "refusals"), checks.Plural(st.resolved, "unknown write", "unknown writes"),
			checks.Plural(st.unknownDropped, "unknown write", "unknown writes"), checks.Plural(st.unknownKept, "unknown", "unknowns"))
		fmt.Fprintf(&b, ": %d linearizable", passed)
		if byVC > 0 {
			fmt.Fprintf(&b, " (%d of them too large for porcupine, decided by version-chain)", byVC)
		}
		if len(failed) > 0 {
			fmt.Fprintf(&b, ", NOT linearizable: %s", strings.Join(firstKeys(failed), ", "))
		}
		if len(undecided) > 0 {
			fmt.Fprintf(&b, ", undecided: %s", strings.Join(firstKeys(undecided), "; "))
		}
	}
	r := v.Result(LinearizableName, b.String())
	if r.Verdict == checks.Pass && (len(undecided) > 0 || len(outs) == 0) {
		r.Verdict = checks.Undecided
	}
	if len(artifacts) > 0 {
		r.Artifacts = artifacts
	}
	return r.WithDecided(decided).Of(st.ops)
}

// namedKeys is how many keys a summary names in one list: a run of many
// keys may fail or leave undecided thousands (every key of a killed run's
// history), and the summary stays a line; the violations name every
// failed key.
const namedKeys = 10

// firstKeys is the first namedKeys of keys and, past them, how many more.
func firstKeys(keys []string) []string {
	if n := len(keys); n > namedKeys {
		return append(keys[:namedKeys:namedKeys], fmt.Sprintf("and %d more keys", n-namedKeys))
	}
	return keys
}
