package lease

import (
	"fmt"
	"sort"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/consistency"
)

// LeaseProtocolName is the name scenarios use for the lease-protocol check.
const LeaseProtocolName = "lease-protocol"

func init() {
	checks.Register(LeaseProtocolName, func() checks.Checker { return NewLeaseProtocol() })
}

// LeaseProtocol checks that every blob lease call, and every blob operation
// in the presence of a lease, was answered as the documented lease state
// machine says for the state the history implies (see lease.go for the
// states, the sources and the table).
//
// The state at a call is a small set of candidates: leased or breaking while
// a lease is certainly held; available before any acquire; else derived from
// the latest successful grant and what may have happened since (releases,
// breaks, expiry, writes that make an expired lease forget its id). Where
// another lease id may have been granted in between, or the blob deleted,
// the call is not judged (counted as ambiguous). A call is a violation when
// its answer (ok, or the 409/412 error code) is allowed in none of the
// candidates. Besides:
//
//   - a successful lease call must carry its documented status (acquire
//     201, break 202, the others 200), a lease failure 409;
//   - an acquire or change must return the proposed lease id;
//   - a read sent without a lease id never needs the lease: a lease refusal
//     of it is a violation in any state;
//   - Lease Blob never changes the blob's ETag: two ETags observed (reads,
//     and lease calls, which return the blob's ETag) that differ with only
//     lease calls and no write (applied or possibly applied) between them
//     are a violation.
type LeaseProtocol struct {
	keys leaseKeys
}

// NewLeaseProtocol returns a fresh checker.
func NewLeaseProtocol() *LeaseProtocol {
	return &LeaseProtocol{keys: newLeaseKeys(blobLeaseSpace)}
}

// Name implements Checker.
func (c *LeaseProtocol) Name() string { return LeaseProtocolName }

// Observe implements Checker.
func (c *LeaseProtocol) Observe(op *checks.Op) { c.keys.observe(op) }

// Finish implements Checker.
func (c *LeaseProtocol) Finish() checks.Result {
	var v checks.Violations
	var t leaseProtoTotals
	for _, m := range c.keys.models() {
		if m.leaseCalls > 0 {
			t.keys++
		}
		m.checkProtocol(&t)
		m.checkETags(&t)
		m.flush(&v)
	}
	return t.Result(LeaseProtocolName, blobLeaseSpace, &v, "every answer matches the lease state machine")
}

// leaseProtoTotals counts what the protocol checks judged.
type leaseProtoTotals struct {
	keys                    int
	leaseJudged, dataJudged int
	ambiguous               int
	unanswered              int // calls of unknown outcome: no answer to judge
	settled                 int // lease calls of unknown outcome the history settles (acted or not)
	whileLeased             int // data calls judged while a lease was certainly held
	etagPairs               int
	why                     map[string]int // ambiguous calls by what left them open
}

// whyUnknownGrant is why most calls stay ambiguous: only a grant of unknown
// outcome nothing settles (it may have acted, or not) allows the answer.
const whyUnknownGrant = "a grant of unknown outcome may have acted"

