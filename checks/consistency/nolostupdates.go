package consistency

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
)

// NoLostUpdatesName is the name scenarios use for the no-lost-updates check.
const NoLostUpdatesName = "no-lost-updates"

func init() {
	checks.Register(NoLostUpdatesName, func() checks.Checker { return NewNoLostUpdates() })
}

// NoLostUpdates checks a read-modify-write counter (blob.etag-counter,
// blob.lease-mutex): every acknowledged increment must survive. It reads only
// "blob.get" and "blob.put" operations and judges each key (blob) on its own:
//
//   - fork: two applied puts with If-Match on the same ETag (one overwrote
//     the other: a lost update by definition);
//   - duplicate increment: two applied puts of different logical operations
//     stored the same counter value (both read the same n: two lease holders
//     at once, or a fork without If-Match);
//   - count: the final quiet read F must satisfy
//     initial + acknowledged + proven ≤ F ≤ initial + acknowledged + proven + maybe,
//     and no applied write may have stored a counter above F;
//   - a read of a value no write attempt stored, or of a value whose write
//     was refused (412, 409, 503, 4xx).
//
// Unknown outcomes are resolved as CHECKERS.md says: a write whose value was
// read took effect; an If-Match write whose base ETag another applied write
// consumed did not; the rest are "maybe" and only widen the upper bound.
// Attempts of one logical operation (a retry: same actor, Attempt > 1, same
// counter value) count as one increment.
type NoLostUpdates struct {
	keys   map[string]*nluKey
	expect map[string]int // ExpectKey: records of each key in the group to come
	order  []*nluKey
	v      checks.Violations // of the keys judged so far (EndGroup)
	t      nluTotals
	shared checks.StrTable // kinds, workloads, error codes, dates
}

// NewNoLostUpdates returns a fresh checker.
func NewNoLostUpdates() *NoLostUpdates {
	return &NoLostUpdates{keys: map[string]*nluKey{}}
}

// Name implements Checker.
func (c *NoLostUpdates) Name() string { return NoLostUpdatesName }

// wstate is what the checker concludes about one write attempt.
type wstate uint8

const (
	wRefused wstate = iota // certainly not applied: conflict, throttle, error
	wLost                  // may have applied, but its base ETag was consumed by another applied write
	wMaybe                 // may have applied; nothing decides it
	wProven                // may have applied, and its value was read: it did
	wAcked                 // the service acknowledged it
)

func (s wstate) applied() bool { return s >= wProven }

type nluWrite struct {
	op      checks.Cop
	n       int64
	logical int32 // logical operation (retries share it); -1 for setup writes
	baseGet int32 // index in nluKey.gets of the read this write was based on, or -1
	read    int32 // index in nluKey.reads of the first read of this value, or -1
	state   wstate
	setup   bool
}

type nluRead struct {
	op  checks.Cop
	n   int64
	tag string
}

type nluBadRead struct {
	op  checks.Cop
	why string
}

type nluActor struct {
	lastGet     checks.Op // the actor's last successful read of the key, uncompacted (one per actor)
	hasGet      bool
	getStored   int32 // its index in nluKey.gets once an applied write used it, else -1
	lastLogical int32
	lastN       int64
}

type nluKey struct {
	key, workload string
	shared        *checks.StrTable
	ck            checks.CopKey // the key's ETags, values and lease ids

	writes   checks.Chunked[nluWrite]
	byTag    map[string]int32           // value tag -> first write attempt that stored it
	reads    checks.Chunked[nluRead]    // the first read of each tag (and of each other counter seen with it)
	byRead   map[string]int32           // value tag -> index in reads of its first read
	variants map[string]bool            // "tag\x00counter" pairs read besides a tag's first read
	gets     checks.Chunked[checks.Cop] // reads that applied writes were based on (excerpts)
	actors   []*nluActor

	badReads     []nluBadRead // reads that match no write (first MaxViolations)
	badReadTotal int

	final    *checks.Op // the last final read that answered (a value or 404), rebuilt at the end
	finalOp  checks.Cop
	hasFinal bool
	logicals int32

	hasSetup, setupOK bool
	setupN            int64
	malformed         int             // puts whose value is not a counter value
	dupTags           int             // write attempts reusing another attempt's tag
	reused            map[string]bool // the tags those attempts reused
}

