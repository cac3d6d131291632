package lease

import (
	"sort"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
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
	evidence []int  // op indices
	certain  bool   // decided from a certainly-held window
	why      string // for an unknown answer: what left it open
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
//
// With narrow, grants of unknown outcome that the history does not settle
// are taken as not applied: the states of one possible reading of the
// history, a subset of the others' (an answer allowed there is allowed);
// without, they may have acted at any time from when settle says they may
// first have, and the state is unknown wherever one of another id may have.
func (m *leaseModel) candidates(a, b int64, self int, narrow bool) candidateStates {
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
		if q.i != self && (q.ok || !narrow) {
			never = false
			break
		}
	}
	if never {
		return candidateStates{states: []leaseState{{kind: lsAvailable}}}
	}
	c := m.fromAnchors(a, b, self, narrow)
	if !c.unknown() || narrow {
		return c
	}
	// No lease may have been held at any instant of the window.
	if locked, grace := m.possiblyLocked(a, b, self); !locked {
		return candidateStates{states: []leaseState{{kind: lsUnlocked, grace: grace}}}
	}
	return c
}

func unknownBecause(why string) candidateStates {
	return candidateStates{states: []leaseState{{kind: lsUnknown}}, why: why}
}

// leaseScanBudget bounds the operations fromAnchors looks at for one call,
// so that a history where certainty was lost long ago stays linear.
const leaseScanBudget = 4096

// whyBudget is why a call is left open when a budget ran out.
const whyBudget = "too much happened since the last certain grant"

// leaseBranchBudget bounds how many anchors fromAnchors follows for one call.
const leaseBranchBudget = 64

// fromAnchors derives the states from the anchors: the successful grants
// and deletes that may have been the latest to take effect before some
// instant of [a, b]. At that instant one of them was the latest, or none
// (the resource's initial state, available); each is followed on its own
// (fromAnchor) and the states are merged. It gives up (unknown) where an
// operation of unknown outcome may have granted another lease id.
func (m *leaseModel) fromAnchors(a, b int64, self int, narrow bool) candidateStates {
	// Anchors certainly followed by another one before a cannot be the
	// latest: keep those returned after the latest Call among the anchors
	// returned by a.
	floor := int64(checks.LsNegInf)
	if j := sort.Search(len(m.ancByRet), func(j int) bool { return m.anc[m.ancByRet[j]].ret > a }); j > 0 {
		floor = m.ancMaxCall[j-1]
	}
	var out candidateStates
	seen := map[leaseState]bool{}
	merge := func(c candidateStates) {
		for _, s := range c.states {
			if !seen[s] {
				seen[s] = true
				out.states = append(out.states, s)
			}
		}
		for _, e := range c.evidence {
			if len(out.evidence) < 4 && !containsInt(out.evidence, e) {
				out.evidence = append(out.evidence, e)
			}
		}
	}
	if floor == checks.LsNegInf {
		// No anchor certainly before the call: it may have taken effect
		// before any, on the initial state, unless an unknown grant may
		// have acted first.
		if why := m.unknownGrantBetween(checks.LsNegInf, b, "", self, narrow); why != "" {
			return unknownBecause(why)
		}
		merge(candidateStates{states: []leaseState{{kind: lsAvailable}}})
	}
	branches := 0
	lo := sort.Search(len(m.anc), func(j int) bool { return m.anc[j].call >= checks.AddBound(floor, -m.ancMaxLat) })
	for j := lo; j < len(m.anc) && m.anc[j].call < b; j++ {
		an := &m.anc[j]
		if an.ret <= floor || an.i == self {
			continue
		}
		if branches++; branches > leaseBranchBudget {
			return unknownBecause(whyBudget)
		}
		var c candidateStates
		if an.g < 0 {
			c = m.fromDelete(an, b, self, narrow)
		} else {
			c = m.fromAnchor(an.g, a, b, self, narrow)
		}
		if c.unknown() {
			return c
		}
		merge(c)
	}
	if len(out.states) == 0 {
		return unknownBecause("no grant certainly came before it")
	}
	return out
}

// unknownGrantBetween says why the state is open when a grant of unknown
// outcome of an id other than x may have taken effect in (from, to), or "".
// An unknown renew changes nothing unless its id was current, which needs
// a grant that is itself an anchor or an unknown grant. Narrow: none.
func (m *leaseModel) unknownGrantBetween(from, to int64, x string, self int, narrow bool) string {
	if narrow {
		return ""
	}
	for _, j := range m.maybes {
		e := &m.effects[j]
		if e.i == self || e.call >= to || e.end <= from {
			continue
		}
		hi, ok := m.grantOf[e.i]
		if !ok {
			continue
		}
		if h := &m.grants[hi]; h.act != laRenew && h.id != x {
			return whyUnknownGrant
		}
	}
	return ""
}

