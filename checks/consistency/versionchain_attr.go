package consistency

import (
	"fmt"
	"net/http"

	"github.com/stormcheck/stormcheck/checks"
)

// vcVer is one version of a blob: the write that installed it and the
// cluster of operations that saw it. Version 0 is the initial "no blob".
type vcVer struct {
	w        int32 // the write's record; -1 for version 0
	etag     int32 // -1 while unknown
	content  int32 // value id; -1 for a set-metadata version (see claim) and for version 0
	claim    int32 // a set-metadata version's content as its reads showed it, -1
	base     int32 // the version its If-Match named and that it directly follows, -1
	next     int32 // the version that directly follows it, -1
	chain    int32 // -1 until placed; -2 in a loop
	pos      int32 // position in its chain
	d, r     int64 // cluster deadline (earliest return) and release (latest call)
	dOp, rOp int32 // the records realizing d and r, -1
	reads    int32
	forked   bool // two applied writes named it
}

// vcRun decides one key.
type vcRun struct {
	c         *VersionChain
	k         *vcKey
	v         *checks.Violations
	vers      []vcVer
	verOfETag []int32 // ETag id -> version, -1
	verOfRec  []int32 // write record -> its version, -1
	finalVer  int32   // the version the last final read saw, -1
	finalRec  int32
	late      map[int32]bool // records already blamed as the late op of a stale read or cycle
	chains    []vcChain
	cands     *vcCands

	maybe, maybeSetMeta, unproven int
	reads, refusals               int
	unattributed, ambiguous       int
}

func newVCRun(c *VersionChain, k *vcKey, v *checks.Violations) *vcRun {
	n := k.recs.Len()
	a := &vcRun{c: c, k: k, v: v, finalVer: -1, finalRec: -1, late: map[int32]bool{},
		verOfETag: make([]int32, k.etagStr.Len()), verOfRec: make([]int32, n)}
	for i := range a.verOfETag {
		a.verOfETag[i] = -1
	}
	for i := range a.verOfRec {
		a.verOfRec[i] = -1
	}
	a.vers = make([]vcVer, 0, k.versions+1)
	a.vers = append(a.vers, vcVer{w: -1, etag: -1, content: -1, claim: -1, base: -1, next: -1, chain: -1,
		d: vcInf, r: vcNegInf, dOp: -1, rOp: -1})
	return a
}

func (a *vcRun) rec(i int32) *vcRec { return a.k.recs.At(i) }

func (a *vcRun) Op(i int32) *checks.Op {
	if i < 0 {
		return nil
	}
	return a.c.Op(a.k, i)
}

// full reports whether further violations are only counted (by kind):
// their evidence need not be built.
func (a *vcRun) full() bool { return len(a.v.List) >= checks.MaxViolations }

// add reports a violation; ops are record indexes in order of importance
// (-1 entries are skipped).
func (a *vcRun) Add(msg string, recs ...int32) {
	if a.full() {
		a.v.Count(checks.KindOf(msg), 1)
		return
	}
	ops := make([]*checks.Op, 0, len(recs))
	for _, i := range recs {
		ops = append(ops, a.Op(i))
	}
	a.v.Add(a.k.key, msg, checks.Excerpt(ops...)...)
}

func (a *vcRun) run() {
	a.versions()
	a.attribute()
	a.link()
	a.order()
	a.refused()
}

// versions makes a version of every acknowledged write.
func (a *vcRun) versions() {
	for i := range a.k.recs.Len() {
		r := a.rec(i)
		if r.kind == vcGet {
			continue
		}
		switch {
		case r.outcome == checks.OK:
			a.newVersion(i, r.etag)
		case a.MayHaveApplied(r):
			a.maybe++
			if r.kind == vcSetMeta {
				a.maybeSetMeta++
			}
		}
	}
}

func (a *vcRun) MayHaveApplied(r *vcRec) bool {
	o := checks.Op{Outcome: r.outcome, Out: checks.Output{Status: int(r.status), ErrorCode: a.c.strv[r.errCode]}}
	return checks.MayHaveApplied(&o)
}

func (a *vcRun) newVersion(w int32, etag int32) int32 {
	r := a.rec(w)
	x := vcVer{w: w, etag: -1, content: -1, claim: -1, base: -1, next: -1, chain: -1, d: vcInf, dOp: -1, r: r.call, rOp: w}
	if r.kind == vcWrite {
		x.content = r.value
	}
	if r.outcome == checks.OK {
		x.d, x.dOp = r.ret, w
	}
	id := int32(len(a.vers))
	a.vers = append(a.vers, x)
	a.verOfRec[w] = id
	if etag >= 0 {
		a.setETag(id, etag)
	}
	return id
}

func (a *vcRun) setETag(x, etag int32) {
	if o := a.verOfETag[etag]; o >= 0 {
		w1, w2 := a.vers[o].w, a.vers[x].w
		a.Add(fmt.Sprintf("ETag reused: #%d and #%d both installed a version with ETag %s; every change must get a new ETag",
			a.rec(w1).seq, a.rec(w2).seq, a.k.etagName(etag)), w1, w2)
		return
	}
	a.verOfETag[etag] = x
	a.vers[x].etag = etag
}

