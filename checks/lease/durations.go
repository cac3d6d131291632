package lease

import "github.com/stormcheck/stormcheck/checks"

// Lease durations and expiries: how long each grant lasts on the harness's clock, and when a break lets go.

func (m *leaseModel) durations() {
	for _, g := range m.grants {
		if g.act != laAcquire {
			continue
		}
		ns, ok := validDuration(m.Op(g.i).In.LeaseDuration)
		if !ok {
			continue // not recorded (or not a valid duration)
		}
		r := m.dur[g.id]
		if !r.known {
			r = leaseDur{min: ns, max: ns, known: true}
		} else {
			r.min, r.max = min(r.min, ns), max(r.max, ns)
		}
		m.dur[g.id] = r
	}
	for _, g := range m.grants {
		if g.act != laChange || g.src == g.id {
			continue
		}
		s, ok := m.dur[g.src]
		if !ok {
			s = leaseDur{min: 15 * checks.LsSecond, max: checks.LsInf}
		}
		r, ok := m.dur[g.id]
		if !ok {
			m.dur[g.id] = s
			continue
		}
		r.min, r.max = min(r.min, s.min), max(r.max, s.max)
		r.known = r.known && s.known
		m.dur[g.id] = r
	}
}

// validDuration converts a recorded acquire duration to ns.
func validDuration(d int) (int64, bool) {
	switch {
	case d == -1:
		return checks.LsInf, true
	case d >= 15 && d <= 60:
		return int64(d) * checks.LsSecond, true
	}
	return 0, false
}

// grantDur is the duration a grant gives its lease: an acquire's own (it
// sets a new duration even when it renews), a renew the duration of the
// acquire that started the current lease: the latest one certainly before
// it, or any that may have come after that one.
func (m *leaseModel) grantDur(gi int) leaseDur {
	g := &m.grants[gi]
	switch g.act {
	case laAcquire:
		if d, ok := validDuration(m.Op(g.i).In.LeaseDuration); ok {
			return leaseDur{min: d, max: d, known: true}
		}
		return m.durOf(g.id)
	case laChange:
		return m.durOf(g.id)
	}
	best := -1
	for _, hi := range m.byID[g.id] {
		if h := &m.grants[hi]; h.act != laRenew && h.ok && h.ret <= g.call && (best < 0 || h.call > m.grants[best].call) {
			best = hi
		}
	}
	if best < 0 {
		return m.durOf(g.id)
	}
	r := m.grantDur(best)
	for _, hi := range m.byID[g.id] {
		h := &m.grants[hi]
		if hi == best || h.act == laRenew || h.call >= g.ret || h.ret <= m.grants[best].call {
			continue
		}
		d := m.grantDur(hi)
		r.min, r.max = min(r.min, d.min), max(r.max, d.max)
	}
	return r
}

func (m *leaseModel) durOf(id string) leaseDur {
	if r, ok := m.dur[id]; ok && r.known {
		return r
	}
	return leaseDur{min: 15 * checks.LsSecond, max: checks.LsInf}
}

// expiries computes each grant's expiry bounds. A change keeps the lease's
// expiry: it is certainly no sooner than the end of any certainly-held
// window of the old id that was sent before it (not counting the change
// itself); when the proposed id may itself have been the current lease (an
// idempotent change), nothing is certain.
func (m *leaseModel) expiries() {
	for gi := range m.grants {
		m.grants[gi].dMin = m.grantDur(gi).min
	}
	for gi := range m.grants {
		g := &m.grants[gi]
		if !g.ok {
			g.cExp, g.pExp = checks.LsNegInf, checks.LsInf
			continue
		}
		if g.act != laChange {
			d := m.grantDur(gi)
			g.cExp, g.pExp = checks.AddBound(g.call, shortestOnHarness(d.min)), checks.AddBound(g.ret, longestOnHarness(d.max))
		} else {
			g.cExp, g.pExp = checks.LsNegInf, checks.LsInf // until computed below, in Call order
		}
	}
	for gi := range m.grants {
		g := &m.grants[gi]
		if !g.ok || g.act != laChange {
			continue
		}
		g.pExp, g.cExp = checks.LsNegInf, checks.LsNegInf
		for _, hi := range append(append([]int(nil), m.byID[g.src]...), m.byID[g.id]...) {
			h := &m.grants[hi]
			if hi == gi || h.call >= g.ret {
				continue
			}
			g.pExp = max(g.pExp, h.pExp) // a later-sent change still counts as forever
		}
		if g.pExp == checks.LsNegInf {
			g.pExp = checks.LsInf
		}
		ambiguous := false
		if g.src != g.id {
			for _, hi := range m.byID[g.id] {
				if h := &m.grants[hi]; hi != gi && h.call < g.ret && h.pExp >= g.call {
					ambiguous = true
				}
			}
		}
		if ambiguous {
			continue
		}
		for _, hi := range m.byID[g.src] {
			if h := &m.grants[hi]; h.ok && h.ret <= g.call {
				e, _ := m.certainEnd(hi, g.i)
				g.cExp = max(g.cExp, e)
			}
		}
	}
}

// retLo is how long a lease certainly stays locked after a break's Call
// (before its own expiry): the break period if one was sent; without one an
// infinite lease breaks at once and a finite one runs out its time. mayInf:
// the lease may be infinite.
func (m *leaseModel) retLo(b *leaseBreak, mayInf bool) int64 {
	if b.period != nil {
		return shortestOnHarness(int64(max(*b.period, 0)) * checks.LsSecond)
	}
	if mayInf {
		return 0
	}
	return checks.LsInf
}

// mayInf reports whether a lease id may be infinite; certInf whether it
// certainly is (every acquire of it recorded -1).
func (m *leaseModel) mayInf(id string) bool { return m.durOf(id).max == checks.LsInf }

func (m *leaseModel) certInf(id string) bool {
	d, ok := m.dur[id]
	return ok && d.known && d.min == checks.LsInf
}

// retHi is how long a lease may stay locked after a break's Return: at most
// the break period, or the x-ms-lease-time the break answered (whole
// seconds, rounding unknown). Without either, an infinite lease (certInf)
// breaks at once, unless an earlier break may have left it breaking (a
// break without a period does not shorten a break in progress).
func (m *leaseModel) retHi(bi int, certInf bool) int64 {
	b := &m.breaks[bi]
	r := int64(checks.LsInf)
	if b.period != nil {
		r = longestOnHarness(int64(max(*b.period, 0)) * checks.LsSecond)
	}
	if b.ok && b.leaseTime != nil {
		return min(r, longestOnHarness(int64(max(*b.leaseTime, 0)+1)*checks.LsSecond))
	}
	if b.period == nil && certInf {
		earlier := bi > 0 || (bi+1 < len(m.breaks) && m.breaks[bi+1].call < b.ret)
		if !earlier {
			return 0
		}
	}
	return r
}

// truncate cuts each grant's windows at the releases, changes, breaks and
// deletes that may (certain window) or certainly (possible window) have
// ended it, and at other ids' grants certainly after it (possible window).
