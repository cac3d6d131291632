package batch

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/consistency"
)

// MergeReplaceName is the name scenarios use for the merge-replace check.
const MergeReplaceName = "merge-replace"

func init() {
	checks.Register(MergeReplaceName, func() checks.Checker { return NewMergeReplace() })
}

// MergeReplace checks table.merge-vs-replace: one entity per key, written by
// replaces (table.update, table.upsert; table.insert too) that leave exactly
// In.Props, each set to the write's unique tag In.Value, and by merges
// (table.merge, table.upsert-merge) that set In.Props to the tag and keep
// the other properties; table.delete counts as a replace that leaves no
// property. Reads are OK "table.get" whose Out.Props map each property the
// workload writes to the value read. Every read is judged on its own:
//
//  1. every value read is the tag of a write that wrote that property,
//     might have applied (not refused) and was sent before the read
//     returned;
//  2. at most one replace's tag shows; if replace R's tag shows, every
//     property R wrote is present, and every property not showing R's tag
//     shows a merge that is not certainly earlier than R (R erased or
//     overwrote everything written before it);
//  3. stale: property p shows write W, but a write W2 that certainly applied
//     before the read was sent (acknowledged, or read by an earlier read),
//     and was sent after W's last possible application, is a replace or
//     wrote p: it overwrote or erased W's value first;
//  4. missing: the read lacks property p although a write W that wrote p
//     certainly applied before the read was sent, and no replace without p
//     that might have applied can be placed after W and before the read
//     returned (each is certainly earlier than W or was sent after the read
//     returned).
//
// Times follow tbSpan: a write with an unknown outcome (or a 500) may apply
// at any time after its call unless it is its only attempt and a read of its
// tag bounds it; setup writes precede the load. Rules 3 and 4 use the
// earliest write that could explain the read, so an unknown outcome or
// overlapping calls always keep the checker quiet.
type MergeReplace struct {
	keys  map[string]*mrKey
	order []*mrKey
}

// NewMergeReplace returns a fresh checker.
func NewMergeReplace() *MergeReplace { return &MergeReplace{keys: map[string]*mrKey{}} }

// Name implements Checker.
func (c *MergeReplace) Name() string { return MergeReplaceName }

// mrWrite is one logical write: its attempts share the tag.
type mrWrite struct {
	tag      string
	actor    int
	replace  bool
	props    []string // sorted
	attempts []checks.Op
	span     tbSpan
	firsts   int
	bad      bool // the tag is reused by another write: not judged
}

func (w *mrWrite) writes(p string) bool {
	_, ok := slices.BinarySearch(w.props, p)
	return ok
}

func (w *mrWrite) String() string {
	what := "merge"
	switch {
	case w.replace && w.tag == "" && len(w.props) == 0:
		what = "delete"
	case w.replace:
		what = "replace"
	}
	if w.actor == checks.ActorSetup {
		what = "setup " + what
	}
	if a := tbAttempt(w.attempts); a != nil {
		return fmt.Sprintf("%s %q (#%d)", what, w.tag, a.Seq)
	}
	return fmt.Sprintf("%s %q", what, w.tag)
}

type mrKey struct {
	key, workload string
	writes        []*mrWrite
	byTag         map[string]*mrWrite
	untagged      map[int]*mrWrite // actor -> its last delete or untagged write (retries join it)
	reads         []checks.Op
	minActorCall  int64
	badTags       int
	noTag         int
}

