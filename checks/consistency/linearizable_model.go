package consistency

import (
	"fmt"
	"math"
	"net/http"
	"sort"
	"strings"

	"github.com/anishathalye/porcupine"
	"github.com/stormcheck/stormcheck/checks"
)

// The porcupine model of one blob, and the pre-pass that shapes a key's
// history for it.
//
// A state is (exists, value, ETag). An operation whose outcome is unknown
// may have applied with an ETag nobody saw: the state then holds "the ETag
// of write #X, not yet known" and the first operation that needs it to be a
// given ETag binds it, if that ETag can be the one #X produced (see bindOK).
// ETags are assumed unique per version, as the service makes them.

// linRelevant reports whether the linearizable checker reads op's kind.
func linRelevant(kind string) bool {
	switch checks.Canon(kind) {
	case checks.KindBlobGet, checks.KindBlobPut, checks.KindBlobCreate, checks.KindBlobCommit, checks.KindBlobSetMeta:
		return true
	}
	return false
}

type linKind uint8

const (
	lRead    linKind = iota // a 200 read: value and ETag
	lRead304                // a 304 to If-None-Match E: E was current
	lWrite                  // put, create, commit: a new value and ETag
	lMeta                   // set metadata: a new ETag, same value
)

type linRes uint8

const (
	lOK      linRes = iota // acknowledged
	lRefused               // refused by its ETag condition (412, 409 BlobAlreadyExists)
	lUnknown               // may or may not have applied
	lApplied               // unknown outcome, but its value was read: it applied
	lMaybe                 // acknowledged after a prefix's cut: may or may not have applied by then
)

// Condition values besides an ETag id.
const (
	linNone int32 = -1 // no condition
	linAny  int32 = -2 // "*"
)

// linOp is one operation as the model sees it; porcupine carries a pointer
// to it as the operation's input.
type linOp struct {
	op                   *checks.Op
	kind                 linKind
	res                  linRes
	id                   int32 // index in linHist.ops, which is porcupine's id
	client               int
	val                  int32 // value id written (lWrite) or read (lRead); -1 none
	etag                 int32 // ETag id returned, or a 304's; -1 unknown
	ifMatch, ifNoneMatch int32 // ETag id, linAny or linNone
	call, ret            int64
	// onlyFor412: an unknown write never read, kept only because a refusal
	// may need it (step 5 of linPrepare); immaterial without refusals.
	onlyFor412 bool
}

// linState is the model's state. A zero-value-free struct of integers, so
// porcupine's default == equality works and hashing is cheap.
type linState struct {
	exists bool
	val    int32 // value id; -1 unknown
	etag   int32 // ETag id; -1 while unbound
	unb    int32 // id of the unknown operation whose ETag is still unbound; -1
	done   int32 // operations with a finite return linearized so far
}

// linHist is one key's history, prepared for porcupine.
type linHist struct {
	key     string
	ops     []*linOp
	init    linState
	values  []string // value id -> value (shortened)
	etags   []string // ETag id -> ETag
	ackBy   []int32  // ETag id -> the acknowledged op that returned it; -1 none, -2 several
	readVal []int32  // ETag id -> the value reads returned with it; -1 never, -2 several
	clients []string // porcupine client id -> who
	stats   linStats
	// noopAnywhere lets an unknown write be a no-op at any place, as in the
	// plain recipe; the tests compare it with the checker's model.
	noopAnywhere bool
}

// linStats counts what the pre-pass did.
type linStats struct {
	ops, actors       int // relevant ops recorded, workload actors
	dropped           int // reads and writes that say nothing (failed, throttled, refused by something else)
	stripped          int // 412s/409s the pre-pass verified
	resolved          int // unknown writes whose value was read later
	unknownDropped    int // unknown writes shown not to matter
	unknownKept       int // unknown writes left for porcupine
	foreign, noWriter int // reads of values no write stored (without a setup: the initial version)
}

// bindOK reports whether the unknown operation that made state s (its ETag
// unbound) may have produced ETag e: ETags are unique per version, so no
// acknowledged operation returned e, and reads saw e only with the content
// of s. (Set-metadata calls with unknown outcomes on the same content could
// still be given each other's ETags: permissive, never a false violation.)
func (h *linHist) bindOK(s linState, e int32) bool {
	if e < 0 || h.ackBy[e] != -1 {
		return false
	}
	rv := h.readVal[e]
	return rv == -1 || rv == s.val
}