// proveWrite returns the version of write w, which a read showed took
// effect (CHECKERS.md, unknown outcomes, rule 3).
func (a *vcRun) proveWrite(w int32) int32 {
	if x := a.verOfRec[w]; x >= 0 {
		return x
	}
	return a.newVersion(w, -1)
}

func (a *vcRun) join(x, ri int32) {
	r := a.rec(ri)
	X := &a.vers[x]
	if r.ret < X.d {
		X.d, X.dOp = r.ret, ri
	}
	if r.call > X.r {
		X.r, X.rOp = r.call, ri
	}
	X.reads++
	a.reads++
	if r.actor == checks.ActorFinal {
		a.finalVer, a.finalRec = x, ri
	}
}

// content is a version's content (value id), following set-metadata
// versions to the version they copied; -1 when unknown.
func (a *vcRun) content(x int32) int32 {
	claim := int32(-1)
	for range len(a.vers) { // bounded: If-Match bases may loop
		X := &a.vers[x]
		if X.content >= 0 {
			return X.content
		}
		if X.w < 0 {
			break
		}
		if claim < 0 {
			claim = X.claim
		}
		w := a.rec(X.w)
		if w.kind != vcSetMeta || w.ifMatch < 0 {
			break
		}
		b := a.verOfETag[w.ifMatch]
		if b < 0 || b == x {
			break
		}
		x = b
	}
	return claim
}

// attribute joins every read to the version it saw.
func (a *vcRun) attribute() {
	var notModified []int32
	for i := range a.k.recs.Len() {
		r := a.rec(i)
		if r.kind != vcGet {
			continue
		}
		switch {
		case r.outcome == checks.Conflict: // a refused If-Match read: judged with the other refusals
		case r.outcome != checks.OK: // 404
			a.join(0, i)
		case r.status == http.StatusNotModified:
			// Only If-None-Match alone says which version is current; a
			// date condition may have answered instead.
			if r.ifNone >= 0 && (r.rare < 0 || a.k.rare[r.rare].ifModifiedSince == "") {
				notModified = append(notModified, i)
			}
		default:
			a.readValue(i, r)
		}
	}
	for i := range a.k.recs.Len() {
		if r := a.rec(i); r.kind != vcGet && r.outcome != checks.OK && a.verOfRec[i] < 0 && a.MayHaveApplied(r) {
			a.unproven++
		}
	}
	for _, i := range notModified {
		a.readNotModified(i, a.rec(i))
	}
}

func (a *vcRun) readValue(ri int32, r *vcRec) {
	k := a.k
	E, V := r.etag, r.value
	if r.ifNone >= 0 && E == r.ifNone {
		a.Add(fmt.Sprintf("conditional read: #%d sent If-None-Match %s and got 200 with that very ETag", r.seq, k.etagName(E)), ri)
		return
	}
	if r.ifMatch >= 0 && E >= 0 && E != r.ifMatch {
		a.Add(fmt.Sprintf("conditional read: #%d sent If-Match %s and got 200 with ETag %s", r.seq, k.etagName(r.ifMatch), k.etagName(E)), ri)
		return
	}
	wi := *k.writerOf.At(V)
	switch {
	case wi == vcDup:
		return // which attempt stored it is ambiguous: the key is undecided
	case wi < 0:
		if !k.final {
			// Without a final read the run was cut short: the writer's
			// record may be missing.
			a.unattributed++
			return
		}
		a.Add(fmt.Sprintf("phantom read: #%d read %q, a value no write attempt stored", r.seq, checks.Trim(k.valName(V))), ri)
		return
	}
	w := a.rec(wi)
	if !(w.outcome == checks.OK || a.MayHaveApplied(w)) {
		a.Add(fmt.Sprintf("a refused write took effect: #%d read the value of #%d, which was answered %s",
			r.seq, w.seq, Answer(a.Op(wi))), ri, wi)
		return
	}
	if E < 0 {
		a.join(a.proveWrite(wi), ri)
		return
	}
	if x := a.verOfETag[E]; x >= 0 {
		switch c := a.content(x); {
		case x == 0:
		case c < 0:
			a.vers[x].claim = V // a set-metadata version: its reads say what it holds
		case c != V:
			a.Add(fmt.Sprintf("ETag/value mismatch: #%d read %q with ETag %s, but that is the version of #%d, which holds %q",
				r.seq, checks.Trim(k.valName(V)), k.etagName(E), a.rec(a.vers[x].w).seq, checks.Trim(k.valName(c))), ri, a.vers[x].w, wi)
			return
		}
		if a.vers[x].w != wi {
			a.proveWrite(wi) // a set-metadata version copied this content: its write took effect
		}
		a.join(x, ri)
		return
	}
	x := a.proveWrite(wi)
	if a.vers[x].etag < 0 {
		a.setETag(x, E)
		a.join(x, ri)
		return
	}
	if a.maybeSetMeta > 0 {
		a.ambiguous++ // an unknown set-metadata may have given this content a new ETag
		return
	}
	a.Add(fmt.Sprintf("ETag/value mismatch: #%d read %q with ETag %s, but #%d installed that value as %s",
		r.seq, checks.Trim(k.valName(V)), k.etagName(E), w.seq, k.etagName(a.vers[x].etag)), ri, wi)
}