// Observe implements Checker.
func (c *MergeReplace) Observe(op *checks.Op) {
	var replace bool
	switch op.Kind {
	case checks.KindTableUpdate, checks.KindTableUpsert, checks.KindTableInsert, checks.KindTableDelete:
		replace = true
	case checks.KindTableMerge, checks.KindTableUpsertMerge:
	case checks.KindTableGet:
	default:
		return
	}
	k := c.keys[op.Key]
	if k == nil {
		k = &mrKey{key: op.Key, workload: op.Workload, byTag: map[string]*mrWrite{}, untagged: map[int]*mrWrite{}, minActorCall: tbInf}
		c.keys[op.Key] = k
		c.order = append(c.order, k)
	}
	if op.Actor >= 0 {
		k.minActorCall = min(k.minActorCall, op.Call)
	}
	cop := checks.CompactOp(op, k.workload, op.Kind, k.key)
	if op.Kind == checks.KindTableGet {
		if op.Outcome == checks.OK {
			k.reads = append(k.reads, cop)
		}
		return
	}
	props := slices.Clone(op.In.Props)
	if op.Kind == checks.KindTableDelete {
		props = nil
	}
	slices.Sort(props)
	props = slices.Compact(props)
	var w *mrWrite
	switch tag := op.In.Value; {
	case op.Kind == checks.KindTableDelete || tag == "":
		if op.Kind != checks.KindTableDelete {
			k.noTag++
		}
		if op.Attempt > 1 {
			w = k.untagged[op.Actor]
		}
		if w == nil {
			w = &mrWrite{actor: op.Actor, replace: replace, props: props, span: newTBSpan()}
			k.untagged[op.Actor] = w
			k.writes = append(k.writes, w)
		}
	default:
		w = k.byTag[tag]
		if w == nil {
			w = &mrWrite{tag: tag, actor: op.Actor, replace: replace, props: props, span: newTBSpan()}
			k.byTag[tag] = w
			k.writes = append(k.writes, w)
		} else if w.actor != op.Actor || w.replace != replace || !slices.Equal(w.props, props) {
			w.bad = true
		}
	}
	w.attempts = append(w.attempts, cop)
	w.span.attempt(op)
	if op.Attempt <= 1 {
		w.firsts++
	}
}

type mrTotals struct {
	keys, writes, replaces, merges, unknown, reads, badTags, noTag int
}

// Finish implements Checker.
func (c *MergeReplace) Finish() checks.Result {
	var v checks.Violations
	var t mrTotals
	for _, k := range c.order {
		k.finish(&v, &t)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s, %s (%d replaces, %d merges, %d unknown), %s", checks.Plural(t.keys, "entity", "entities"),
		checks.Plural(t.writes, "write", "writes"), t.replaces, t.merges, t.unknown, checks.Plural(t.reads, "read", "reads"))
	var undecided []string
	if t.reads == 0 {
		undecided = append(undecided, "nothing to check")
	}
	if t.badTags > 0 {
		undecided = append(undecided, checks.Plural(t.badTags, "tag", "tags")+" reused by several writes")
	}
	if t.noTag > 0 {
		undecided = append(undecided, checks.Plural(t.noTag, "write attempt", "write attempts")+" without a tag")
	}
	return v.Conclude(MergeReplaceName, &b, undecided, "every read explained by the last replace and the merges after it", "").
		WithDecided(t.reads).Of(t.reads)
}

// mrShown is one property a read showed.
type mrShown struct {
	prop, val string
	w         *mrWrite
	state     tbEntState // tbEntOK, tbEntNobody, tbEntRow (did not write the property), tbEntRefused, tbEntEarly, tbEntSkip
}

// mrBest answers "the largest x among the items whose t is below a bound":
// items sorted by t, with running maxima of x.
type mrBest struct {
	t    []int64
	best []int64
	arg  []*mrWrite
}

func newMRBest(ws []*mrWrite, t, x func(*mrWrite) int64) *mrBest {
	sort.SliceStable(ws, func(i, j int) bool { return t(ws[i]) < t(ws[j]) })
	b := &mrBest{}
	for _, w := range ws {
		bx, arg := x(w), w
		if n := len(b.best); n > 0 && b.best[n-1] >= bx {
			bx, arg = b.best[n-1], b.arg[n-1]
		}
		b.t = append(b.t, t(w))
		b.best = append(b.best, bx)
		b.arg = append(b.arg, arg)
	}
	return b
}

// below returns the largest x among items with t < bound (ok false if none).
func (b *mrBest) below(bound int64) (int64, *mrWrite, bool) {
	i := sort.Search(len(b.t), func(i int) bool { return b.t[i] >= bound })
	if i == 0 {
		return 0, nil, false
	}
	return b.best[i-1], b.arg[i-1], true
}

