package lease

import (
	"sort"

	"github.com/stormcheck/stormcheck/checks"
)

// Settling grants of unknown outcome (an acquire, change or renew whose
// answer was lost) from the rest of the history, the way a read settles a
// write of unknown outcome (CHECKERS.md, unknown outcomes).
//
// The lease id is the client's, so the history says whether it was granted:
//
//   - granted: a later call that succeeds only while that id is the lease
//     (a renew, release or change with it, a read or write sent with it)
//     shows it, when no other call could have granted the id first; the
//     grant then took effect before that call returned;
//   - refuted: a lease granted at t is held over (t, t + d(1-rho)) unless a
//     release, change or break of it, an acquire of the same id or a delete
//     of the resource may have acted in between. An answer the service
//     cannot give while the lease is held (another id's grant, a renew with
//     the id refused, a write without the lease id accepted, a break
//     refused) certainly inside that span rules t out. The earliest instant
//     not ruled out is when the grant may have taken effect at the soonest;
//     if none is left before the latest it may take effect
//     (LeaseUnknownHorizon), it never did.
//
// What is settled narrows the model: a grant shown taken takes effect in
// [earliest, shown], as a successful one; one ruled out is left out; the
// rest may take effect from the earliest instant on. Narrowing only makes
// fewer answers allowed; it never excuses one.

// settlement is what the history says of one operation of unknown outcome.
type settlement struct {
	applied  effectApplied
	from, to int64 // when it took effect (appliedSure) or may have (appliedMaybe)
}

// leaseWitness is an answer the service cannot give while some lease is
// held: against every id but those it names (others), or only against the
// ids it names (own).
type leaseWitness struct {
	call, ret int64
	ids       [2]string
}

func (w *leaseWitness) names(id string) bool { return id != "" && (w.ids[0] == id || w.ids[1] == id) }

// leaseCutter is an operation that may end or shorten a lease before its
// time: a release or change of it, an acquire of the same id, a break, a
// delete. end is the latest it may take effect.
type leaseCutter struct {
	call, end int64
	i         int // op index
}

// settleBudget bounds the steps settle takes for one grant.
const settleBudget = 1 << 12