func (c *NoLostUpdates) key(op *checks.Op) *nluKey {
	k := c.keys[op.Key]
	if k == nil {
		// About half a counter's records are writes, each with a new
		// value and ETag (a hint's room; the tables grow past it).
		room := max(c.expect[op.Key], 0) / 2
		k = &nluKey{
			key: op.Key, workload: op.Workload, shared: &c.shared,
			byTag: make(map[string]int32, room), byRead: make(map[string]int32, room),
		}
		k.ck.Strs.Grow(room)
		c.keys[op.Key] = k
		c.order = append(c.order, k)
	}
	return k
}

// Observe implements Checker.
func (c *NoLostUpdates) Observe(op *checks.Op) {
	switch checks.Canon(op.Kind) {
	case checks.KindBlobGet:
		c.key(op).observeGet(op)
	case checks.KindBlobPut:
		c.key(op).observePut(op)
	}
}

func (k *nluKey) compact(op *checks.Op) checks.Cop { return k.ck.Keep(k.shared, op) }

// full rebuilds a kept operation, for an excerpt or a rule on a field
// few operations carry.
func (k *nluKey) full(c *checks.Cop) *checks.Op {
	if c == nil {
		return nil
	}
	o := k.ck.Op(k.shared, k.key, c)
	return &o
}

// str is a string of the key's table (a value, an ETag).
func (k *nluKey) Str(id int32) string { return k.ck.Strs.Str(id) }

func (k *nluKey) actor(id int) *nluActor {
	if id < 0 {
		return nil
	}
	for len(k.actors) <= id {
		k.actors = append(k.actors, nil)
	}
	a := k.actors[id]
	if a == nil {
		a = &nluActor{getStored: -1, lastLogical: -1}
		k.actors[id] = a
	}
	return a
}

func (k *nluKey) observeGet(op *checks.Op) {
	if op.Actor == checks.ActorFinal && (op.Outcome == checks.OK || checks.IsNotFound(op)) {
		k.finalOp, k.hasFinal = k.compact(op), true
	}
	if op.Outcome != checks.OK {
		return // a failed or timed-out read says nothing (CHECKERS.md, unknown outcomes, rule 2)
	}
	if op.Out.Status == 304 {
		return // a conditional read found the cached version current: no value to count (version-chain judges its ETag)
	}
	v, ok := checks.ParseCounter(op.Out.Value)
	if !ok {
		k.badRead(op, fmt.Sprintf("%q is not a counter value", checks.Trim(op.Out.Value)))
		return
	}
	if i, seen := k.byRead[v.Tag]; !seen {
		r := k.newRead(op)
		k.byRead[r.tag] = k.reads.Add(r)
	} else if k.reads.At(i).n != v.N {
		// The same tag with another counter: at most one of them is what
		// the writer stored. Keep the first read of each variant; Finish
		// compares every kept read with the writer.
		variant := v.Tag + "\x00" + strconv.FormatInt(v.N, 10)
		if k.variants == nil {
			k.variants = map[string]bool{}
		}
		if !k.variants[variant] {
			k.variants[variant] = true
			k.reads.Add(k.newRead(op))
		}
	}
	if a := k.actor(op.Actor); a != nil {
		a.lastGet, a.hasGet, a.getStored = *op, true, -1
	}
}

// newRead keeps a read; its tag is a substring of the kept, unpadded value.
func (k *nluKey) newRead(op *checks.Op) nluRead {
	c := k.compact(op)
	v, _ := checks.ParseCounter(k.ck.Value(c.OutVal))
	return nluRead{op: c, n: v.N, tag: v.Tag}
}

func (k *nluKey) badRead(op *checks.Op, why string) {
	k.badReadTotal++
	if len(k.badReads) < checks.MaxViolations {
		k.badReads = append(k.badReads, nluBadRead{op: k.compact(op), why: why})
	}
}

func (k *nluKey) observePut(op *checks.Op) {
	if _, ok := checks.ParseCounter(op.In.Value); !ok {
		k.malformed++
		return
	}
	// Parse the kept, unpadded value: the tag, a map key, must not pin the
	// padded original.
	kept := k.compact(op)
	v, _ := checks.ParseCounter(k.ck.Value(kept.InVal))
	w := nluWrite{n: v.N, logical: -1, baseGet: -1, read: -1, setup: op.Actor == checks.ActorSetup}
	if w.setup {
		k.hasSetup = true
		if op.Outcome == checks.OK {
			k.setupOK, k.setupN = true, v.N
		} else if !k.setupOK {
			k.setupN = v.N
		}
	} else if a := k.actor(op.Actor); a == nil {
		w.logical = k.logicals
		k.logicals++
	} else {
		if op.Attempt > 1 && a.lastLogical >= 0 && a.lastN == v.N {
			w.logical = a.lastLogical // a retry of the same increment
		} else {
			w.logical = k.logicals
			k.logicals++
		}
		a.lastLogical, a.lastN = w.logical, v.N
		if (op.Outcome == checks.OK || checks.MayHaveApplied(op)) && a.hasGet &&
			(op.In.IfMatch == "" || op.In.IfMatch == a.lastGet.Out.ETag) {
			if a.getStored < 0 {
				a.getStored = k.gets.Add(k.compact(&a.lastGet))
			}
			w.baseGet = a.getStored
		}
	}
	if _, dup := k.byTag[v.Tag]; dup {
		k.dupTags++
		if k.reused == nil {
			k.reused = map[string]bool{}
		}
		k.reused[v.Tag] = true
	} else {
		k.byTag[v.Tag] = k.writes.Len()
	}
	w.op = kept
	k.writes.Add(w)
}