// readNotModified joins a 304 to If-None-Match E to version E.
func (a *vcRun) readNotModified(ri int32, r *vcRec) {
	k := a.k
	E := r.ifNone
	if r.etag >= 0 && r.etag != E {
		a.Add(fmt.Sprintf("conditional read: #%d got 304 Not Modified to If-None-Match %s, with ETag %s", r.seq, k.etagName(E), k.etagName(r.etag)), ri)
		return
	}
	x := a.verOfETag[E]
	switch {
	case x >= 0:
		a.join(x, ri)
	case !k.final:
		a.unattributed++
	case a.unproven > 0:
		a.ambiguous++ // a write of unknown outcome may have installed E
	default:
		a.Add(fmt.Sprintf("phantom read: #%d got 304 Not Modified to If-None-Match %s, an ETag no write produced", r.seq, k.etagName(E)), ri)
	}
}

// state names what the check knows of an applied write, for messages.
func (a *vcRun) state(w int32) string {
	if a.rec(w).outcome == checks.OK {
		return "acknowledged"
	}
	return "unknown outcome, read later"
}

// proof is the read that showed an unknown write took effect, or -1.
func (a *vcRun) proof(x int32) int32 {
	X := &a.vers[x]
	if X.w >= 0 && a.rec(X.w).outcome != checks.OK {
		return X.dOp
	}
	return -1
}

// link names each applied write's base and reports forks: two applied
// writes on one base. The first (in record order) is linked; any other
// starts a chain of its own.
func (a *vcRun) link() {
	first := make(map[int32]int32) // ETag id -> first applied write naming it
	rootFirst := int32(-1)
	// Could an unseen version carry an ETag? Not if the history is whole,
	// every write that may have applied is placed and every applied one
	// has its ETag.
	complete := a.k.final && a.unproven == 0
	for x := 1; complete && x < len(a.vers); x++ {
		complete = a.vers[x].etag >= 0
	}
	for i := range a.k.recs.Len() {
		x := a.verOfRec[i]
		if x < 0 {
			continue
		}
		w := a.rec(i)
		var g int32
		root := false
		switch {
		case w.ifMatch >= 0:
			g = w.ifMatch
		case w.ifMatch == vcNone && w.ifNone == vcStar:
			root = true
		case w.actor == checks.ActorSetup && a.k.setups == 1:
			root = true // the setup write is the first version
		default:
			continue
		}
		prev, seen := rootFirst, rootFirst >= 0
		base := int32(0)
		if !root {
			prev, seen = first[g]
			base = a.verOfETag[g]
		}
		if !seen {
			if root {
				rootFirst = x
			} else {
				first[g] = x
			}
			if base < 0 && complete {
				a.Add(fmt.Sprintf("phantom base: #%d took effect with If-Match %s, an ETag no write produced", w.seq, a.k.etagName(g)), i)
			}
			if base >= 0 && base != x {
				a.vers[x].base, a.vers[base].next = base, x
			}
			continue
		}
		if base >= 0 {
			a.vers[base].forked = true
		}
		p, q := a.vers[prev].w, i
		var baseW int32 = -1
		if base >= 0 {
			baseW = a.vers[base].w
		}
		if root {
			a.Add(fmt.Sprintf("fork: #%d and #%d both created the blob (%s and %s): one overwrote the other, a lost update",
				a.rec(p).seq, w.seq, a.state(p), a.state(q)), p, q, a.proof(prev), a.proof(x))
			continue
		}
		a.Add(fmt.Sprintf("fork: #%d and #%d both took effect with If-Match %s (%s and %s): one overwrote the other, a lost update",
			a.rec(p).seq, w.seq, a.k.etagName(g), a.state(p), a.state(q)), p, q, baseW, a.proof(prev), a.proof(x))
	}
}

func (a *vcRun) totals(t *vcTotals) {
	t.writes += len(a.vers) - 1
	t.reads += a.reads
	t.refusals += a.refusals
	t.unattributed += a.unattributed
	t.ambiguous += a.ambiguous
	t.unknown += a.maybe
	for _, ch := range a.chains {
		if ch.head != 0 || a.vers[0].next >= 0 {
			t.chains++
		}
	}
	for i := range a.k.recs.Len() {
		r := a.rec(i)
		if r.kind == vcGet || r.outcome == checks.OK || !a.MayHaveApplied(r) {
			continue
		}
		if a.verOfRec[i] >= 0 {
			t.proven++
		} else if r.ifMatch >= 0 {
			if b := a.verOfETag[r.ifMatch]; b >= 0 && a.vers[b].next >= 0 {
				t.lost++ // its base was consumed by another applied write (rule 4)
			} else {
				t.open++
			}
		} else {
			t.open++
		}
	}
}