// settle computes m.settled for the grants of unknown outcome.
func (m *leaseModel) settle() {
	var (
		sources []int          // ops of unknown outcome that may grant
		others  []leaseWitness // by call
		own     = map[string][]leaseWitness{}
		shared  []leaseCutter // breaks and deletes
		cutters = map[string][]leaseCutter{}
		granted = map[string][]int{}         // acquires and changes that may grant the id, by call
		shows   = map[string][]leaseCutter{} // successful calls that need the id to be the lease (call, ret)
		held    = map[string][]int{}         // successful grants of the id (acquire, renew, change to it)
		ends    []int                        // releases and renews of unknown outcome
	)
	for i := range m.nops() {
		op := m.Op(i)
		a := appliedOf(op)
		act := m.sp.action(op.Kind)
		x := normLeaseID(op.In.LeaseID)
		end := effectEnd(op, a)
		if act == laNone {
			c := m.sp.class(op.Kind)
			if c.deletes && a != appliedNo {
				shared = append(shared, leaseCutter{call: op.Call, end: end, i: i})
			}
			if !c.known || a == appliedMaybe {
				continue
			}
			ans := dataAnswer(op)
			switch {
			case ans == lsOK && x != "":
				others = append(others, leaseWitness{call: op.Call, ret: op.Return, ids: [2]string{x}})
				shows[x] = append(shows[x], leaseCutter{call: op.Call, end: op.Return})
			case ans == lsOK && c.enforced:
				others = append(others, leaseWitness{call: op.Call, ret: op.Return})
			case ans != "" && ans != lsOK && x != "" && (ans == m.sp.mismatch || ans == m.sp.notPresent || ans == lcLeaseLost):
				own[x] = append(own[x], leaseWitness{call: op.Call, ret: op.Return, ids: [2]string{x}})
			}
			continue
		}
		if a == appliedMaybe && act != laRelease && act != laBreak {
			sources = append(sources, i)
		}
		if a == appliedMaybe && (act == laRelease || act == laRenew) {
			ends = append(ends, i)
		}
		if a == appliedSure && act != laRelease && act != laBreak {
			id := x
			if act != laRenew {
				id = leaseGrantID(op, act)
			}
			held[id] = append(held[id], i)
		}
		switch act {
		case laAcquire, laChange:
			id := leaseGrantID(op, act)
			if a != appliedNo {
				granted[id] = append(granted[id], i)
				if act == laAcquire {
					cutters[id] = append(cutters[id], leaseCutter{call: op.Call, end: end, i: i})
				}
			}
			if act == laChange && a != appliedNo && x != id {
				cutters[x] = append(cutters[x], leaseCutter{call: op.Call, end: end, i: i})
			}
		case laRelease:
			if a != appliedNo {
				cutters[x] = append(cutters[x], leaseCutter{call: op.Call, end: end, i: i})
			}
		case laBreak:
			if a != appliedNo {
				shared = append(shared, leaseCutter{call: op.Call, end: end, i: i})
			}
		}
		if a == appliedMaybe {
			continue
		}
		ans := leaseAnswer(op)
		switch {
		case ans == lsOK && act == laBreak:
		case ans == lsOK:
			// the named id is (or becomes) the lease: no other id is held
			id := x
			if act == laAcquire {
				id = leaseGrantID(op, act)
			}
			w := leaseWitness{call: op.Call, ret: op.Return, ids: [2]string{id}}
			if act == laChange {
				w.ids[1] = leaseGrantID(op, act)
			}
			others = append(others, w)
			if act == laRenew || act == laRelease {
				// (a change also succeeds when its proposed id is the lease)
				shows[x] = append(shows[x], leaseCutter{call: op.Call, end: op.Return})
			}
		case ans == "":
		case act == laBreak:
			if ans == lcNotPresentLeaseOp {
				others = append(others, leaseWitness{call: op.Call, ret: op.Return})
			}
		case isLeaseOpCode(ans) && ans != lcBrokenNoRenew && ans != lcBreakingNoAcquire && ans != lcBreakingNoChange:
			// refused while naming the id: it was not the held lease
			id := x
			if act == laAcquire {
				id = leaseGrantID(op, act)
			}
			own[id] = append(own[id], leaseWitness{call: op.Call, ret: op.Return, ids: [2]string{id}})
		}
	}
	if len(sources)+len(ends) == 0 {
		return
	}
	byCall := func(l []leaseWitness) {
		sort.SliceStable(l, func(a, b int) bool { return l[a].call < l[b].call })
	}
	byCall(others)
	for _, l := range own {
		byCall(l)
	}
	sc := newCutIndex(shared)
	m.settled = map[int]settlement{}
	for _, i := range sources {
		op := m.Op(i)
		act := m.sp.action(op.Kind)
		id := leaseGrantID(op, act)
		if act == laRenew {
			id = normLeaseID(op.In.LeaseID)
		}
		if id == "" {
			continue
		}
		end := effectEnd(op, appliedMaybe)
		d := int64(checks.LsInf) // how long a grant at t certainly holds
		if act == laAcquire {
			d = 15 * checks.LsSecond
			if v, ok := validDuration(op.In.LeaseDuration); ok {
				d = v
			}
			d = shortestOnHarness(d)
		} else if act == laRenew {
			d = shortestOnHarness(15 * checks.LsSecond) // a renew keeps the lease's duration, at least 15 s
		}
		var idCuts []leaseCutter
		for _, c := range cutters[id] {
			if c.i != i { // not the source itself
				idCuts = append(idCuts, c)
			}
		}
		t := op.Call
		if act != laChange { // a change keeps the old lease's expiry: nothing certain
			t = m.earliestGrant(t, d, id, sc, idCuts, others, own[id])
		}
		s := settlement{applied: appliedMaybe, from: t, to: end}
		if act != laRenew {
			// shown granted by a call that needs it, with no other grant of
			// the id before
			for _, p := range shows[id] {
				if p.end <= op.Call || s.applied == appliedSure && p.end >= s.to {
					continue
				}
				sole := true
				for _, j := range granted[id] {
					if j != i && m.Op(j).Call < p.end {
						sole = false
						break
					}
				}
				if sole {
					s.applied, s.to = appliedSure, min(s.to, p.end)
				}
			}
			if s.applied == appliedSure && s.from > s.to {
				s.from = op.Call // contradicting evidence: keep the plain bounds
			}
		}
		if s.applied == appliedMaybe && s.from > s.to {
			s.applied = appliedNo
		}
		m.settled[i] = s
	}
	m.settleEnds(ends, granted, shows, held, own, cutters, shared)
}

