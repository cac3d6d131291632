package lease

import (
	"sort"

	"github.com/stormcheck/stormcheck/checks"
)

// Reading one resource's operations into grants (acquire, renew, change), ends (release, change, delete) and breaks.

func (m *leaseModel) collect() {
	m.settle()
	for i := range m.nops() {
		op := m.Op(i)
		a := appliedOf(op)
		call, end := op.Call, effectEnd(op, a)
		if s, ok := m.settled[i]; ok {
			a, call, end = s.applied, s.from, s.to
		}
		if a == appliedNo {
			continue
		}
		act := m.sp.action(op.Kind)
		if act == laNone {
			c := m.sp.class(op.Kind)
			if c.modifies {
				m.effects = append(m.effects, leaseEffect{i: i, call: call, end: end, ok: a == appliedSure})
			}
			if c.deletes {
				m.ends["*"] = append(m.ends["*"], leaseEnd{i: i, id: "*", ok: a == appliedSure, call: op.Call, ret: end})
			}
			continue
		}
		m.effects = append(m.effects, leaseEffect{i: i, call: call, end: end, ok: a == appliedSure})
		g := leaseGrant{i: i, act: act, ok: a == appliedSure, call: call, ret: end}
		switch act {
		case laAcquire:
			g.id = leaseGrantID(op, act)
			m.acqs = append(m.acqs, acquireCall{call: call, i: i, ok: a == appliedSure})
		case laRenew:
			g.id = normLeaseID(op.In.LeaseID)
		case laChange:
			g.id, g.src = leaseGrantID(op, act), normLeaseID(op.In.LeaseID)
			if g.src != g.id {
				m.ends[g.src] = append(m.ends[g.src], leaseEnd{i: i, id: g.src, ok: g.ok, call: call, ret: end})
			}
		case laRelease:
			id := normLeaseID(op.In.LeaseID)
			m.ends[id] = append(m.ends[id], leaseEnd{i: i, id: id, ok: a == appliedSure, call: op.Call, ret: end})
			continue
		case laBreak:
			m.breaks = append(m.breaks, leaseBreak{i: i, ok: a == appliedSure, call: op.Call, ret: end,
				period: op.In.BreakPeriod, leaseTime: op.Out.LeaseTime})
			continue
		}
		if g.id == "" {
			continue // a renew naming no lease cannot have granted one
		}
		m.grants = append(m.grants, g)
	}
	sort.SliceStable(m.grants, func(a, b int) bool { return m.grants[a].call < m.grants[b].call })
	for gi := range m.grants {
		g := &m.grants[gi]
		m.byID[g.id] = append(m.byID[g.id], gi)
		m.grantOf[g.i] = gi
	}
	for id := range m.ends {
		es := m.ends[id]
		sort.SliceStable(es, func(a, b int) bool { return es[a].call < es[b].call })
	}
	sort.SliceStable(m.breaks, func(a, b int) bool { return m.breaks[a].call < m.breaks[b].call })
	sort.SliceStable(m.effects, func(a, b int) bool { return m.effects[a].call < m.effects[b].call })
	sort.SliceStable(m.acqs, func(a, b int) bool { return m.acqs[a].call < m.acqs[b].call })
	for ei, e := range m.effects {
		if !e.ok {
			m.maybes = append(m.maybes, ei)
		} else if l := e.end - e.call; l > m.maxLat {
			m.maxLat = l
		}
	}
	for id, l := range m.ends {
		m.endIdx[id] = newLeaseEndIndex(l)
	}
	for bi := range m.breaks {
		m.breakOf[m.breaks[bi].i] = bi
	}
	for gi := range m.grants {
		if g := &m.grants[gi]; !g.ok {
			m.idMaybe[g.id] = append(m.idMaybe[g.id], gi)
		} else {
			m.gMaxLat = max(m.gMaxLat, g.ret-g.call)
		}
	}
}

// indexBreaks builds the break lookups (after the durations are known).
func (m *leaseModel) indexBreaks() {
	x := &m.brk
	n := len(m.breaks)
	x.calls = make([]int64, n)
	for v := range 2 {
		x.sufLo[v], x.sufLoB[v] = make([]int64, n+1), make([]int, n+1)
		x.sufHi[v], x.sufHiB[v] = make([]int64, n+1), make([]int, n+1)
		x.sufLo[v][n], x.sufLoB[v][n], x.sufHi[v][n], x.sufHiB[v][n] = checks.LsInf, -1, checks.LsInf, -1
	}
	for bi := range m.breaks {
		b := &m.breaks[bi]
		x.calls[bi] = b.call
		if b.ok {
			x.okLat = max(x.okLat, b.ret-b.call)
		} else {
			x.maybes = append(x.maybes, bi)
		}
	}
	for bi := n - 1; bi >= 0; bi-- {
		b := &m.breaks[bi]
		for v := range 2 {
			x.sufLo[v][bi], x.sufLoB[v][bi] = x.sufLo[v][bi+1], x.sufLoB[v][bi+1]
			if lo := checks.AddBound(b.call, m.retLo(b, v == 1)); lo < x.sufLo[v][bi] {
				x.sufLo[v][bi], x.sufLoB[v][bi] = lo, b.i
			}
			x.sufHi[v][bi], x.sufHiB[v][bi] = x.sufHi[v][bi+1], x.sufHiB[v][bi+1]
			if b.ok {
				if hi := checks.AddBound(b.ret, m.retHi(bi, v == 1)); hi < x.sufHi[v][bi] {
					x.sufHi[v][bi], x.sufHiB[v][bi] = hi, b.i
				}
			}
		}
	}
}

// durations collects each lease id's durations from the acquires that may
// have applied, and hands them on along changes (the new id keeps the lease,
// and with it the duration).