// etagIs: can the current ETag be e? An unbound ETag binds to it.
func (h *linHist) etagIs(s linState, e int32) (bool, linState) {
	if s.unb < 0 {
		return s.etag == e, s
	}
	if !h.bindOK(s, e) {
		return false, s
	}
	s.etag, s.unb = e, -1
	return true, s
}

// etagNot: can the current ETag differ from e? An unbound ETag may (this
// does not remember the exclusion: permissive, never a false violation).
func (h *linHist) etagNot(s linState, e int32) bool {
	return s.unb >= 0 || s.etag != e
}

// holds: can o's conditions be true in s, and the state with any binding.
func (h *linHist) holds(s linState, o *linOp) (bool, linState) {
	if o.kind == lMeta && !s.exists {
		return false, s
	}
	switch o.ifMatch {
	case linNone:
	case linAny:
		if !s.exists {
			return false, s
		}
	default:
		if !s.exists {
			return false, s
		}
		var ok bool
		if ok, s = h.etagIs(s, o.ifMatch); !ok {
			return false, s
		}
	}
	switch o.ifNoneMatch {
	case linNone:
	case linAny:
		if s.exists {
			return false, s
		}
	default:
		if s.exists && !h.etagNot(s, o.ifNoneMatch) {
			return false, s
		}
	}
	return true, s
}

// fails: can o's conditions be false in s (a refusal), and the state.
func (h *linHist) fails(s linState, o *linOp) (bool, linState) {
	switch {
	case o.ifMatch == linAny && !s.exists:
		return true, s
	case o.ifMatch >= 0 && (!s.exists || h.etagNot(s, o.ifMatch)):
		return true, s
	case o.ifNoneMatch == linAny && s.exists:
		return true, s
	case o.ifNoneMatch >= 0 && s.exists:
		return h.etagIs(s, o.ifNoneMatch)
	}
	return false, s
}

func (h *linHist) apply(s linState, o *linOp, etag int32) linState {
	ns := linState{exists: true, val: o.val, etag: etag, unb: -1}
	if o.kind == lMeta {
		ns.val = s.val
	}
	if etag < 0 {
		ns.unb = o.id
	}
	return ns
}

// step is the sequential specification of one blob; total is how many
// operations with a finite return the history holds.
func (h *linHist) step(s linState, o *linOp, total int32) (bool, linState) {
	ok, ns := h.step1(s, o, total)
	if ok {
		ns.done = s.done
		if o.ret != linInf {
			ns.done++
		}
	}
	return ok, ns
}

func (h *linHist) step1(s linState, o *linOp, total int32) (bool, linState) {
	switch o.kind {
	case lRead:
		if !s.exists || s.val != o.val {
			return false, s
		}
		if o.etag < 0 {
			return true, s
		}
		return h.etagIs(s, o.etag)
	case lRead304:
		if !s.exists {
			return false, s
		}
		return h.etagIs(s, o.etag)
	}
	switch o.res {
	case lRefused:
		return h.fails(s, o)
	case lOK:
		ok, ns := h.holds(s, o)
		if !ok {
			return false, s
		}
		return true, h.apply(ns, o, o.etag)
	case lApplied:
		ok, ns := h.holds(s, o)
		if !ok {
			return false, s
		}
		return true, h.apply(ns, o, -1)
	}
	// Unknown, or maybe applied: applied wherever it can be. "Not applied"
	// is the same operation linearized last, which its infinite return
	// time allows: it may be a no-op only once every operation with a
	// finite return is placed (anywhere earlier it would be the same
	// order, and porcupine would try each place).
	ok, ns := h.holds(s, o)
	if !ok {
		return h.noopAnywhere || s.done == total, s
	}
	if o.res == lMaybe {
		return true, h.apply(ns, o, o.etag)
	}
	return true, h.apply(ns, o, -1)
}

func linHash(s linState) uint64 {
	h := uint64(s.val)*0x9e3779b97f4a7c15 ^ uint64(s.etag)*0xbf58476d1ce4e5b9 ^ uint64(s.unb)*0x94d049bb133111eb ^
		uint64(s.done)*0xd6e8feb86659fd93
	if s.exists {
		h ^= 1
	}
	return h
}

// linTotal is how many operations with a finite return a history of ops
// starting in init has linearized when it is done.
func linTotal(init linState, ops []*linOp) int32 {
	n := init.done
	for _, o := range ops {
		if o.ret != linInf {
			n++
		}
	}
	return n
}

