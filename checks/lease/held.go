package lease

import (
	"sort"

	"github.com/stormcheck/stormcheck/checks"
)

// When a lease is certainly held and when possibly held: cutting grants short at ends and breaks, and the indexes that answer "who holds it over [a, b]".

func (m *leaseModel) truncate() {
	// Successful grants by Call, with the earliest Return among those sent
	// at or after each: after a grant certainly later than g, that grant
	// decides the lease (another id: g's lease had ended; the same id: it
	// renewed or re-acquired it, and its own window goes on).
	okByCall := make([]int, 0, len(m.grants))
	for gi := range m.grants {
		if m.grants[gi].ok {
			okByCall = append(okByCall, gi)
		}
	}
	sufRet := make([]int, len(okByCall)+1) // grant index with the earliest Return in okByCall[j:], or -1
	sufRet[len(okByCall)] = -1
	for j := len(okByCall) - 1; j >= 0; j-- {
		sufRet[j] = sufRet[j+1]
		if sufRet[j] < 0 || m.grants[okByCall[j]].ret < m.grants[sufRet[j]].ret {
			sufRet[j] = okByCall[j]
		}
	}
	for gi := range m.grants {
		g := &m.grants[gi]
		g.cBy, g.pBy = -1, -1
		if !g.ok {
			g.cEnd, g.pEnd = checks.LsNegInf, checks.LsInf
			continue
		}
		g.cEnd, g.cBy = m.certainEnd(gi, -1)
		// Possibly held: cut at what certainly ended it after the grant.
		p := int64(checks.LsInf)
		for _, x := range []*leaseEndIndex{m.endIdx[g.id], m.endIdx["*"]} {
			if v, b := x.possibleCut(g.ret); v < p {
				p, g.pBy = v, b
			}
		}
		v := 0
		if m.certInf(g.id) {
			v = 1
		}
		if k := sort.Search(len(m.brk.calls), func(k int) bool { return m.brk.calls[k] >= g.ret }); m.brk.sufHi[v][k] < p {
			p, g.pBy = m.brk.sufHi[v][k], m.brk.sufHiB[v][k]
		}
		j := sort.Search(len(okByCall), func(j int) bool { return m.grants[okByCall[j]].call >= g.ret })
		if o := sufRet[j]; o >= 0 && m.grants[o].ret < p {
			p, g.pBy = m.grants[o].ret, m.grants[o].i
		}
		g.pEnd = min(g.pExp, p)
		if p >= g.pExp {
			g.pBy = -1
		}
	}
}

// certainEnd is the end of a successful grant's certainly-held window: its
// certain expiry, cut at whatever may have ended it after the grant (a
// release, change or delete of it at once, a break after its break period),
// not counting the operation skip. by is the op that cut it, or -1.
func (m *leaseModel) certainEnd(gi, skip int) (end int64, by int) {
	g := &m.grants[gi]
	t, by := m.endIdx[g.id].certainCut(g.call, skip)
	if v, b := m.endIdx["*"].certainCut(g.call, skip); v < t {
		t, by = v, b
	}
	mayInf := m.mayInf(g.id)
	cut := func(v int64, b int) {
		if v < t {
			t, by = v, b
		}
	}
	if _, isBreak := m.breakOf[skip]; isBreak {
		for bi := range m.breaks {
			if b := &m.breaks[bi]; b.i != skip && b.ret > g.call {
				cut(checks.AddBound(max(b.call, g.call), m.retLo(b, mayInf)), b.i)
			}
		}
	} else {
		x, v := &m.brk, 0
		if mayInf {
			v = 1
		}
		j := sort.Search(len(x.calls), func(k int) bool { return x.calls[k] >= g.call })
		cut(x.sufLo[v][j], x.sufLoB[v][j])
		// breaks sent before the grant that may have taken effect after it
		for k := j - 1; k >= 0 && x.calls[k] >= g.call-x.okLat; k-- {
			if b := &m.breaks[k]; b.ok && b.ret > g.call {
				cut(checks.AddBound(g.call, m.retLo(b, mayInf)), b.i)
			}
		}
		for _, k := range x.maybes {
			if b := &m.breaks[k]; b.call < g.call && b.ret > g.call {
				cut(checks.AddBound(g.call, m.retLo(b, mayInf)), b.i)
			}
		}
	}
	// A later acquire of the same id sets a new duration, perhaps shorter:
	// the lease then certainly lasts only that long from it. (Grants are in
	// Call order, and every lease lasts at least 15 s: stop when no later
	// one can cut shorter.)
	sameID := func(hi int) {
		if h := &m.grants[hi]; hi != gi && h.act != laChange && h.ret > g.call {
			cut(checks.AddBound(max(h.call, g.call), shortestOnHarness(h.dMin)), h.i)
		}
	}
	lo := g.call - m.gMaxLat
	for _, hi := range m.idMaybe[g.id] {
		if m.grants[hi].call >= lo {
			break
		}
		sameID(hi)
	}
	ids := m.byID[g.id]
	for k := sort.Search(len(ids), func(k int) bool { return m.grants[ids[k]].call >= lo }); k < len(ids); k++ {
		h := &m.grants[ids[k]]
		if h.call >= g.call && checks.AddBound(h.call, shortestOnHarness(15*checks.LsSecond)) >= min(t, g.cExp) {
			break
		}
		sameID(ids[k])
	}
	if t >= g.cExp {
		return g.cExp, -1
	}
	return t, by
}