// realBase reports whether an If-Match value names one version.
func realBase(ifMatch string) bool { return ifMatch != "" && ifMatch != "*" }

// nluTotals accumulates the summary over keys.
type nluTotals struct {
	keys, acked, unknown, resolved int
	unkApplied, unkNotApplied      int // unknown attempts resolved either way
	finals, withFinal              int
	finalSum                       int64
	noSetup, noFinal, unattributed int
	malformed, dupTags             int
}

// Groups implements KeyLocal.
func (c *NoLostUpdates) Groups(int) {}

// ExpectKey implements checks.KeySizer.
func (c *NoLostUpdates) ExpectKey(key string, ops int) {
	if c.expect == nil {
		c.expect = map[string]int{}
	}
	c.expect[key] = ops
}

// EndGroup implements KeyLocal: it judges the keys seen so far.
func (c *NoLostUpdates) EndGroup() {
	for _, k := range c.order {
		k.finish(&c.v, &c.t)
	}
	c.keys, c.order, c.expect = map[string]*nluKey{}, nil, nil
}

// Finish implements Checker.
func (c *NoLostUpdates) Finish() checks.Result {
	c.EndGroup()
	return c.t.Result(&c.v)
}

func (k *nluKey) Get(i int32) *checks.Op {
	if i < 0 {
		return nil
	}
	return k.full(k.gets.At(i))
}