// mrProp holds, for one property, the writes rules 3 and 4 search.
type mrProp struct {
	over    *mrBest // applied writes that are replaces or wrote p: by -> largest lo
	wrote   *mrBest // applied writes that wrote p: by -> largest lo
	erasers *mrBest // replaces without p that might have applied: lo -> largest hi
}

func (k *mrKey) finish(v *checks.Violations, t *mrTotals) {
	t.keys++
	t.reads += len(k.reads)
	t.noTag += k.noTag
	for _, w := range k.writes {
		if w.bad || w.firsts > 1 {
			w.bad = true
			t.badTags++
		}
		t.writes++
		if w.replace {
			t.replaces++
		} else {
			t.merges++
		}
		if !w.span.ok && !w.span.refused() {
			t.unknown++
		}
	}

	// Resolve every value read to its write.
	shown := make([][]mrShown, len(k.reads))
	for i := range k.reads {
		rd := &k.reads[i]
		names := make([]string, 0, len(rd.Out.Props))
		for p := range rd.Out.Props {
			names = append(names, p)
		}
		slices.Sort(names)
		for _, p := range names {
			s := mrShown{prop: p, val: rd.Out.Props[p], state: tbEntOK}
			s.w = k.byTag[s.val]
			switch {
			case s.w == nil || s.val == "":
				s.w, s.state = nil, tbEntNobody
			case s.w.bad:
				s.state = tbEntSkip
			case !s.w.writes(p):
				s.state = tbEntRow
			case s.w.span.refused():
				s.state = tbEntRefused
			case rd.Return < s.w.span.lo:
				s.state = tbEntEarly
			default:
				s.w.span.read(rd.Return)
			}
			shown[i] = append(shown[i], s)
		}
	}
	setupEnd := int64(tbInf)
	if k.minActorCall < tbInf {
		setupEnd = k.minActorCall - 1
	}
	for _, w := range k.writes {
		end := int64(tbInf)
		if w.actor == checks.ActorSetup {
			end = setupEnd
		}
		w.span.settle(end)
	}

	// Per property, the writes rules 3 and 4 look for.
	props := map[string]*mrProp{}
	for _, w := range k.writes {
		for _, p := range w.props {
			if !w.bad {
				props[p] = nil
			}
		}
	}
	var names []string
	for p := range props {
		names = append(names, p)
	}
	slices.Sort(names)
	by := func(w *mrWrite) int64 { return w.span.by }
	lo := func(w *mrWrite) int64 { return w.span.lo }
	hi := func(w *mrWrite) int64 { return w.span.hi }
	for _, p := range names {
		var over, wrote, erasers []*mrWrite
		for _, w := range k.writes {
			if w.span.refused() {
				continue
			}
			// A write with a reused tag proves nothing, but may still erase.
			if !w.bad && w.span.applied() && (w.replace || w.writes(p)) {
				over = append(over, w)
			}
			if !w.bad && w.span.applied() && w.writes(p) {
				wrote = append(wrote, w)
			}
			if w.replace && !w.writes(p) {
				erasers = append(erasers, w)
			}
		}
		props[p] = &mrProp{over: newMRBest(over, by, lo), wrote: newMRBest(wrote, by, lo), erasers: newMRBest(erasers, lo, hi)}
	}

	for i := range k.reads {
		rd := &k.reads[i]
		k.unexplained(v, rd, shown[i])
		k.replaces(v, rd, shown[i])
		k.stale(v, rd, shown[i], props)
		k.missing(v, rd, names, props)
	}
}

// mrMore renders " (and 2 more properties)".
func mrMore(n int) string {
	if n <= 1 {
		return ""
	}
	return fmt.Sprintf(" (and %s)", checks.Plural(n-1, "more property", "more properties"))
}

