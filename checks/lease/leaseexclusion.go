package lease

import (
	"fmt"
	"sort"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
)

// LeaseExclusionName is the name scenarios use for the lease-exclusion check.
const LeaseExclusionName = "lease-exclusion"

func init() {
	checks.Register(LeaseExclusionName, func() checks.Checker { return NewLeaseExclusion() })
}

// LeaseExclusion checks that a blob lease excludes: per blob, from the
// certainly- and possibly-held windows of every lease id (see lease.go),
//
//   - two holders: a grant (acquire, renew, or change to a new id) of one
//     lease id succeeded entirely inside another id's certainly-held window
//     (this includes an acquire during the other lease's break period);
//   - a stale holder: a write sent with lease id L was accepted while L was
//     certainly not held: before any grant of L could have taken effect, or
//     after L certainly expired, was released, changed, broken (its break
//     period over) or replaced by another id's grant;
//   - no holder: a write sent without a lease id was accepted while some
//     lease was certainly held.
//
// Writes are blob.put, blob.create, blob.commit, blob.setmeta,
// blob.setprops, blob.stage (Put Block) and blob.delete. Unknown outcomes
// only widen the possibly-held windows. The counter the holders increment
// under the lease is a second witness, judged by no-lost-updates.
type LeaseExclusion struct {
	keys leaseKeys
}

// NewLeaseExclusion returns a fresh checker.
func NewLeaseExclusion() *LeaseExclusion {
	return &LeaseExclusion{keys: newLeaseKeys(blobLeaseSpace)}
}

// Name implements Checker.
func (c *LeaseExclusion) Name() string { return LeaseExclusionName }

// Observe implements Checker.
func (c *LeaseExclusion) Observe(op *checks.Op) { c.keys.observe(op) }

// Finish implements Checker.
func (c *LeaseExclusion) Finish() checks.Result {
	var v checks.Violations
	var t leaseExclTotals
	for _, m := range c.keys.models() {
		m.checkExclusion(&t)
		m.flush(&v)
	}
	r := v.Result(LeaseExclusionName, t.summary(blobLeaseSpace, v.Total, "no two holders"))
	if r.Verdict == checks.Pass && t.acquired == 0 {
		r.Verdict = checks.Undecided
	}
	decided := t.acquired + t.refuted + t.breaks + t.expiries + t.writes
	if t.acquired == 0 {
		return r.WithDecided(0).Of(decided + t.open)
	}
	return r.WithDecided(decided).Of(decided + t.open)
}

// The kinds of lease violations (Violation.Kind).
const (
	kindTwoHolders   = "two holders"
	kindNoHolder     = "no holder"
	kindStaleHolder  = "stale holder"
	kindWrongState   = "answer the lease state does not allow"
	kindOverEnforced = "refused without need of the lease"
	kindWrongStatus  = "wrong status"
	kindWrongLeaseID = "wrong lease id returned"
	kindLeaseETag    = "ETag changed by lease calls"
)

// leaseExclTotals counts what the exclusion checks covered.
type leaseExclTotals struct {
	keys, acquired, breaks, expiries, writes int
	noDuration                               int
	open                                     int // acquires, breaks and lease-enforced writes of unknown outcome
	settled                                  int // acquires of unknown outcome the history settles: granted (counted in acquired) ...
	refuted                                  int // ... or not
}

func (t *leaseExclTotals) summary(sp *leaseSpace, nviol int, clean string) string {
	var b strings.Builder
	if t.keys == 0 {
		fmt.Fprintf(&b, "no %s lease calls in the history, %s", sp.noun, checks.Plural(t.writes, "write", "writes"))
	} else {
		fmt.Fprintf(&b, "%s, %s, %s, %s, %s", checks.Plural(t.keys, sp.noun, sp.nouns),
			checks.Plural(t.acquired, "acquisition", "acquisitions"), checks.Plural(t.breaks, "break", "breaks"),
			checks.Plural(t.expiries, "expiry", "expiries"), checks.Plural(t.writes, "write", "writes"))
	}
	switch {
	case nviol > 0:
		fmt.Fprintf(&b, ": %s", checks.Plural(nviol, "violation", "violations"))
	case t.keys == 0:
		b.WriteString(": undecided")
	case t.acquired == 0:
		b.WriteString(": undecided, no acquisition succeeded")
	default:
		b.WriteString(": " + clean)
	}
	if t.settled > 0 {
		fmt.Fprintf(&b, " (%s of unknown outcome settled by later calls: %d granted, %d not)",
			checks.Plural(t.settled, "acquisition", "acquisitions"), t.settled-t.refuted, t.refuted)
	}
	if t.noDuration > 0 {
		fmt.Fprintf(&b, " (no duration recorded for %s: 15 s to infinite assumed)", checks.Plural(t.noDuration, "acquisition", "acquisitions"))
	}
	return b.String()
}