// settleEnds settles the releases and renews of unknown outcome:
//
//   - of an id no call may have granted, they did nothing;
//   - a release did nothing when a later call that needs its id to be the
//     lease succeeded after it could no longer act, with no grant of the id
//     in between; it released the lease when a later call naming the id
//     was refused while, but for it, the lease was certainly held;
//   - a renew while the lease was certainly held succeeded.
//
// "Certainly held" is a successful grant of the id with its shortest
// duration not yet over and nothing else that may end the lease (a
// release, change or acquire of the id, a break, a delete) in between.
func (m *leaseModel) settleEnds(ends []int, granted map[string][]int, shows map[string][]leaseCutter, held map[string][]int,
	own map[string][]leaseWitness, cutters map[string][]leaseCutter, shared []leaseCutter) {
	mayGrant := func(id string) bool {
		for _, j := range granted[id] {
			if s, ok := m.settled[j]; !ok || s.applied != appliedNo {
				return true
			}
		}
		return false
	}
	// certain reports whether id was certainly held over [from, to] but
	// for op skip: by a successful grant returned by from.
	certain := func(id string, from, to int64, skip int) bool {
		g := -1
		for _, j := range held[id] {
			if o := m.Op(j); o.Return <= from && (g < 0 || o.Call > m.Op(g).Call) {
				g = j
			}
		}
		if g < 0 {
			return false
		}
		o := m.Op(g)
		d := shortestOnHarness(15 * checks.LsSecond)
		if v, ok := validDuration(o.In.LeaseDuration); ok && m.sp.action(o.Kind) == laAcquire {
			d = shortestOnHarness(v)
		}
		if checks.AddBound(o.Call, d) <= to {
			return false
		}
		for _, l := range [][]leaseCutter{cutters[id], shared} {
			for _, c := range l {
				if c.i != skip && c.i != g && c.call < to && c.end > o.Call {
					return false
				}
			}
		}
		return true
	}
	for _, i := range ends {
		op := m.Op(i)
		x := normLeaseID(op.In.LeaseID)
		end := effectEnd(op, appliedMaybe)
		if !mayGrant(x) {
			m.settled[i] = settlement{applied: appliedNo}
			continue
		}
		if m.sp.action(op.Kind) == laRenew {
			if end < checks.LsInf && certain(x, op.Call, end, i) {
				m.settled[i] = settlement{applied: appliedSure, from: op.Call, to: end}
			}
			continue
		}
		for _, p := range shows[x] {
			if p.call < end {
				continue
			}
			regranted := false
			for _, j := range granted[x] {
				if o := m.Op(j); o.Call < p.end && effectEnd(o, appliedOf(o)) > op.Call {
					regranted = true
				}
			}
			if !regranted {
				m.settled[i] = settlement{applied: appliedNo}
				break
			}
		}
		if _, done := m.settled[i]; done || end == checks.LsInf {
			continue
		}
		for _, w := range own[x] {
			if w.call >= end && certain(x, op.Call, w.ret, i) {
				m.settled[i] = settlement{applied: appliedSure, from: op.Call, to: end}
				break
			}
		}
	}
}

// earliestGrant returns the earliest instant from t on at which a grant of
// id holding at least d may have taken effect: each step skips to the call
// of the latest witness certainly inside the span the grant would have
// certainly held.
func (m *leaseModel) earliestGrant(t, d int64, id string, sc *cutIndex, idCuts []leaseCutter, others []leaseWitness, own []leaseWitness) int64 {
	for range settleBudget {
		e := checks.AddBound(t, d-1)
		e = min(e, sc.next(t))
		for _, c := range idCuts {
			if c.end >= t {
				e = min(e, c.call)
			}
		}
		if e <= t {
			return t
		}
		best := int64(checks.LsNegInf)
		for li, l := range [][]leaseWitness{others, own} {
			k := sort.Search(len(l), func(k int) bool { return l[k].call >= e })
			for k--; k >= 0 && l[k].call > t; k-- {
				if w := &l[k]; w.ret <= e && (li == 1 || !w.names(id)) {
					best = max(best, w.call)
					break
				}
			}
		}
		if best <= t {
			return t
		}
		t = best
	}
	return t
}

// cutIndex answers "the earliest call among the cutters that may take
// effect at or after t".
type cutIndex struct {
	ends    []int64 // cutters' ends, ascending
	sufCall []int64 // sufCall[j]: the earliest call among cutters j..
}

func newCutIndex(cs []leaseCutter) *cutIndex {
	sort.SliceStable(cs, func(a, b int) bool { return cs[a].end < cs[b].end })
	x := &cutIndex{ends: make([]int64, len(cs)), sufCall: make([]int64, len(cs)+1)}
	x.sufCall[len(cs)] = checks.LsInf
	for j := len(cs) - 1; j >= 0; j-- {
		x.ends[j] = cs[j].end
		x.sufCall[j] = min(x.sufCall[j+1], cs[j].call)
	}
	return x
}

func (x *cutIndex) next(t int64) int64 {
	j := sort.Search(len(x.ends), func(j int) bool { return x.ends[j] >= t })
	return x.sufCall[j]
}
