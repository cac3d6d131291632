package consistency

import (
	"fmt"
	"sort"

	"github.com/stormcheck/stormcheck/checks"
)

// vcChain is a maximal run of linked versions: a contiguous segment of the
// version order. d and r are its earliest return and latest call.
type vcChain struct {
	head   int32
	d, r   int64
	dV, rV int32 // the versions realizing d and r
}

// order places chains and checks real-time order within and between them.
func (a *vcRun) order() {
	for x := range int32(len(a.vers)) {
		if a.vers[x].base >= 0 {
			continue
		}
		ch := vcChain{head: x, d: vcInf, r: vcNegInf, dV: -1, rV: -1}
		id := int32(len(a.chains))
		prefR, prefV := int64(vcNegInf), int32(-1)
		pos := int32(0)
		for y := x; y >= 0; y = a.vers[y].next {
			Y := &a.vers[y]
			Y.chain, Y.pos = id, pos
			pos++
			if prefV >= 0 && Y.d < prefR {
				a.staleInChain(prefV, y)
			}
			if Y.r > prefR {
				prefR, prefV = Y.r, y
			}
			if Y.d < ch.d {
				ch.d, ch.dV = Y.d, y
			}
			if Y.r > ch.r {
				ch.r, ch.rV = Y.r, y
			}
		}
		if x == 0 {
			ch.d, ch.dV = vcNegInf, 0 // the initial chain comes first
		}
		a.chains = append(a.chains, ch)
	}
	a.loops()
	for x := int32(1); x < int32(len(a.vers)); x++ {
		X := &a.vers[x]
		if w := a.rec(X.w); X.chain >= 0 && X.d < w.call {
			a.Add(fmt.Sprintf("read from the future: #%d read %s and returned before #%d, the write that installed it, was sent",
				a.rec(X.dOp).seq, a.vname(x), w.seq), X.dOp, X.w)
		}
	}
	a.cycles()
}

// loops reports versions no chain reached: their If-Match bases loop.
func (a *vcRun) loops() {
	for x := range int32(len(a.vers)) {
		if a.vers[x].chain != -1 {
			continue
		}
		var ws []int32
		for y := x; a.vers[y].chain == -1; y = a.vers[y].base {
			a.vers[y].chain = -2
			ws = append(ws, a.vers[y].w)
		}
		seqs := ""
		for i, w := range ws {
			if i == 4 {
				seqs += " …"
				break
			}
			seqs += fmt.Sprintf(" #%d", a.rec(w).seq)
		}
		a.Add(fmt.Sprintf("version loop: the writes%s each replaced the next one's ETag (If-Match), which no order of writes allows", seqs), ws...)
	}
}

// vname names a version in a message.
func (a *vcRun) vname(x int32) string {
	if x == 0 {
		return "no blob"
	}
	X := &a.vers[x]
	if X.etag >= 0 {
		return a.k.etagName(X.etag)
	}
	if c := a.content(x); c >= 0 {
		return fmt.Sprintf("%q", checks.Trim(a.k.valName(c)))
	}
	return fmt.Sprintf("the version of #%d", a.rec(X.w).seq)
}

// did says what record i (an op of version x's cluster) did, in the past
// tense: "read E1", "wrote E1", "found no blob".
func (a *vcRun) did(i, x int32) string {
	r := a.rec(i)
	switch {
	case x == 0 && r.kind == vcGet:
		return "found no blob"
	case x == 0:
		return "wrote " + a.vname(x)
	case r.kind == vcGet && r.status == 304:
		return "got 304 Not Modified for " + a.vname(x)
	case r.kind == vcGet:
		return "read " + a.vname(x)
	}
	return "wrote " + a.vname(x)
}

// had is did in the perfect tense: "#3 had written E1".
func (a *vcRun) had(i, x int32) string {
	if s := a.did(i, x); s[:6] != "wrote " {
		return s
	}
	return "written " + a.vname(x)
}

// early picks an op of version v's cluster that returned before t: its
// write if it did (the plainest evidence), else the cluster's earliest
// return. late picks one called after t the same way.
func (a *vcRun) early(v int32, t int64) int32 {
	if w := a.vers[v].w; w >= 0 && a.rec(w).outcome == checks.OK && a.rec(w).ret < t {
		return w
	}
	return a.vers[v].dOp
}