// checkExclusion runs the three exclusion checks on one key. For blobs the
// judged writes are the enforced kinds; for containers also the other
// container operations sent with a lease id (they succeed only with the
// active lease's id).
func (m *leaseModel) checkExclusion(t *leaseExclTotals) {
	if m.leaseCalls > 0 {
		t.keys++
	}
	lastCall := int64(checks.LsNegInf)
	for i := range m.nops() {
		lastCall = max(lastCall, m.Op(i).Call)
	}
	for gi := range m.grants {
		g := &m.grants[gi]
		if !g.ok {
			if g.act == laAcquire {
				t.open++
			}
			continue
		}
		if g.act == laAcquire {
			t.acquired++
			if d := m.Op(g.i).In.LeaseDuration; d != -1 && (d < 15 || d > 60) {
				t.noDuration++
			}
		}
		if m.expired(gi, lastCall) {
			t.expiries++
		}
	}
	for i, s := range m.settled {
		if m.sp.action(m.Op(i).Kind) != laAcquire || s.applied == appliedMaybe {
			continue
		}
		t.settled++
		if s.applied == appliedNo {
			t.refuted++
		}
	}
	for bi := range m.breaks {
		if m.breaks[bi].ok {
			t.breaks++
		} else {
			t.open++
		}
	}

	// Two holders, and writes without a lease id under a certain lease: one
	// sweep over the certainly-held windows by start.
	type query struct {
		i, g      int // op index; grant index or -1 for a write
		call, ret int64
		id        string
	}
	var qs []query
	for gi := range m.grants {
		if g := &m.grants[gi]; g.ok {
			qs = append(qs, query{i: g.i, g: gi, call: g.call, ret: g.ret, id: g.id})
		}
	}
	for i := range m.nops() {
		op := m.Op(i)
		c := m.sp.class(op.Kind)
		if m.sp.action(op.Kind) != laNone || !c.known || op.Outcome != checks.OK {
			if m.sp.action(op.Kind) == laNone && c.known && c.enforced && checks.MayHaveApplied(op) {
				t.open++
			}
			continue
		}
		id := normLeaseID(op.In.LeaseID)
		if c.enforced {
			t.writes++
		}
		switch {
		case id == "" && c.deletes:
			m.unheldDelete(i)
		case id == "" && c.enforced:
			qs = append(qs, query{i: i, g: -1, call: op.Call, ret: op.Return})
		case id != "":
			m.staleHolder(i, id)
		}
	}
	sort.SliceStable(qs, func(a, b int) bool { return qs[a].call < qs[b].call })
	best, second := -1, -1 // windows with the latest ends; second's id differs from best's
	w := 0
	for _, q := range qs {
		for ; w < len(m.wins) && m.wins[w].start <= q.call; w++ {
			win := &m.wins[w]
			switch {
			case best < 0 || win.end > m.wins[best].end:
				if best >= 0 && m.wins[best].id != win.id {
					second = best
				}
				best = w
			case win.id != m.wins[best].id && (second < 0 || win.end > m.wins[second].end):
				second = w
			}
		}
		var hit *lockWindow
		for _, c := range []int{best, second} {
			if c >= 0 && m.wins[c].end >= q.ret && (q.g < 0 || m.wins[c].id != q.id) {
				hit = &m.wins[c]
				break
			}
		}
		if hit == nil {
			continue
		}
		h := &m.grants[hit.g]
		op := m.Op(q.i)
		if q.g >= 0 {
			m.flag(q.i, kindTwoHolders, fmt.Sprintf("two holders: #%d (%s) was granted lease %s while lease %s, granted by #%d, was certainly held until %s",
				op.Seq, op.Kind, leaseShortID(q.id), leaseShortID(hit.id), m.Op(h.i).Seq, checks.FmtHarnessTime(hit.end)),
				m.evidenceOps(q.i, h.i))
		} else {
			m.flag(q.i, kindNoHolder, fmt.Sprintf("no holder: #%d (%s) without a lease id was accepted while lease %s, granted by #%d, was certainly held until %s; it must be refused with 412 %s",
				op.Seq, op.Kind, leaseShortID(hit.id), m.Op(h.i).Seq, checks.FmtHarnessTime(hit.end), lcIDMissing),
				m.evidenceOps(q.i, h.i))
		}
	}
}