// index builds the lookups the checks query.
func (m *leaseModel) index() {
	for gi := range m.grants {
		g := &m.grants[gi]
		if g.ok {
			m.anc = append(m.anc, leaseAnchor{call: g.call, ret: g.ret, g: gi, i: g.i})
			m.okByRet = append(m.okByRet, gi)
			if g.cEnd > g.ret {
				m.wins = append(m.wins, lockWindow{start: g.ret, end: g.cEnd, id: g.id, g: gi})
			}
		}
		m.pCall = append(m.pCall, g.call)
		grace := g.pEnd
		if g.pBy < 0 {
			grace = checks.AddBound(grace, longestOnHarness(int64(LeaseReacquireGrace)))
		}
		pm, pg := largestTwoByGrant{v1: checks.LsNegInf, v2: checks.LsNegInf, g1: -1}, largestTwoByGrant{v1: checks.LsNegInf, v2: checks.LsNegInf, g1: -1}
		if gi > 0 {
			pm, pg = m.pMax[gi-1], m.pGrace[gi-1]
		}
		m.pMax = append(m.pMax, pm.push(g.pEnd, gi))
		m.pGrace = append(m.pGrace, pg.push(grace, gi))
	}
	for _, e := range m.ends["*"] {
		if e.ok {
			m.anc = append(m.anc, leaseAnchor{call: e.call, ret: e.ret, g: -1, i: e.i})
		}
	}
	m.indexAnchors()
	sort.SliceStable(m.okByRet, func(a, b int) bool { return m.grants[m.okByRet[a]].ret < m.grants[m.okByRet[b]].ret })
	for j, gi := range m.okByRet {
		if j == 0 || m.grants[gi].call > m.grants[m.okArg[j-1]].call {
			m.okArg = append(m.okArg, gi)
		} else {
			m.okArg = append(m.okArg, m.okArg[j-1])
		}
	}
	sort.SliceStable(m.wins, func(a, b int) bool { return m.wins[a].start < m.wins[b].start })
	for j := range m.wins {
		if j == 0 || m.wins[j].end > m.wins[m.winBest[j-1]].end {
			m.winBest = append(m.winBest, j)
		} else {
			m.winBest = append(m.winBest, m.winBest[j-1])
		}
	}
}

// indexAnchors sorts the anchors and builds their lookups.
func (m *leaseModel) indexAnchors() {
	sort.SliceStable(m.anc, func(a, b int) bool { return m.anc[a].call < m.anc[b].call })
	m.ancByRet = make([]int, len(m.anc))
	for j := range m.anc {
		m.ancByRet[j] = j
		m.ancMaxLat = max(m.ancMaxLat, m.anc[j].ret-m.anc[j].call)
	}
	sort.SliceStable(m.ancByRet, func(a, b int) bool { return m.anc[m.ancByRet[a]].ret < m.anc[m.ancByRet[b]].ret })
	m.ancMaxCall = make([]int64, len(m.anc))
	for j, k := range m.ancByRet {
		m.ancMaxCall[j] = m.anc[k].call
		if j > 0 {
			m.ancMaxCall[j] = max(m.ancMaxCall[j], m.ancMaxCall[j-1])
		}
	}
}

// certainLock returns the certainly-held window that covers [a, b], with
// the latest end, or nil; the judged call self does not count.
func (m *leaseModel) certainLock(a, b int64, self int) *lockWindow {
	j := sort.Search(len(m.wins), func(j int) bool { return m.wins[j].start > a })
	if j == 0 {
		return nil
	}
	w := &m.wins[m.winBest[j-1]]
	if m.grants[w.g].i == self { // rare: a call of no latency; look past it
		w = nil
		for k := range j {
			if c := &m.wins[k]; m.grants[c.g].i != self && (w == nil || c.end > w.end) {
				w = c
			}
		}
	}
	if w == nil || w.end < b {
		return nil
	}
	return w
}

// possiblyLocked reports whether some lease (other than one the judged call
// self grants) may have been held at some instant of [a, b], and whether,
// counting the re-acquire grace after expiries, a new acquire may still
// have been refused.
func (m *leaseModel) possiblyLocked(a, b int64, self int) (locked, grace bool) {
	j := sort.Search(len(m.pCall), func(j int) bool { return m.pCall[j] > b })
	if j == 0 {
		return false, false
	}
	gs, ok := m.grantOf[self]
	if !ok {
		gs = -1
	}
	return m.pMax[j-1].without(gs) >= a, m.pGrace[j-1].without(gs) >= a
}

// latestOKGrant returns the successful grant certainly before t with the
// latest Call, or -1.
func (m *leaseModel) latestOKGrant(t int64) int {
	j := sort.Search(len(m.okByRet), func(j int) bool { return m.grants[m.okByRet[j]].ret > t })
	if j == 0 {
		return -1
	}
	return m.okArg[j-1]
}

// effectsBetween calls fn for each operation that may have changed the
// lease state between from and to (exclusive): certainly applied ones whose
// window meets (from, to), and unknown ones sent before to.
func (m *leaseModel) effectsBetween(from, to int64, fn func(e *leaseEffect) bool) {
	lo := sort.Search(len(m.effects), func(j int) bool { return m.effects[j].call >= from-m.maxLat })
	for j := lo; j < len(m.effects) && m.effects[j].call < to; j++ {
		if e := &m.effects[j]; e.ok && e.end > from {
			if !fn(e) {
				return
			}
		}
	}
	for _, j := range m.maybes {
		if e := &m.effects[j]; e.call < to && e.end > from {
			if !fn(e) {
				return
			}
		}
	}
}