func (k *nluKey) finish(v *checks.Violations, t *nluTotals) {
	if k.hasFinal {
		k.final = k.full(&k.finalOp)
	}
	t.keys++
	t.malformed += k.malformed
	t.dupTags += k.dupTags
	if !k.hasSetup {
		t.noSetup++
	}

	// Every read must be of a value some write attempt stored, and not of a
	// refused one. A read proves an unknown write took effect (rule 3).
	for ri := range k.reads.Len() {
		r := k.reads.At(ri)
		if k.reused[r.tag] {
			continue // which attempt stored it is ambiguous: the history is undecided
		}
		wi, ok := k.byTag[r.tag]
		if !ok {
			if k.final == nil {
				// Without a final read the run was cut short: the writer's
				// record may be missing, so this decides nothing.
				t.unattributed++
				continue
			}
			v.Add(k.key, fmt.Sprintf("read a value nobody wrote: %q", k.ck.Value(r.op.OutVal)), checks.Excerpt(k.full(&r.op))...)
			continue
		}
		w := k.writes.At(wi)
		switch {
		case w.n != r.n:
			v.Add(k.key, fmt.Sprintf("read a value nobody wrote: counter %d with the tag of #%d, which stored %d", r.n, w.op.Seq, w.n),
				checks.Excerpt(k.full(&r.op), k.full(&w.op))...)
		case w.op.Outcome != checks.OK && !w.op.MayHaveApplied(k.shared): // refused
			v.Add(k.key, fmt.Sprintf("a refused write took effect: #%d read the value of #%d, which was answered %s", r.op.Seq, w.op.Seq, Answer(k.full(&w.op))),
				checks.Excerpt(k.full(&r.op), k.full(&w.op), k.Get(w.baseGet))...)
		case w.read < 0:
			w.read = ri
		}
	}
	for _, b := range k.badReads {
		v.Add(k.key, "read a value nobody wrote: "+b.why, checks.Excerpt(k.full(&b.op))...)
	}
	v.Count("read a value nobody wrote", k.badReadTotal-len(k.badReads))

	// Classify the write attempts.
	for i := range k.writes.Len() {
		w := k.writes.At(i)
		switch {
		case w.op.Outcome == checks.OK:
			w.state = wAcked
		case !w.op.MayHaveApplied(k.shared):
			w.state = wRefused
		case w.read >= 0:
			w.state = wProven
		default:
			w.state = wMaybe
		}
	}

	// Forks: two applied writes on the same base ETag. The first applied
	// write of each base also "consumes" it (rule 4).
	var evidence [2]*nluWrite
	consumed := map[int32]int32{} // base ETag (a key string) -> the first applied write on it
	for i := range k.writes.Len() {
		w := k.writes.At(i)
		if w.setup || !w.state.applied() || !realBase(k.Str(w.op.IfMatch)) {
			continue
		}
		j, seen := consumed[w.op.IfMatch]
		if !seen {
			consumed[w.op.IfMatch] = i
			continue
		}
		first := k.writes.At(j)
		if evidence[0] == nil {
			evidence = [2]*nluWrite{first, w}
		}
		v.Add(k.key, fmt.Sprintf("fork: #%d and #%d both took effect with If-Match %s (%s and %s): one overwrote the other, a lost update",
			first.op.Seq, w.op.Seq, k.Str(w.op.IfMatch), first.state.word(), w.state.word()),
			checks.Excerpt(k.full(&first.op), k.full(&w.op), k.Get(first.baseGet), k.Get(w.baseGet))...)
	}
	for i := range k.writes.Len() {
		w := k.writes.At(i)
		if w.state == wMaybe && !w.setup && realBase(k.Str(w.op.IfMatch)) {
			if _, taken := consumed[w.op.IfMatch]; taken {
				w.state = wLost
			}
		}
	}

	// Logical increments: acknowledged if any attempt was, else proven, else maybe.
	best := make([]wstate, k.logicals)
	for i := range k.writes.Len() {
		if w := k.writes.At(i); !w.setup && w.state > best[w.logical] {
			best[w.logical] = w.state
		}
	}
	var acked, proven, maybe int64
	for _, s := range best {
		switch s {
		case wAcked:
			acked++
		case wProven:
			proven++
		case wMaybe:
			maybe++
		}
	}
	t.acked += int(acked)
	for i := range k.writes.Len() {
		w := k.writes.At(i)
		if w.setup || w.op.Outcome == checks.OK || !w.op.MayHaveApplied(k.shared) {
			continue
		}
		t.unknown++
		if w.state != wMaybe || best[w.logical] >= wProven {
			t.resolved++
		}
		switch {
		case w.state == wLost:
			t.unkNotApplied++
		case w.state.applied() || best[w.logical] >= wProven:
			// Its value was read, or the increment it carried was (a
			// retry of the same logical operation): it took effect.
			t.unkApplied++
		}
	}

	// Duplicate increments: two applied writes of different logical
	// operations stored the same counter.
	byN := make(map[int64]int32, acked+proven)
	var top *nluWrite
	for i := range k.writes.Len() {
		w := k.writes.At(i)
		if w.setup || !w.state.applied() {
			continue
		}
		if top == nil || w.n > top.n {
			top = w
		}
		j, seen := byN[w.n]
		if !seen {
			byN[w.n] = i
			continue
		}
		first := k.writes.At(j)
		if first.logical == w.logical || realBase(k.Str(w.op.IfMatch)) && w.op.IfMatch == first.op.IfMatch {
			continue // a retry of one increment, or a fork reported above
		}
		if evidence[0] == nil {
			evidence = [2]*nluWrite{first, w}
		}
		v.Add(k.key, fmt.Sprintf("duplicate increment: #%d and #%d both stored counter %d (%s and %s): one increment was lost",
			first.op.Seq, w.op.Seq, w.n, first.state.word(), w.state.word()),
			checks.Excerpt(k.full(&first.op), k.full(&w.op), k.Get(first.baseGet), k.Get(w.baseGet))...)
	}

	// The count, against the final quiet read.
	if k.final == nil {
		t.noFinal++
		return
	}
	initial := k.setupN
	ev := func(extra ...*checks.Op) []checks.Op {
		ops := extra
		if evidence[0] != nil {
			ops = append(ops, k.full(&evidence[0].op), k.full(&evidence[1].op))
		}
		return checks.Excerpt(ops...)
	}
	if checks.IsNotFound(k.final) {
		if acked+proven > 0 || k.setupOK {
			var last *checks.Op
			if top != nil {
				last = k.full(&top.op)
			}
			v.Add(k.key, fmt.Sprintf("the counter blob vanished: the final read found no blob after %d acknowledged increments", acked),
				ev(k.final, last)...)
		}
		return
	}
	fv, err := checks.ParseCounterValue(k.final.Out.Value)
	if err != nil {
		return // reported above as a read of a value nobody wrote
	}
	t.withFinal++
	t.finalSum += fv.N
	f := fv.N
	var writer *checks.Op
	if wi, ok := k.byTag[fv.Tag]; ok {
		writer = k.full(&k.writes.At(wi).op)
	}
	lower := initial + acked + proven
	switch {
	case f < lower:
		msg := fmt.Sprintf("lost update: %d increments acknowledged", acked)
		if proven > 0 {
			msg += fmt.Sprintf(" and %d more proven applied", proven)
		}
		if initial != 0 {
			msg += fmt.Sprintf(" over initial %d", initial)
		}
		msg += fmt.Sprintf(", final value %d", f)
		var high *checks.Op
		if top != nil && top.n > f {
			high = k.full(&top.op)
		}
		v.Add(k.key, msg, ev(k.final, writer, high)...)
	case top != nil && top.n > f:
		v.Add(k.key, fmt.Sprintf("lost update: final value %d is below counter %d, which #%d stored (%s)", f, top.n, top.op.Seq, top.state.word()),
			ev(k.final, writer, k.full(&top.op))...)
	}
	if upper := lower + maybe; f > upper {
		v.AddKind("more increments than writes", k.key, fmt.Sprintf("final value %d exceeds initial %d + %d acknowledged + %d proven + %d possible increments",
			f, initial, acked, proven, maybe), checks.Excerpt(k.final, writer)...)
	}
}

