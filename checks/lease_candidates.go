package checks

import (
	"sort"
	"strings"
)

// Candidate states: the lease states the resource may have been in when a call took effect.

// --- candidate states ---

type leaseStateKind uint8

const (
	lsUnknown   leaseStateKind = iota // anything: the history does not decide
	lsAvailable                       // no lease
	lsLeased
	lsBreaking
	lsBroken
	lsExpired
	lsUnlocked // unlocked (available, expired or broken), the id unknown
)

type leaseState struct {
	kind  leaseStateKind
	id    string
	grace bool // a new acquire may still be refused (expired up to a minute ago)
}

func (s leaseState) String() string {
	id := s.id
	if len(id) > 12 {
		id = id[:8] + "…"
	}
	switch s.kind {
	case lsAvailable:
		return "available"
	case lsLeased:
		return "leased(" + id + ")"
	case lsBreaking:
		return "breaking(" + id + ")"
	case lsBroken:
		return "broken(" + id + ")"
	case lsExpired:
		return "expired(" + id + ")"
	case lsUnlocked:
		return "unlocked"
	}
	return "unknown"
}

// candidateStates is the set of states the lease may have been in when a call took
// effect, with the operations that show it.
type candidateStates struct {
	states   []leaseState
	evidence []int // op indices
	certain  bool  // decided from a certainly-held window
}

func (c candidateStates) unknown() bool {
	for _, s := range c.states {
		if s.kind == lsUnknown {
			return true
		}
	}
	return len(c.states) == 0
}

func (c candidateStates) String() string {
	parts := make([]string, len(c.states))
	for i, s := range c.states {
		parts[i] = s.String()
	}
	return strings.Join(parts, " or ")
}

var unknownCandidates = candidateStates{states: []leaseState{{kind: lsUnknown}}}

// candidates returns the states the lease may have been in at some instant
// of [a, b] (the judged call's window; self is its op index). Only few
// histories decide the state; the rest answer "unknown" and are not judged.
func (m *leaseModel) candidates(a, b int64, self int) candidateStates {
	// A lease certainly held over the whole window: leased or breaking.
	if w := m.certainLock(a, b, self); w != nil {
		g := &m.grants[w.g]
		c := candidateStates{evidence: []int{g.i}, certain: true}
		breakingMay, breakingSure := false, -1
		x := &m.brk
		j := sort.Search(len(x.calls), func(k int) bool { return x.calls[k] >= b })
		for k := j - 1; k >= 0 && x.calls[k] >= g.call-x.okLat; k-- {
			br := &m.breaks[k]
			if br.i == self || !br.ok || br.ret <= g.call {
				continue
			}
			breakingMay = true
			if br.call >= g.ret && br.ret <= a {
				breakingSure = br.i
			}
		}
		for _, k := range x.maybes {
			if br := &m.breaks[k]; br.i != self && br.call < b && br.ret > g.call {
				breakingMay = true
			}
		}
		if breakingSure < 0 {
			c.states = append(c.states, leaseState{kind: lsLeased, id: w.id})
		} else {
			c.evidence = append(c.evidence, breakingSure)
		}
		if breakingMay {
			c.states = append(c.states, leaseState{kind: lsBreaking, id: w.id})
		}
		return c
	}
	// Never leased: no acquire (but this one) may have taken effect before
	// the call.
	never := true
	for _, q := range m.acqs {
		if q.call >= b {
			break
		}
		if q.i != self {
			never = false
			break
		}
	}
	if never {
		return candidateStates{states: []leaseState{{kind: lsAvailable}}}
	}
	if c := m.fromAnchor(a, b, self); !c.unknown() {
		return c
	}
	// No lease may have been held at any instant of the window.
	if locked, grace := m.possiblyLocked(a, b, self); !locked {
		return candidateStates{states: []leaseState{{kind: lsUnlocked, grace: grace}}}
	}
	return unknownCandidates
}

// leaseScanBudget bounds the operations fromAnchor looks at for one call,
// so that a history where certainty was lost long ago stays linear.
const leaseScanBudget = 4096