func (a *vcRun) lateOp(v int32, t int64) int32 {
	if w := a.vers[v].w; w >= 0 && a.rec(w).call > t {
		return w
	}
	return a.vers[v].rOp
}

func (a *vcRun) isRead(i int32) bool { return i >= 0 && a.rec(i).kind == vcGet }

// staleInChain reports that version b, later than v in one chain, was due
// (an op of b returned) before an op of v was called.
func (a *vcRun) staleInChain(v, b int32) {
	early := a.early(b, a.vers[v].r)
	late := a.lateOp(v, a.rec(early).ret)
	if a.late[late] {
		return
	}
	a.late[late] = true
	what := "version order contradicts real time"
	if a.isRead(late) {
		what = "stale read"
	}
	if a.full() {
		a.v.Count(what, 1)
		return
	}
	n := a.vers[b].pos - a.vers[v].pos
	where := "the next version in its If-Match chain"
	if n > 1 {
		where = fmt.Sprintf("%d versions later in its If-Match chain", n)
	}
	a.Add(fmt.Sprintf("%s: #%d %s after #%d had %s, %s", what, a.rec(late).seq, a.did(late, v), a.rec(early).seq, a.had(early, b), where),
		late, early, a.vers[b].w, a.vers[a.vers[v].next].w, a.vers[v].w)
}

// cycles finds two chains that must each come before the other. Chain Y
// must precede chain X when d(Y) < r(X); a cycle in that relation always
// includes such a pair (the two chains with the smallest d form one), so
// sorting by d and keeping the two largest r of every prefix finds them all.
func (a *vcRun) cycles() {
	n := len(a.chains)
	if n < 2 {
		return
	}
	idx := make([]int32, n)
	for i := range idx {
		idx[i] = int32(i)
	}
	sort.Slice(idx, func(i, j int) bool {
		ci, cj := &a.chains[idx[i]], &a.chains[idx[j]]
		return ci.d < cj.d || ci.d == cj.d && idx[i] < idx[j]
	})
	type top struct {
		r  int64
		ch int32
	}
	best := make([][2]top, n)
	cur := [2]top{{vcNegInf, -1}, {vcNegInf, -1}}
	for i, c := range idx {
		e := top{a.chains[c].r, c}
		switch {
		case cur[0].ch < 0 || e.r > cur[0].r:
			cur[1], cur[0] = cur[0], e
		case cur[1].ch < 0 || e.r > cur[1].r:
			cur[1] = e
		}
		best[i] = cur
	}
	reported := make(map[int32]bool)
	for _, x := range idx {
		X := &a.chains[x]
		k := sort.Search(n, func(i int) bool { return a.chains[idx[i]].d >= X.r })
		if k == 0 {
			continue
		}
		p := best[k-1][0]
		if p.ch == x {
			p = best[k-1][1]
		}
		if p.ch < 0 || p.r <= X.d || reported[x] || reported[p.ch] {
			continue
		}
		reported[x], reported[p.ch] = true, true
		a.cycle(x, p.ch) // (once full, it only counts the kind)
	}
}