// word names a write's state in a message.
func (s wstate) word() string {
	switch s {
	case wAcked:
		return "acknowledged"
	case wProven:
		return "unknown outcome, read later"
	case wMaybe:
		return "unknown outcome"
	case wLost:
		return "unknown outcome, lost the race"
	}
	return "refused"
}

// answer renders an outcome with its status and code: "conflict 412 ConditionNotMet".
func Answer(op *checks.Op) string {
	s := op.Outcome.String()
	if op.Out.Status != 0 {
		s += fmt.Sprintf(" %d", op.Out.Status)
	}
	if op.Out.ErrorCode != "" {
		s += " " + op.Out.ErrorCode
	}
	return s
}

func (t *nluTotals) Result(v *checks.Violations) checks.Result {
	var b strings.Builder
	if t.keys == 0 {
		b.WriteString("no counter reads or writes in the history")
	} else {
		fmt.Fprintf(&b, "%s, %d acknowledged increments, %d unknown (%d resolved)", checks.Plural(t.keys, "key", "keys"), t.acked, t.unknown, t.resolved)
		switch {
		case t.withFinal == 0:
		case t.keys == 1:
			fmt.Fprintf(&b, ", final %d", t.finalSum)
		default:
			fmt.Fprintf(&b, ", finals sum to %d", t.finalSum)
		}
	}
	var undecided []string
	if t.keys == 0 {
		undecided = append(undecided, "nothing to check")
	}
	if t.noFinal > 0 {
		undecided = append(undecided, fmt.Sprintf("no final read of %s", checks.Plural(t.noFinal, "key", "keys")))
	}
	if t.unattributed > 0 {
		undecided = append(undecided, fmt.Sprintf("%s of values with no recorded write (history cut short?)", checks.Plural(t.unattributed, "read", "reads")))
	}
	if t.malformed > 0 {
		undecided = append(undecided, fmt.Sprintf("%s with no counter value", checks.Plural(t.malformed, "put", "puts")))
	}
	if t.dupTags > 0 {
		undecided = append(undecided, fmt.Sprintf("%s reusing a tag", checks.Plural(t.dupTags, "write attempt", "write attempts")))
	}
	switch {
	case v.Total > 0:
		fmt.Fprintf(&b, ": %s", checks.Plural(v.Total, "violation", "violations"))
	case len(undecided) > 0:
		b.WriteString(": undecided, " + strings.Join(undecided, ", "))
	default:
		b.WriteString(": no update lost")
	}
	if t.noSetup > 0 {
		fmt.Fprintf(&b, " (no setup write for %s: initial 0 assumed)", checks.Plural(t.noSetup, "key", "keys"))
	}
	r := v.Result(NoLostUpdatesName, b.String())
	if r.Verdict == checks.Pass && len(undecided) > 0 {
		r.Verdict = checks.Undecided
	}
	if t.unknown > 0 {
		r.Unknown = &checks.UnknownWrites{Applied: t.unkApplied, NotApplied: t.unkNotApplied, Open: t.unknown - t.unkApplied - t.unkNotApplied}
	}
	if t.withFinal == 0 {
		// Without a final read no increment can be counted.
		return r.WithDecided(0).Of(t.acked + t.unknown + t.keys)
	}
	return r.WithDecided(t.acked + t.resolved + t.withFinal).Of(t.acked + t.unknown + t.keys)
}