// fromAnchor derives the state from the latest successful grant before the
// call and everything that may have happened since; it gives up (unknown) as
// soon as another lease id may have been granted or the resource deleted.
func (m *leaseModel) fromAnchor(a, b int64, self int) candidateStates {
	gi := m.latestOKGrant(a)
	if gi < 0 {
		return unknownCandidates
	}
	g := &m.grants[gi]
	x := g.id
	var (
		xGrants  = []int{gi}
		xAcqEnds []int64 // when later acquires of x may have taken effect
		rels     []int   // releases of x
		brks     []int   // breaks
		mods     bool    // a change of the resource without x's id
		give     bool
	)
	budget := leaseScanBudget
	m.effectsBetween(g.call, b, func(e *leaseEffect) bool {
		if budget--; budget < 0 {
			give = true // too much happened since: not worth deciding
			return false
		}
		if e.i == g.i || e.i == self {
			return true
		}
		op := m.op(e.i)
		act := m.sp.action(op.Kind)
		switch act {
		case laNone:
			c := m.sp.class(op.Kind)
			if c.deletes {
				give = true
			} else if normLeaseID(op.In.LeaseID) != x {
				mods = true
			}
		case laAcquire, laRenew, laChange:
			hi, ok := m.grantOf[e.i]
			if !ok {
				return true
			}
			h := &m.grants[hi]
			switch {
			case h.id == x:
				xGrants = append(xGrants, hi)
				if act == laAcquire {
					xAcqEnds = append(xAcqEnds, e.end)
				}
			case act == laRenew && !e.ok:
				// an unknown renew of another id changes nothing unless that
				// id was current, which needs a grant this scan would see
			default:
				give = true
			}
		case laRelease:
			if normLeaseID(op.In.LeaseID) == x {
				rels = append(rels, e.i)
			} else if e.ok {
				give = true
			}
		case laBreak:
			brks = append(brks, e.i)
		}
		return !give
	})
	if give {
		return unknownCandidates
	}
	pExpMax, cExpMax := int64(lsNegInf), int64(lsNegInf)
	for _, hi := range xGrants {
		h := &m.grants[hi]
		pExpMax = max(pExpMax, h.pExp)
		if h.ok && h.ret <= a {
			// its certain end, which a later acquire of x with a shorter
			// duration may cut (releases and breaks are accounted below)
			e, _ := m.certainEnd(hi, self)
			cExpMax = max(cExpMax, e)
		}
	}
	leased := a < pExpMax
	expired := b > cExpMax
	grace := a < addBound(pExpMax, longestOnHarness(int64(LeaseReacquireGrace)))
	c := candidateStates{evidence: []int{g.i}}
	has := map[leaseStateKind]bool{lsLeased: leased, lsExpired: expired}
	if len(brks) > 0 {
		has[lsBroken] = true
		sure := -1
		for _, i := range brks {
			bi := m.breakOf[i]
			br := &m.breaks[bi]
			if !br.ok || a < addBound(br.ret, m.retHi(bi, m.certInf(x))) {
				has[lsBreaking] = true
			}
			if br.ok && br.call >= g.ret && br.ret <= a {
				reacquired := false
				for _, t := range xAcqEnds {
					if t > br.call {
						reacquired = true
					}
				}
				if !reacquired {
					sure = i
				}
			}
		}
		if sure >= 0 {
			has[lsLeased], has[lsExpired] = false, false
			c.evidence = append(c.evidence, sure)
		}
	}
	if len(rels) > 0 {
		has[lsAvailable] = true
		for _, i := range rels {
			r := m.op(i)
			if r.Outcome != OK || r.Call < g.ret || r.Return > a {
				continue
			}
			reacquired := false
			for _, t := range xAcqEnds {
				if t > r.Call {
					reacquired = true
				}
			}
			if !reacquired {
				has = map[leaseStateKind]bool{lsAvailable: true}
				c.evidence = append(c.evidence, i)
				break
			}
		}
	}
	if mods && (has[lsExpired] || has[lsBroken]) {
		has[lsAvailable] = true
	}
	for _, k := range []leaseStateKind{lsAvailable, lsLeased, lsBreaking, lsBroken, lsExpired} {
		if has[k] {
			s := leaseState{kind: k, id: x}
			if k == lsAvailable {
				s.id = ""
			}
			if k == lsExpired {
				s.grace = grace
			}
			c.states = append(c.states, s)
		}
	}
	if len(c.states) == 0 {
		return unknownCandidates
	}
	return c
}