// cycle reports chains X and Y that must each come before the other, with
// the closest evidence: ops of versions as near each other in their chains
// as possible.
func (a *vcRun) cycle(cx, cy int32) {
	if a.chains[cy].head == 0 {
		cx, cy = cy, cx
	}
	X, Y := &a.chains[cx], &a.chains[cy]
	if X.head == 0 {
		// The initial chain comes first: any op of it called after an op
		// of another chain returned is stale.
		x, y := X.rV, Y.dV
		early := a.early(y, a.vers[x].r)
		late := a.lateOp(x, a.rec(early).ret)
		what := "version order contradicts real time"
		if a.isRead(late) {
			what = "stale read"
		}
		a.Add(fmt.Sprintf("%s: #%d %s after #%d had %s, but %s comes first (it is the initial version or follows it by If-Match)",
			what, a.rec(late).seq, a.did(late, x), a.rec(early).seq, a.had(early, y), a.vname(x)),
			late, early, a.vers[y].w, a.vers[x].w)
		return
	}
	// Y before X: some y due before some x released. X before Y: some x'
	// due before some y' released.
	x, x2 := a.nearest(X.head, func(v int32) bool { return a.vers[v].r > Y.d }, func(v int32) bool { return a.vers[v].d < Y.r })
	y, y2 := a.nearest(Y.head, func(v int32) bool { return a.vers[v].d < a.vers[x].r }, func(v int32) bool { return a.vers[v].r > a.vers[x2].d })
	early := a.early(y, a.vers[x].r)
	late := a.lateOp(x, a.rec(early).ret)
	early2 := a.early(x2, a.vers[y2].r)
	late2 := a.lateOp(y2, a.rec(early2).ret)
	what := "order cycle"
	if a.isRead(late) && early == a.vers[y].w {
		what = "stale read" // a read of x after the write of y completed, and x precedes y
	}
	msg := fmt.Sprintf("%s: #%d %s after #%d had %s, yet %s precedes %s: #%d had %s before #%d %s",
		what, a.rec(late).seq, a.did(late, x), a.rec(early).seq, a.had(early, y),
		a.vname(x2), a.vname(y2), a.rec(early2).seq, a.had(early2, x2), a.rec(late2).seq, a.did(late2, y2))
	for _, p := range [][2]int32{{x, x2}, {y, y2}} {
		if p[0] != p[1] {
			msg += fmt.Sprintf(" (%s and %s are %d versions apart in one If-Match chain)", a.vname(p[0]), a.vname(p[1]),
				abs32(a.vers[p[0]].pos-a.vers[p[1]].pos))
		}
	}
	a.Add(msg, late, early, early2, late2, a.vers[x].w, a.vers[y].w)
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// nearest returns members s and t of the chain from head, satisfying inS
// and inT, as close to each other as possible. Callers guarantee both exist.
func (a *vcRun) nearest(head int32, inS, inT func(int32) bool) (s, t int32) {
	lastS, lastT := int32(-1), int32(-1)
	best := int32(-1)
	for v := head; v >= 0; v = a.vers[v].next {
		is, it := inS(v), inT(v)
		if is && it {
			return v, v
		}
		pos := a.vers[v].pos
		if is {
			lastS = v
			if lastT >= 0 && (best < 0 || pos-a.vers[lastT].pos < best) {
				best, s, t = pos-a.vers[lastT].pos, v, lastT
			}
		}
		if it {
			lastT = v
			if lastS >= 0 && (best < 0 || pos-a.vers[lastS].pos < best) {
				best, s, t = pos-a.vers[lastS].pos, lastS, v
			}
		}
	}
	return s, t
}

// refused checks every 412 to If-Match (and 409 to If-None-Match: *): a
// violation only when the named version was provably current for the whole
// request. Sound, not complete.
func (a *vcRun) refused() {
	for i := range a.k.recs.Len() {
		r := a.rec(i)
		if r.outcome != checks.Conflict {
			continue
		}
		x, ok := a.refusedBase(r)
		if !ok {
			continue
		}
		a.refusals++
		X := &a.vers[x]
		if X.forked || X.chain < 0 || X.d >= r.call {
			continue // no version to judge, or not certainly installed before the request
		}
		var why string
		ev := int32(-1)
		switch {
		case X.next >= 0:
			n := a.vers[X.next].w
			if a.rec(n).call <= r.ret {
				continue
			}
			why, ev = fmt.Sprintf("the write that replaced it, #%d, was sent after #%d returned", a.rec(n).seq, r.seq), n
		case a.finalVer == x:
			why, ev = fmt.Sprintf("the final read #%d still found it", a.rec(a.finalRec).seq), a.finalRec
		case a.mayReplace(x, r.ret):
			continue
		default:
			why = fmt.Sprintf("no write that could replace it was sent before #%d returned", r.seq)
		}
		if x == 0 {
			a.Add(fmt.Sprintf("409 on an absent blob: #%d was refused (%s) to If-None-Match: *, yet no blob existed for the whole request: #%d had found no blob before #%d was sent, and %s",
				r.seq, Answer(a.Op(i)), a.rec(X.dOp).seq, r.seq, why), i, X.dOp, ev)
			continue
		}
		a.Add(fmt.Sprintf("412 on a current ETag: #%d was refused for If-Match %s, yet %s was current for the whole request: #%d had %s before #%d was sent, and %s",
			r.seq, a.vname(x), a.vname(x), a.rec(X.dOp).seq, a.had(X.dOp, x), r.seq, why), i, X.dOp, ev, X.w)
	}
}

// refusedBase returns the version a refusal says was not current: the
// If-Match ETag of a 412 ConditionNotMet, or "no blob" for a 409
// BlobAlreadyExists to If-None-Match: *. ok is false when the refusal may
// have another cause (a date condition, a lease) or names no version.
func (a *vcRun) refusedBase(r *vcRec) (int32, bool) {
	if r.rare >= 0 {
		if x := &a.k.rare[r.rare]; x.ifModifiedSince != "" || x.ifUnmodifiedSince != "" {
			return 0, false
		}
	}
	code := a.c.strv[r.errCode]
	is412 := r.status == 412 && (code == "" || code == "ConditionNotMet")
	switch {
	case r.ifMatch >= 0 && r.ifNone == vcNone && is412:
		x := a.verOfETag[r.ifMatch]
		return x, x >= 0
	case r.ifMatch == vcNone && r.ifNone == vcStar && r.kind != vcGet &&
		(is412 || r.status == 409 && (code == "" || code == "BlobAlreadyExists")):
		return 0, true
	}
	return 0, false
}

// vcCands answers "was a write that could follow any version sent by t,
// and not certainly installed before version x?" for the 412 rule.
type vcCands struct {
	calls    []int64    // universal writes (no If-Match, or "*"), sorted by call
	best     [][2]vcTop // prefix: the two largest deadlines
	byETag   map[int32]int64
	creation int64 // earliest call of an unproven create (If-None-Match: *)
}

type vcTop struct {
	d int64
	v int32 // the write's version, -1 if it has none
}

func (a *vcRun) candidates() *vcCands {
	if a.cands != nil {
		return a.cands
	}
	c := &vcCands{byETag: map[int32]int64{}, creation: vcInf}
	type u struct {
		call int64
		top  vcTop
	}
	var us []u
	for i := range a.k.recs.Len() {
		r := a.rec(i)
		if r.kind == vcGet || !(r.outcome == checks.OK || a.MayHaveApplied(r)) {
			continue
		}
		x := a.verOfRec[i]
		switch {
		case r.ifMatch >= 0:
			// Only an unproven one can be a hidden successor: an applied
			// one is linked.
			if x < 0 {
				if m, ok := c.byETag[r.ifMatch]; !ok || r.call < m {
					c.byETag[r.ifMatch] = r.call
				}
			}
		case r.ifMatch == vcNone && r.ifNone == vcStar:
			if x < 0 {
				c.creation = min(c.creation, r.call)
			}
		default:
			t := vcTop{d: vcInf, v: x}
			if x >= 0 {
				t.d = a.vers[x].d
			}
			us = append(us, u{r.call, t})
		}
	}
	sort.Slice(us, func(i, j int) bool { return us[i].call < us[j].call })
	c.calls = make([]int64, len(us))
	c.best = make([][2]vcTop, len(us))
	cur := [2]vcTop{{vcNegInf, -2}, {vcNegInf, -2}}
	for i, e := range us {
		c.calls[i] = e.call
		switch {
		case e.top.d > cur[0].d || cur[0].v == -2:
			cur[1], cur[0] = cur[0], e.top
		case e.top.d > cur[1].d || cur[1].v == -2:
			cur[1] = e.top
		}
		c.best[i] = cur
	}
	a.cands = c
	return c
}

// mayReplace reports whether some write sent by t may have replaced
// version x, which no linked write did: an unproven write on x's ETag, or
// a write that needs no base (unconditional or "*", including ones of
// unknown outcome) and is not certainly installed before x. The head of
// x's own chain is never x's successor.
func (a *vcRun) mayReplace(x int32, t int64) bool {
	c := a.candidates()
	X := &a.vers[x]
	if x == 0 {
		if c.creation <= t {
			return true
		}
	} else if m, ok := c.byETag[X.etag]; X.etag >= 0 && ok && m <= t {
		return true
	}
	k := sort.Search(len(c.calls), func(i int) bool { return c.calls[i] > t })
	if k == 0 {
		return false
	}
	// The one write in x's chain at or before x that needs no base: the
	// chain's head, or the setup write in the initial chain.
	excl := a.chains[X.chain].head
	if excl == 0 {
		excl = -1
		if n := a.vers[0].next; n >= 0 && X.pos >= 1 {
			excl = n
		}
	}
	b := c.best[k-1]
	top := b[0]
	if excl >= 0 && top.v == excl {
		top = b[1]
	}
	return top.v != -2 && top.d >= X.r
}