// unexplained: rule 1, one violation per read.
func (k *mrKey) unexplained(v *checks.Violations, rd *checks.Op, shown []mrShown) {
	var first *mrShown
	n := 0
	for i := range shown {
		if s := &shown[i]; s.state != tbEntOK && s.state != tbEntSkip {
			n++
			if first == nil {
				first = s
			}
		}
	}
	if first == nil {
		return
	}
	var msg string
	var w *checks.Op
	if first.w != nil {
		w = tbAttempt(first.w.attempts)
	}
	switch first.state {
	case tbEntNobody:
		msg = fmt.Sprintf("value nobody wrote: property %q reads %q, which no write of the entity stored", first.prop, first.val)
	case tbEntRow:
		msg = fmt.Sprintf("value on a property its write did not set: property %q reads the tag of %s, which wrote only %v", first.prop, first.w, first.w.props)
	case tbEntRefused:
		msg = fmt.Sprintf("refused write visible: property %q reads the tag of %s, which was answered %s", first.prop, first.w, consistency.Answer(w))
	case tbEntEarly:
		msg = fmt.Sprintf("value read before it was written: property %q reads the tag of %s, which was sent after the read returned", first.prop, first.w)
	}
	v.Add(k.key, msg+mrMore(n), checks.Excerpt(rd, w)...)
}

// replaces: rule 2, one violation per read.
func (k *mrKey) replaces(v *checks.Violations, rd *checks.Op, shown []mrShown) {
	var r *mrShown
	for i := range shown {
		s := &shown[i]
		if s.state != tbEntOK || !s.w.replace {
			continue
		}
		if r == nil {
			r = s
			continue
		}
		if s.w != r.w {
			v.Add(k.key, fmt.Sprintf("two replaces visible: property %q shows %s and property %q shows %s, but the later of them erased the other's values",
				r.prop, r.w, s.prop, s.w), checks.Excerpt(rd, tbAttempt(r.w.attempts), tbAttempt(s.w.attempts))...)
			return
		}
	}
	if r == nil {
		return
	}
	for _, p := range r.w.props {
		if _, ok := rd.Out.Props[p]; !ok {
			v.Add(k.key, fmt.Sprintf("property of a visible replace missing: property %q shows %s, which also wrote %q, but %q is missing (only a later replace could erase it, and that would have erased %q too)",
				r.prop, r.w, p, p, r.prop), checks.Excerpt(rd, tbAttempt(r.w.attempts))...)
			return
		}
	}
	for i := range shown {
		s := &shown[i]
		if s.state != tbEntOK || s.w == r.w || !s.w.span.before(&r.w.span) {
			continue
		}
		v.Add(k.key, fmt.Sprintf("a property that neither the last replace nor a later merge wrote: property %q shows %s, which took effect before %s (visible on %q) was sent",
			s.prop, s.w, r.w, r.prop), checks.Excerpt(rd, tbAttempt(r.w.attempts), tbAttempt(s.w.attempts))...)
		return
	}
}

// stale: rule 3, one violation per read.
func (k *mrKey) stale(v *checks.Violations, rd *checks.Op, shown []mrShown, props map[string]*mrProp) {
	for i := range shown {
		s := &shown[i]
		pp := props[s.prop]
		if s.state != tbEntOK || pp == nil {
			continue
		}
		lo, w2, ok := pp.over.below(rd.Call)
		if !ok || lo <= s.w.span.hi {
			continue
		}
		how := "which also wrote it"
		if w2.replace && !w2.writes(s.prop) {
			how = "which erased it"
		}
		v.Add(k.key, fmt.Sprintf("stale read: property %q shows %s, but %s, %s, was sent after it returned and took effect before the read was sent",
			s.prop, s.w, w2, how), checks.Excerpt(rd, tbAttempt(s.w.attempts), tbAttempt(w2.attempts))...)
		return
	}
}

// missing: rule 4, one violation per read.
func (k *mrKey) missing(v *checks.Violations, rd *checks.Op, names []string, props map[string]*mrProp) {
	for _, p := range names {
		if _, ok := rd.Out.Props[p]; ok {
			continue
		}
		pp := props[p]
		lo, w, ok := pp.wrote.below(rd.Call)
		if !ok {
			continue
		}
		if hi, _, ok := pp.erasers.below(rd.Return + 1); ok && hi >= lo {
			continue // a replace without p may have applied after w
		}
		v.Add(k.key, fmt.Sprintf("missing property: the read lacks %q, but %s wrote it and took effect before the read was sent, and no replace without %q could have applied after it",
			p, w, p), checks.Excerpt(rd, tbAttempt(w.attempts))...)
		return
	}
}