// mostWhy names the most common reason calls were left ambiguous: ": N
// where REASON", or "".
func (t *leaseProtoTotals) mostWhy() string {
	best, n := "", 0
	for w, k := range t.why {
		if k > n || k == n && w < best {
			best, n = w, k
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf(": %d where %s", n, best)
}

func (t *leaseProtoTotals) open(why string) {
	t.ambiguous++
	if t.why == nil {
		t.why = map[string]int{}
	}
	t.why[why]++
}

func (t *leaseProtoTotals) Result(name string, sp *leaseSpace, v *checks.Violations, clean string) checks.Result {
	var b strings.Builder
	if t.keys == 0 {
		fmt.Fprintf(&b, "no %s lease calls in the history, %s judged", sp.noun, checks.Plural(t.dataJudged, sp.noun+" call", sp.noun+" calls"))
	} else {
		fmt.Fprintf(&b, "%s, %s and %s judged (%d ambiguous, not judged%s)", checks.Plural(t.keys, sp.noun, sp.nouns),
			checks.Plural(t.leaseJudged, "lease call", "lease calls"), checks.Plural(t.dataJudged, sp.noun+" call", sp.noun+" calls"), t.ambiguous, t.mostWhy())
		if t.settled > 0 {
			fmt.Fprintf(&b, ", %s of unknown outcome settled by later calls", checks.Plural(t.settled, "lease call", "lease calls"))
		}
		if t.whileLeased > 0 {
			fmt.Fprintf(&b, ", %d while certainly leased", t.whileLeased)
		}
		if sp.etag {
			fmt.Fprintf(&b, ", %s across lease calls", checks.Plural(t.etagPairs, "ETag comparison", "ETag comparisons"))
		}
	}
	switch {
	case v.Total > 0:
		fmt.Fprintf(&b, ": %s", checks.Plural(v.Total, "violation", "violations"))
	case t.keys == 0 || t.leaseJudged+t.dataJudged == 0:
		b.WriteString(": undecided")
	default:
		b.WriteString(": " + clean)
	}
	r := v.Result(name, b.String())
	if r.Verdict == checks.Pass && (t.keys == 0 || t.leaseJudged+t.dataJudged == 0) {
		r.Verdict = checks.Undecided
	}
	if t.keys == 0 {
		return r.WithDecided(0).Of(t.judgeable())
	}
	return r.WithDecided(t.WithDecided()).Of(t.judgeable())
}

// decided counts the calls judged and the lease calls of unknown outcome settled.
func (t *leaseProtoTotals) WithDecided() int { return t.leaseJudged + t.dataJudged + t.settled }

// judgeable adds the calls left open: ambiguous state, or no answer.
func (t *leaseProtoTotals) judgeable() int { return t.WithDecided() + t.ambiguous + t.unanswered }

// checkProtocol judges every lease call and every operation of the key
// against the candidate states.
func (m *leaseModel) checkProtocol(t *leaseProtoTotals) {
	for i := range m.nops() {
		op := m.Op(i)
		if act := m.sp.action(op.Kind); act != laNone {
			m.judgeLeaseCall(t, i, act)
		} else {
			m.judgeDataCall(t, i)
		}
	}
}

func (m *leaseModel) judgeLeaseCall(t *leaseProtoTotals, i int, act leaseAction) {
	op := m.Op(i)
	ans := leaseAnswer(op)
	if ans == "" {
		if !checks.MayHaveApplied(op) {
			return
		}
		if s, ok := m.settled[i]; ok && s.applied != appliedMaybe {
			t.settled++ // no answer, but the history says what it did
		} else {
			t.unanswered++ // no answer to judge: the call may have acted
		}
		return
	}
	name := fmt.Sprintf("#%d (%s", op.Seq, op.Kind)
	if op.In.LeaseID != "" {
		name += " lease=" + leaseShortID(normLeaseID(op.In.LeaseID))
	}
	if op.In.ProposedLeaseID != "" {
		name += " proposed=" + leaseShortID(normLeaseID(op.In.ProposedLeaseID))
	}
	name += ")"
	switch {
	case ans == lsOK && op.Out.Status != 0 && op.Out.Status != leaseOKStatus[act]:
		m.flag(i, kindWrongStatus, fmt.Sprintf("%s succeeded with status %d; Lease %s %s answers %d",
			name, op.Out.Status, strings.ToUpper(m.sp.noun[:1])+m.sp.noun[1:], leaseActionNames[act], leaseOKStatus[act]), m.evidenceOps(i))
		return
	case ans != lsOK && isLeaseOpCode(op.Out.ErrorCode) && op.Out.Status != 0 && op.Out.Status != 409:
		m.flag(i, kindWrongStatus, fmt.Sprintf("%s failed with %d %s; lease call failures are 409", name, op.Out.Status, op.Out.ErrorCode),
			m.evidenceOps(i))
		return
	}
	if ans == lsOK && (act == laAcquire || act == laChange) && op.Out.Value != "" {
		want := normLeaseID(op.In.LeaseID)
		if act == laChange {
			want = normLeaseID(op.In.ProposedLeaseID)
		}
		if got := normLeaseID(op.Out.Value); want != "" && got != want {
			m.flag(i, kindWrongLeaseID, fmt.Sprintf("%s returned lease id %s, not the proposed %s", name, leaseShortID(got), leaseShortID(want)),
				m.evidenceOps(i))
			return
		}
	}
	x, p := normLeaseID(op.In.LeaseID), normLeaseID(op.In.ProposedLeaseID)
	c, allowed, ok := m.judgeAnswer(t, i, ans, func(s leaseState) []string { return leaseAllowed(s, act, x, p) })
	if ok {
		return
	}
	how := "may have been"
	if len(c.states) == 1 {
		how = "was"
	}
	m.flag(i, kindWrongState, fmt.Sprintf("%s was answered %s while the lease %s %s; the documented answer there is %s",
		name, consistency.Answer(op), how, c, describeAllowed(allowed, act, 409)),
		m.evidenceOps(i, c.evidence...))
}

// judgeAnswer judges the answer ans of call i against the states the
// history allows, counting it in t. First in the narrow reading (grants of
// unknown outcome nothing settles taken as not applied): an answer allowed
// there is allowed in every reading, judged. Else in the full one: an
// answer allowed there only because such a grant may have acted is
// ambiguous (an unknown outcome may excuse an answer, never convict one),
// as is one judged against an unknown state; one allowed nowhere is a
// violation: ok false, with the states and the answers allowed there.
func (m *leaseModel) judgeAnswer(t *leaseProtoTotals, i int, ans string, allowedIn func(leaseState) []string) (c candidateStates, allowed []string, ok bool) {
	op := m.Op(i)
	c = m.candidates(op.Call, op.Return, i, true)
	if !c.unknown() {
		if allowed = allowedInAny(c, allowedIn); allowed != nil && answerAllowed(allowed, ans) {
			t.judged(m, i, c, allowed)
			return c, allowed, true
		}
	}
	c = m.candidates(op.Call, op.Return, i, false)
	if c.unknown() {
		t.open(c.why)
		return c, nil, true
	}
	allowed = allowedInAny(c, allowedIn)
	switch {
	case allowed == nil:
		t.open("the state it may have met has no documented answer")
		return c, nil, true
	case answerAllowed(allowed, ans):
		t.open(whyUnknownGrant)
		return c, allowed, true
	}
	t.judged(m, i, c, allowed)
	return c, allowed, false
}

// judged counts a judged call.
func (t *leaseProtoTotals) judged(m *leaseModel, i int, c candidateStates, allowed []string) {
	if m.sp.action(m.Op(i).Kind) != laNone {
		t.leaseJudged++
	} else {
		t.dataJudged++
		if c.certain {
			t.whileLeased++
		}
	}
}

func (m *leaseModel) judgeDataCall(t *leaseProtoTotals, i int) {
	op := m.Op(i)
	cl := m.sp.class(op.Kind)
	if !cl.known {
		return
	}
	ans := dataAnswer(op)
	if ans == "" {
		if checks.MayHaveApplied(op) && cl.modifies {
			t.unanswered++ // (a read without an answer says nothing, and did nothing)
		}
		return
	}
	x := normLeaseID(op.In.LeaseID)
	name := fmt.Sprintf("#%d (%s", op.Seq, op.Kind)
	if x != "" {
		name += " lease=" + leaseShortID(x)
	} else {
		name += " without lease id"
	}
	name += ")"
	if x == "" && !cl.enforced {
		t.dataJudged++
		if ans != lsOK {
			what := "a read never needs the lease"
			if m.sp == containerLeaseSpace {
				what = "only Delete Container needs the lease"
			}
			m.flag(i, kindOverEnforced, fmt.Sprintf("%s was refused (%s): %s, the service over-enforced it", name, consistency.Answer(op), what),
				m.evidenceOps(i))
		}
		return
	}
	c, allowed, ok := m.judgeAnswer(t, i, ans, func(s leaseState) []string { return m.sp.dataAllowed(s, cl, x) })
	if ok {
		return
	}
	how := "may have been"
	if len(c.states) == 1 {
		how = "was"
	}
	m.flag(i, kindWrongState, fmt.Sprintf("%s was answered %s while the lease %s %s; the documented answer there is %s",
		name, consistency.Answer(op), how, c, describeAllowed(allowed, laNone, 412)),
		m.evidenceOps(i, c.evidence...))
}

// checkETags flags an ETag change across lease calls alone (Lease Blob does
// not change the ETag). Observations are successful reads and lease calls
// that returned an ETag; for each, the one that returned last before it was
// sent is compared; any write that may have taken effect between them (an
// unknown one: any time after it was sent) excuses the difference.
func (m *leaseModel) checkETags(t *leaseProtoTotals) {
	if !m.sp.etag {
		return
	}
	var obs, writes, leases []int
	for i := range m.nops() {
		op := m.Op(i)
		act := m.sp.action(op.Kind)
		if act != laNone {
			leases = append(leases, i)
		}
		c := m.sp.class(op.Kind)
		if op.Outcome == checks.OK && op.Out.ETag != "" && (act != laNone || c.observes) {
			obs = append(obs, i)
		}
		if act == laNone && c.modifies && appliedOf(op) != appliedNo {
			writes = append(writes, i)
		}
	}
	if len(obs) < 2 {
		return
	}
	byCall := func(l []int) {
		sort.SliceStable(l, func(a, b int) bool { return m.Op(l[a]).Call < m.Op(l[b]).Call })
	}
	byCall(writes)
	byCall(leases)
	wMax := make([]int64, len(writes)) // prefix max of the time each write may take effect until
	for j, i := range writes {
		e := effectEnd(m.Op(i), appliedOf(m.Op(i)))
		if j > 0 {
			e = max(e, wMax[j-1])
		}
		wMax[j] = e
	}
	byRet := append([]int(nil), obs...)
	sort.SliceStable(byRet, func(a, b int) bool { return m.Op(byRet[a]).Return < m.Op(byRet[b]).Return })
	byCall(obs)
	prev, r := -1, 0 // prev: the observation returned last before the current one was sent
	for _, o2 := range obs {
		b := m.Op(o2)
		for ; r < len(byRet) && m.Op(byRet[r]).Return <= b.Call; r++ {
			if prev < 0 || m.Op(byRet[r]).Return >= m.Op(prev).Return {
				prev = byRet[r]
			}
		}
		if prev < 0 {
			continue
		}
		a := m.Op(prev)
		j := sort.Search(len(writes), func(j int) bool { return m.Op(writes[j]).Call >= b.Return })
		if j > 0 && wMax[j-1] > a.Call {
			continue // a write may have taken effect in between
		}
		lease := -1
		switch {
		case m.sp.action(a.Kind) != laNone:
			lease = prev
		case m.sp.action(b.Kind) != laNone:
			lease = o2
		default:
			for _, l := range leases {
				if lo := m.Op(l); lo.Call < b.Return && lo.Return > a.Call {
					lease = l
					break
				}
			}
		}
		if lease < 0 {
			continue // no lease call involved: other checkers judge reads
		}
		t.etagPairs++
		if a.Out.ETag != b.Out.ETag {
			m.flag(o2, kindLeaseETag, fmt.Sprintf("the ETag changed from %s (#%d) to %s (#%d) with only lease calls in between (e.g. #%d, %s); Lease %s never changes the ETag",
				a.Out.ETag, a.Seq, b.Out.ETag, b.Seq, m.Op(lease).Seq, m.Op(lease).Kind, strings.ToUpper(m.sp.noun[:1])+m.sp.noun[1:]),
				m.evidenceOps(o2, prev, lease))
		}
	}
}