// model returns the porcupine model of the key's operations ops, starting
// from init.
func (h *linHist) model(init linState, ops []*linOp) porcupine.Model {
	total := linTotal(init, ops)
	return porcupine.Model{
		Init: func() any { return init },
		Step: func(state, input, _ any) (bool, any) {
			return h.step(state.(linState), input.(*linOp), total)
		},
		Hash:                      func(state any) uint64 { return linHash(state.(linState)) },
		DescribeOperation:         func(input, _ any) string { return h.describeOp(input.(*linOp)) },
		DescribeState:             func(state any) string { return h.describeState(state.(linState)) },
		DescribeOperationMetadata: func(m any) string { s, _ := m.(string); return s },
	}
}

// writesOnly returns the operations that change the state: without the
// reads and refusals, which only constrain where the others go, nor the
// unknown writes only a refusal could need (step 5 of linPrepare).
func writesOnly(ops []*linOp) []*linOp {
	var w []*linOp
	for _, o := range ops {
		if o.kind >= lWrite && o.res != lRefused && !o.onlyFor412 {
			w = append(w, o)
		}
	}
	return w
}

// prefix returns the history up to time t: the operations that returned
// by t, and the writes still in flight at t as "may have applied" (their
// return time +inf); reads and refusals in flight at t are left out. Any
// linearization of the whole history gives one of the prefix (operations
// whose linearization point is after t move to the end), so a prefix that
// is not linearizable shows that the history is not.
func (h *linHist) prefix(t int64) []*linOp { return linCut(h.ops, t) }

// linCut is prefix on any list of operations.
func linCut(ops []*linOp, t int64) []*linOp {
	var p []*linOp
	for _, o := range ops {
		switch {
		case o.ret <= t:
			p = append(p, o)
		case o.call <= t && o.kind >= lWrite && o.res != lRefused:
			c := *o
			c.ret = linInf
			switch o.res {
			case lOK:
				c.res = lMaybe
			case lApplied:
				c.res = lUnknown
			}
			p = append(p, &c)
		}
	}
	return p
}

// operations renders ops for porcupine; with described, each carries its
// op's description for the visualization (a verdict's verbose check only:
// describing every op of every key cost a fifth of a passing check).
func (h *linHist) operations(ops []*linOp, described bool) []porcupine.Operation {
	out := make([]porcupine.Operation, len(ops))
	for i, o := range ops {
		out[i] = porcupine.Operation{ClientId: o.client, Input: o, Call: o.call, Return: o.ret}
		if described {
			out[i].Metadata = o.op.String()
		}
	}
	return out
}

func (h *linHist) Value(v int32) string {
	if v < 0 {
		return "?"
	}
	return fmt.Sprintf("%q", checks.Trim(h.values[v]))
}

func (h *linHist) etag(e int32) string {
	switch e {
	case linAny:
		return "*"
	case linNone:
		return "?"
	}
	return h.etags[e]
}

// describeState renders a state: absent, or the value and its ETag.
func (h *linHist) describeState(s linState) string {
	if !s.exists {
		return "absent"
	}
	if s.unb >= 0 {
		return fmt.Sprintf("%s etag=(unknown, from #%d)", h.Value(s.val), h.ops[s.unb].op.Seq)
	}
	return fmt.Sprintf("%s etag=%s", h.Value(s.val), h.etag(s.etag))
}

// describeOp renders an operation in one short line.
func (h *linHist) describeOp(o *linOp) string {
	var b strings.Builder
	fmt.Fprintf(&b, "#%d ", o.op.Seq)
	switch o.kind {
	case lRead:
		fmt.Fprintf(&b, "get -> %s etag=%s", h.Value(o.val), h.etag(o.etag))
		return b.String()
	case lRead304:
		fmt.Fprintf(&b, "get if-none-match=%s -> 304", h.etag(o.etag))
		return b.String()
	case lMeta:
		b.WriteString("setmeta")
	default:
		b.WriteString(strings.TrimPrefix(o.op.Kind, "blob."))
	}
	if o.ifMatch != linNone {
		b.WriteString(" if-match=" + h.etag(o.ifMatch))
	}
	if o.ifNoneMatch != linNone {
		b.WriteString(" if-none-match=" + h.etag(o.ifNoneMatch))
	}
	if o.kind == lWrite {
		b.WriteString(" " + h.Value(o.val))
	}
	switch o.res {
	case lOK:
		b.WriteString(" -> ok etag=" + h.etag(o.etag))
	case lRefused:
		fmt.Fprintf(&b, " -> %d", o.op.Out.Status)
	case lUnknown:
		b.WriteString(" -> unknown")
	case lApplied:
		b.WriteString(" -> unknown, applied (read later)")
	case lMaybe:
		b.WriteString(" -> ok etag=" + h.etag(o.etag) + " after the cut")
	}
	return b.String()
}