// unheldDelete judges a delete accepted without a lease id. A delete ends
// every lease, so the windows are recomputed without it.
func (m *leaseModel) unheldDelete(i int) {
	op := m.Op(i)
	for _, gi := range m.okByRet {
		g := &m.grants[gi]
		if g.ret > op.Call {
			break
		}
		if end, _ := m.certainEnd(gi, i); end >= op.Return {
			m.flag(i, kindNoHolder, fmt.Sprintf("no holder: #%d (%s) without a lease id was accepted while lease %s, granted by #%d, was certainly held until %s; it must be refused with 412 %s",
				op.Seq, op.Kind, leaseShortID(g.id), m.Op(g.i).Seq, checks.FmtHarnessTime(end), lcIDMissing),
				m.evidenceOps(i, g.i))
			return
		}
	}
}

// staleHolder judges an accepted operation sent with lease id id: some grant
// of id must possibly have been held during it.
func (m *leaseModel) staleHolder(i int, id string) {
	op := m.Op(i)
	ids := m.byID[id]
	k := sort.Search(len(ids), func(k int) bool { return m.grants[ids[k]].call > op.Return })
	last := -1 // the grant of id sent before the op returned whose possible window ends last
	if k > 0 {
		last = m.pLast(id)[k-1]
		if m.grants[last].pEnd >= op.Call {
			return
		}
	}
	if last < 0 {
		first := -1
		if l := m.byID[id]; len(l) > 0 {
			first = m.grants[l[0]].i
		}
		m.flag(i, kindStaleHolder, fmt.Sprintf("stale holder: #%d (%s) with lease %s was accepted before any grant of that lease could have taken effect; it must be refused with 412",
			op.Seq, op.Kind, leaseShortID(id)), m.evidenceOps(i, first))
		return
	}
	g := &m.grants[last]
	why := fmt.Sprintf("after it certainly expired (granted by #%d, possibly held until %s)", m.Op(g.i).Seq, checks.FmtHarnessTime(g.pEnd))
	if g.pBy >= 0 {
		by := m.Op(g.pBy)
		switch act := m.sp.action(by.Kind); {
		case act == laRelease:
			why = fmt.Sprintf("after #%d released it", by.Seq)
		case act == laChange && normLeaseID(by.In.LeaseID) == id:
			why = fmt.Sprintf("after #%d changed it to %s", by.Seq, leaseShortID(leaseGrantID(by, act)))
		case act == laBreak:
			why = fmt.Sprintf("after #%d broke it (possibly held until %s)", by.Seq, checks.FmtHarnessTime(g.pEnd))
		case act == laAcquire || act == laRenew || act == laChange:
			why = fmt.Sprintf("after #%d was granted lease %s", by.Seq, leaseShortID(leaseGrantID(by, act)))
		default:
			why = fmt.Sprintf("after #%d (%s) removed it", by.Seq, by.Kind)
		}
	}
	m.flag(i, kindStaleHolder, fmt.Sprintf("stale holder: #%d (%s) with lease %s was accepted %s; it must be refused with 412 once the lease is gone",
		op.Seq, op.Kind, leaseShortID(id), why), m.evidenceOps(i, g.i, g.pBy))
}

// pLast returns, for each prefix of id's grants (in Call order), the grant
// whose possibly-held window ends last.
func (m *leaseModel) pLast(id string) []int {
	if l, ok := m.pLastByID[id]; ok {
		return l
	}
	ids := m.byID[id]
	l := make([]int, len(ids))
	for k, gi := range ids {
		l[k] = gi
		if k > 0 && m.grants[l[k-1]].pEnd >= m.grants[gi].pEnd {
			l[k] = l[k-1]
		}
	}
	m.pLastByID[id] = l
	return l
}

// expired reports whether a successful grant's lease ran out: finite, and
// nothing renewed, released, changed, broke or deleted it before it may
// have expired, while the history went on past that.
func (m *leaseModel) expired(gi int, lastCall int64) bool {
	g := &m.grants[gi]
	if g.pExp == checks.LsInf || lastCall <= g.pExp {
		return false
	}
	ids := m.byID[g.id]
	for k := sort.Search(len(ids), func(k int) bool { return m.grants[ids[k]].call > g.call }); k < len(ids); k++ {
		if ids[k] != gi {
			if m.grants[ids[k]].call <= g.pExp {
				return false
			}
			break
		}
	}
	for _, x := range []*leaseEndIndex{m.endIdx[g.id], m.endIdx["*"]} {
		if x == nil {
			continue
		}
		if j := sort.Search(len(x.list), func(j int) bool { return x.list[j].call > g.call }); j < len(x.list) && x.list[j].call <= g.pExp {
			return false
		}
	}
	if j := sort.Search(len(m.brk.calls), func(j int) bool { return m.brk.calls[j] > g.call }); j < len(m.brk.calls) && m.brk.calls[j] <= g.pExp {
		return false
	}
	return true
}