// fromDelete is the branch where a certain delete was the latest anchor:
// the resource was created again without a lease.
func (m *leaseModel) fromDelete(an *leaseAnchor, b int64, self int, narrow bool) candidateStates {
	if why := m.unknownGrantBetween(an.call, b, "", self, narrow); why != "" {
		return unknownBecause(why)
	}
	return candidateStates{states: []leaseState{{kind: lsAvailable}}, evidence: []int{an.i}}
}

// fromAnchor is the branch where grant gi was the latest anchor to take
// effect before the call: every other successful grant or delete took
// effect before it or after the call, so only its own id's releases,
// breaks, writes and operations of unknown outcome may have changed the
// state since. (A successful release of another id needs that id granted
// after gi: an anchor, or an unknown grant.)
func (m *leaseModel) fromAnchor(gi int, a, b int64, self int, narrow bool) candidateStates {
	g := &m.grants[gi]
	x := g.id
	var (
		xGrants  = []int{gi}
		xAcqEnds []int64 // when later acquires of x of unknown outcome may have taken effect
		rels     []int   // releases of x
		brks     []int   // breaks
		mods     bool    // a change of the resource without x's id
		deleted  bool    // a delete of unknown outcome
		give     bool
		why      string
	)
	budget := leaseScanBudget
	m.effectsBetween(g.call, b, func(e *leaseEffect) bool {
		if budget--; budget < 0 {
			give, why = true, whyBudget // too much happened since: not worth deciding
			return false
		}
		if e.i == g.i || e.i == self {
			return true
		}
		op := m.Op(e.i)
		act := m.sp.action(op.Kind)
		switch act {
		case laNone:
			c := m.sp.class(op.Kind)
			switch {
			case c.deletes && e.ok:
				// an anchor: before gi, or after the call
			case c.deletes:
				deleted = true
			case normLeaseID(op.In.LeaseID) != x:
				mods = true
			}
		case laAcquire, laRenew, laChange:
			hi, ok := m.grantOf[e.i]
			if !ok || e.ok || narrow {
				return true // an anchor (before gi, or after the call), or taken as not applied
			}
			h := &m.grants[hi]
			switch {
			case h.id == x:
				xGrants = append(xGrants, hi)
				if act == laAcquire {
					xAcqEnds = append(xAcqEnds, e.end)
				}
			case act == laRenew:
				// an unknown renew of another id changes nothing unless that
				// id was current, which needs a grant after gi
			default:
				give, why = true, whyUnknownGrant
			}
		case laRelease:
			if normLeaseID(op.In.LeaseID) == x {
				rels = append(rels, e.i)
			}
		case laBreak:
			brks = append(brks, e.i)
		}
		return !give
	})
	if give {
		return unknownBecause(why)
	}
	pExpMax, cExpMax := int64(checks.LsNegInf), int64(checks.LsNegInf)
	for _, hi := range xGrants {
		h := &m.grants[hi]
		pExpMax = max(pExpMax, h.pExp)
		if h.ok {
			// its certain end, which a later acquire of x with a shorter
			// duration may cut (releases and breaks are accounted below);
			// it took effect before the call, so it held from there
			e, _ := m.certainEnd(hi, self)
			cExpMax = max(cExpMax, e)
		}
	}
	leased := a < pExpMax
	expired := b > cExpMax
	grace := a < checks.AddBound(pExpMax, longestOnHarness(int64(LeaseReacquireGrace)))
	c := candidateStates{evidence: []int{g.i}}
	has := map[leaseStateKind]bool{lsLeased: leased, lsExpired: expired}
	if len(brks) > 0 {
		has[lsBroken] = true
		sure := -1
		for _, i := range brks {
			bi := m.breakOf[i]
			br := &m.breaks[bi]
			if !br.ok || a < checks.AddBound(br.ret, m.retHi(bi, m.certInf(x))) {
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
			r := m.Op(i)
			if !m.sure(i) || r.Call < g.ret || r.Return > a {
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
	if mods && (has[lsExpired] || has[lsBroken]) || deleted {
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
		return unknownBecause("no state follows from the history")
	}
	return c
}