// linInterner gives dense ids to strings.
type linInterner struct {
	ids   map[string]int32
	names []string
}

func (t *linInterner) id(s string) int32 {
	if i, ok := t.ids[s]; ok {
		return i
	}
	if t.ids == nil {
		t.ids = map[string]int32{}
	}
	i := int32(len(t.names))
	t.ids[s] = i
	t.names = append(t.names, s)
	return i
}

func (t *linInterner) lookup(s string) (int32, bool) {
	i, ok := t.ids[s]
	return i, ok
}

const linInf = math.MaxInt64

// etagRefusal reports whether a conflict answer is the refusal of an ETag
// condition (412 ConditionNotMet, 409 BlobAlreadyExists; for table entities
// 412 UpdateConditionNotSatisfied, 409 EntityAlreadyExists) rather than of a
// lease or anything else the model does not know.
func etagRefusal(op *checks.Op) bool {
	if op.In.IfMatch == "" && op.In.IfNoneMatch == "" {
		return false
	}
	if strings.Contains(op.Out.ErrorCode, "Lease") {
		return false
	}
	switch op.Out.ErrorCode {
	case "", "ConditionNotMet", "BlobAlreadyExists", "TargetConditionNotMet", "UpdateConditionNotSatisfied", "EntityAlreadyExists":
		return op.Out.Status == 0 || op.Out.Status == http.StatusPreconditionFailed || op.Out.Status == http.StatusConflict
	}
	return false
}

func linCond(t *linInterner, s string) int32 {
	switch s {
	case "":
		return linNone
	case "*":
		return linAny
	}
	return t.id(s)
}

// prepare turns a key's recorded operations into the history porcupine
// checks, applying the pre-pass of CHECKERS.md where it is sound:
//
//  1. reads that failed, timed out or were throttled are dropped, and so are
//     writes that certainly did not apply (throttled, errors, refusals by
//     a lease); 5xx answers other than 503 are unknown;
//  2. an unknown write whose value was read later did apply, at the latest
//     when the first such read returned (its return time becomes that);
//  3. an unknown If-Match write whose base ETag another applied write
//     consumed did not apply: dropped;
//  4. 412s (and 409 BlobAlreadyExists) that the history explains for
//     certain are verified and stripped: the named version was created
//     after the request was sent, or certainly replaced before its answer
//     came back (the blob certainly existed, for If-None-Match: *);
//  5. an unknown write never read, when no remaining refusal returned after
//     it was sent, cannot change the verdict: dropped.
//
// Unknown operations left keep return time +inf.
func linPrepare(key string, recorded []checks.Op, actors int) *linHist {
	return linPrepareWith(key, recorded, actors, true)
}

// linPrepareWith does only step 1 when prePass is false, and then lets
// unknown writes be no-ops anywhere: the plain recipe the tests compare the
// checker with.
func linPrepareWith(key string, recorded []checks.Op, actors int, prePass bool) *linHist {
	var vals, tags linInterner
	h := &linHist{key: key, init: linState{val: -1, etag: -1, unb: -1}, noopAnywhere: !prePass}
	h.stats.ops, h.stats.actors = len(recorded), actors

	// Clients, dense and in a readable order: setup, actors, final.
	var ids []int
	seen := map[int]bool{}
	for i := range recorded {
		if a := recorded[i].Actor; !seen[a] {
			seen[a] = true
			ids = append(ids, a)
		}
	}
	sort.Slice(ids, func(i, j int) bool {
		rank := func(a int) int {
			switch a {
			case checks.ActorSetup:
				return math.MinInt
			case checks.ActorFinal:
				return math.MaxInt
			}
			return a
		}
		return rank(ids[i]) < rank(ids[j])
	})
	client := make(map[int]int, len(ids))
	for i, a := range ids {
		client[a] = i
		switch a {
		case checks.ActorSetup:
			h.clients = append(h.clients, "setup")
		case checks.ActorFinal:
			h.clients = append(h.clients, "final")
		default:
			h.clients = append(h.clients, fmt.Sprintf("actor %d", a))
		}
	}

	// 1. Classify.
	written := map[int32]int{} // value id -> write attempts that stored it (any outcome)
	hasSetup := false
	var ops []*linOp
	for i := range recorded {
		op := &recorded[i]
		o := &linOp{op: op, client: client[op.Actor], val: -1, etag: -1, ifMatch: linNone, ifNoneMatch: linNone,
			call: op.Call, ret: op.Return}
		if checks.Canon(op.Kind) == checks.KindBlobGet {
			switch {
			case op.Outcome != checks.OK:
				h.stats.dropped++
				continue
			case op.Out.Status == http.StatusNotModified:
				if op.In.IfNoneMatch == "" || op.In.IfNoneMatch == "*" {
					h.stats.dropped++
					continue
				}
				o.kind, o.etag = lRead304, tags.id(op.In.IfNoneMatch)
			default:
				o.kind, o.val = lRead, vals.id(op.Out.Value)
				if op.Out.ETag != "" {
					o.etag = tags.id(op.Out.ETag)
				}
			}
			ops = append(ops, o)
			continue
		}
		o.kind = lWrite
		if checks.Canon(op.Kind) == checks.KindBlobSetMeta {
			o.kind = lMeta
		} else {
			o.val = vals.id(op.In.Value)
			written[o.val]++
			if op.Actor == checks.ActorSetup {
				hasSetup = true
			}
		}
		o.ifMatch, o.ifNoneMatch = linCond(&tags, op.In.IfMatch), linCond(&tags, op.In.IfNoneMatch)
		switch {
		case op.Outcome == checks.OK:
			o.res = lOK
			if op.Out.ETag != "" {
				o.etag = tags.id(op.Out.ETag)
			}
		case op.Outcome == checks.Conflict && etagRefusal(op):
			o.res = lRefused
		case checks.MayHaveApplied(op):
			o.res, o.ret = lUnknown, linInf
		default:
			h.stats.dropped++
			continue
		}
		ops = append(ops, o)
	}

	n := len(tags.names)
	h.ackBy, h.readVal = make([]int32, n), make([]int32, n)
	for i := range n {
		h.ackBy[i], h.readVal[i] = -1, -1
	}
	firstRead := map[int32]int64{} // value id -> earliest return of a read of it
	for i, o := range ops {
		switch {
		case o.kind == lRead:
			if o.etag >= 0 {
				switch rv := h.readVal[o.etag]; {
				case rv == -1:
					h.readVal[o.etag] = o.val
				case rv != o.val:
					h.readVal[o.etag] = -2
				}
			}
			if t, ok := firstRead[o.val]; !ok || o.ret < t {
				firstRead[o.val] = o.ret
			}
		case o.kind >= lWrite && o.res == lOK && o.etag >= 0:
			if h.ackBy[o.etag] == -1 {
				h.ackBy[o.etag] = int32(i)
			} else {
				h.ackBy[o.etag] = -2
			}
		}
	}

	// The initial version: absent, unless there is no setup and reads saw
	// exactly one value no write stored (the blob existed before the run).
	if !hasSetup {
		var first *linOp
		foreign := map[int32]bool{}
		for _, o := range ops {
			if o.kind == lRead && written[o.val] == 0 {
				foreign[o.val] = true
				if first == nil || o.ret < first.ret {
					first = o
				}
			}
		}
		if len(foreign) == 1 {
			h.init = linState{exists: true, val: first.val, etag: first.etag, unb: -1}
			h.stats.foreign = 1
		}
	}

	drop := make([]bool, len(ops))
	if prePass {
		h.prePass(ops, drop, written, firstRead)
	}
	for i, o := range ops {
		if drop[i] {
			continue
		}
		if o.kind == lRead && written[o.val] == 0 && h.stats.foreign == 0 {
			h.stats.noWriter++
		}
		if o.res == lUnknown {
			h.stats.unknownKept++
		}
		o.id = int32(len(h.ops))
		h.ops = append(h.ops, o)
	}
	h.values, h.etags = vals.names, tags.names
	for i, v := range h.values {
		h.values[i] = checks.ShortValue(v)
	}
	return h
}

// prePass applies steps 2 to 5 of linPrepare: it marks in drop what
// porcupine need not see and adjusts the unknown writes a read resolved.
func (h *linHist) prePass(ops []*linOp, drop []bool, written map[int32]int, firstRead map[int32]int64) {
	n := len(h.ackBy)
	// 2. Unknown writes whose value was read applied.
	for _, o := range ops {
		if o.kind != lWrite || o.res != lUnknown {
			continue
		}
		if t, ok := firstRead[o.val]; ok {
			o.res = lApplied
			h.stats.resolved++
			if t >= o.call {
				o.ret = t
			}
		}
	}

	// 3. Unknown If-Match writes whose base an applied write consumed.
	consumed := make([]int64, n) // ETag id -> earliest return of an applied write on it (+inf: none)
	for i := range consumed {
		consumed[i] = linInf
	}
	var applied []*linOp // applied writes, for "replaced after" below
	existsBy := int64(linInf)
	for _, o := range ops {
		if o.kind == lRead || o.kind == lRead304 || o.res == lOK || o.res == lApplied {
			existsBy = min(existsBy, o.ret)
		}
		if (o.kind == lWrite || o.kind == lMeta) && (o.res == lOK || o.res == lApplied) {
			applied = append(applied, o)
			if o.ifMatch >= 0 {
				consumed[o.ifMatch] = min(consumed[o.ifMatch], o.ret)
			}
		}
	}
	// Rules 3 and 5 rely on every ETag a request names having come from an
	// answer (a read, an acknowledged write): an ETag from nowhere could be
	// the unseen one of an unknown write. If-None-Match on an ETag in a
	// write is a condition only an unknown write may explain, too.
	orphan := false
	named := func(e int32) bool { return e >= 0 && h.ackBy[e] == -1 && h.readVal[e] == -1 }
	for _, o := range ops {
		if named(o.ifMatch) || named(o.ifNoneMatch) || o.kind == lRead304 && named(o.etag) ||
			o.kind != lRead && o.kind != lRead304 && o.ifNoneMatch >= 0 {
			orphan = true
			break
		}
	}
	for i, o := range ops {
		if !orphan && o.res == lUnknown && o.ifMatch >= 0 && consumed[o.ifMatch] != linInf && o.kind == lWrite {
			drop[i] = true
			h.stats.unknownDropped++
		}
	}

	// 4. Verify and strip refusals.
	sort.Slice(applied, func(i, j int) bool { return applied[i].call < applied[j].call })
	sufMin := make([]int64, len(applied)+1) // min return of applied[i:]
	sufMin[len(applied)] = linInf
	for i := len(applied) - 1; i >= 0; i-- {
		sufMin[i] = min(sufMin[i+1], applied[i].ret)
	}
	replacedAfter := func(t int64) int64 { // earliest return of an applied write sent after t
		return sufMin[sort.Search(len(applied), func(i int) bool { return applied[i].call > t })]
	}
	single := func(e int32) bool { // only one version can have ETag e
		if a := h.ackBy[e]; a >= 0 {
			return true
		}
		return h.ackBy[e] == -1 && h.readVal[e] >= 0 && written[h.readVal[e]] == 1
	}
	for i, o := range ops {
		if o.res != lRefused {
			continue
		}
		switch {
		case o.ifNoneMatch == linAny && o.ifMatch == linNone:
			drop[i] = existsBy <= o.ret
		case o.ifMatch >= 0 && o.ifNoneMatch == linNone:
			e := o.ifMatch
			if a := h.ackBy[e]; a >= 0 && (ops[a].call > o.call || replacedAfter(ops[a].ret) <= o.ret) {
				drop[i] = true
			} else if single(e) && consumed[e] <= o.ret {
				drop[i] = true
			}
		}
		if drop[i] {
			h.stats.stripped++
		}
	}

	// 5. Unknown writes never read, with no refusal left to explain.
	lastRefusal := int64(math.MinInt64)
	for i, o := range ops {
		if o.res == lRefused && !drop[i] {
			lastRefusal = max(lastRefusal, o.ret)
		}
	}
	if !orphan {
		for i, o := range ops {
			if o.kind == lWrite && o.res == lUnknown && !drop[i] && existsBy <= o.call {
				if lastRefusal < o.call {
					drop[i] = true
					h.stats.unknownDropped++
				} else {
					o.onlyFor412 = true
				}
			}
		}
	}
}
