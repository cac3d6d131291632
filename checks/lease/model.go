package lease

import (
	"fmt"
	"sort"

	"github.com/stormcheck/stormcheck/checks"
)

// The model of one resource: grants, ends and breaks of leases, and its construction from the recorded operations.

// --- the model of one key ---

type effectApplied uint8

const (
	appliedNo effectApplied = iota
	appliedMaybe
	appliedSure
)

func appliedOf(op *checks.Op) effectApplied {
	switch {
	case op.Outcome == checks.OK:
		return appliedSure
	case checks.MayHaveApplied(op):
		return appliedMaybe
	}
	return appliedNo
}

// effectEnd is the latest time an operation may take effect: its Return if
// it certainly did or the target ended it (Output.Done), else (unknown)
// unbounded or LeaseUnknownHorizon later.
func effectEnd(op *checks.Op, a effectApplied) int64 {
	if a == appliedSure || op.Out.Done {
		return op.Return
	}
	if LeaseUnknownHorizon > 0 {
		return checks.AddBound(op.Return, int64(LeaseUnknownHorizon))
	}
	return checks.LsInf
}

// leaseGrant is a call that may have granted (or renewed) a lease id.
type leaseGrant struct {
	i          int // index in the model's ops
	id         string
	src        string // a change's old id
	act        leaseAction
	ok         bool
	call, ret  int64 // ret: effectEnd
	cExp, pExp int64 // expiry bounds, before any release, change or break
	cEnd, pEnd int64 // the certainly- and possibly-held windows' ends
	cBy, pBy   int   // op index that cut cEnd / pEnd short, or -1 (expiry)
	dMin       int64 // the duration it gives the lease (grantDur), shortest
}

// leaseEnd is a call that may have ended a lease id: a release, a change (of its
// old id), or a delete of the resource (id "*").
type leaseEnd struct {
	i         int
	id        string
	ok        bool
	call, ret int64
}

type leaseBreak struct {
	i                 int
	ok                bool
	call, ret         int64
	period, leaseTime *int
}

// leaseEndIndex answers "the earliest end sent at or after t" and "an end
// that may have taken effect after t though sent before it" for one id.
type leaseEndIndex struct {
	list     []leaseEnd
	prefRet  []int64 // prefRet[j]: the latest ret of list[:j+1]
	sufOKRet []int64 // sufOKRet[j]: the earliest ret of a certain end in list[j:]
	sufOKBy  []int   // ... and its op index
}

func newLeaseEndIndex(list []leaseEnd) *leaseEndIndex {
	x := &leaseEndIndex{list: list, prefRet: make([]int64, len(list)), sufOKRet: make([]int64, len(list)+1), sufOKBy: make([]int, len(list)+1)}
	for j, e := range list {
		x.prefRet[j] = e.ret
		if j > 0 {
			x.prefRet[j] = max(x.prefRet[j], x.prefRet[j-1])
		}
	}
	x.sufOKRet[len(list)], x.sufOKBy[len(list)] = checks.LsInf, -1
	for j := len(list) - 1; j >= 0; j-- {
		x.sufOKRet[j], x.sufOKBy[j] = x.sufOKRet[j+1], x.sufOKBy[j+1]
		if e := list[j]; e.ok && e.ret < x.sufOKRet[j] {
			x.sufOKRet[j], x.sufOKBy[j] = e.ret, e.i
		}
	}
	return x
}

// from returns the index of the first end sent at or after t.
func (x *leaseEndIndex) from(t int64) int {
	if x == nil {
		return 0
	}
	return sort.Search(len(x.list), func(j int) bool { return x.list[j].call >= t })
}

// certainCut is where ends cut a certainly-held window of a grant sent at
// c: at the first end sent at or after c (but skip), or at c itself if an
// end sent before c may have taken effect after it.
func (x *leaseEndIndex) certainCut(c int64, skip int) (int64, int) {
	if x == nil {
		return checks.LsInf, -1
	}
	t, by := int64(checks.LsInf), -1
	j := x.from(c)
	for k := j; k < len(x.list); k++ {
		if x.list[k].i != skip {
			t, by = x.list[k].call, x.list[k].i
			break
		}
	}
	if j > 0 && x.prefRet[j-1] > c {
		for k := j - 1; k >= 0; k-- {
			if x.list[k].ret > c && x.list[k].i != skip {
				return c, x.list[k].i
			}
		}
	}
	return t, by
}

// possibleCut is where certain ends sent at or after r cut a possibly-held
// window: at the earliest Return among them.
func (x *leaseEndIndex) possibleCut(r int64) (int64, int) {
	if x == nil {
		return checks.LsInf, -1
	}
	j := x.from(r)
	return x.sufOKRet[j], x.sufOKBy[j]
}

// leaseBreakIndex indexes the breaks (in Call order) for the same questions;
// how long a break keeps a lease locked depends on whether the lease may be
// infinite, so every bound has two variants (index 0: finite, 1: may be
// infinite / certainly infinite).
type leaseBreakIndex struct {
	calls  []int64
	sufLo  [2][]int64 // suffix min of call + retLo
	sufLoB [2][]int
	sufHi  [2][]int64 // suffix min of ret + retHi over certain breaks
	sufHiB [2][]int
	okLat  int64 // longest latency of a certain break
	maybes []int // indices of breaks of unknown outcome
}

// leaseDur is what is known of a lease id's duration, in ns (lsInf:
// infinite). Without a recorded duration: 15 s to infinite.
type leaseDur struct {
	min, max int64
	known    bool
}

// leaseEffect is an operation that may have changed the key's lease state.
type leaseEffect struct {
	i         int
	call, end int64
	ok        bool
}

// lockWindow is a certainly-held window [start, end] of lease id.
type lockWindow struct {
	start, end int64
	id         string
	g          int // index in grants
}

type leaseModel struct {
	sp         *leaseSpace
	key        string
	ops        *checks.Chunked[checks.Op]
	leaseCalls int

	grants  []leaseGrant // in Call order
	okByRet []int        // indices of ok grants in Return order
	okArg   []int        // okArg[j]: the grant of okByRet[:j+1] with the latest Call

	anc        []leaseAnchor // successful grants and deletes, by Call
	ancByRet   []int         // indices in anc by Return
	ancMaxCall []int64       // ancMaxCall[j]: the latest Call of ancByRet[:j+1]
	ancMaxLat  int64         // the longest latency of an anchor
	byID       map[string][]int
	ends       map[string][]leaseEnd // per id, in Call order; "*" for deletes
	breaks     []leaseBreak          // in Call order
	acqs       []acquireCall         // acquires that may have applied, by Call
	dur        map[string]leaseDur
	grantOf    map[int]int // op index -> grant index

	wins    []lockWindow        // certainly-held windows by start
	winBest []int               // winBest[j]: the window of wins[:j+1] with the latest end
	pCall   []int64             // grants' calls (sorted)
	pMax    []largestTwoByGrant // pMax[j]: the two latest pEnd over grants[:j+1]
	pGrace  []largestTwoByGrant // same, with LeaseReacquireGrace after expiries

	endIdx  map[string]*leaseEndIndex // per id (and "*"), built from ends
	brk     leaseBreakIndex
	idMaybe map[string][]int // per id, grants of unknown outcome
	breakOf map[int]int      // op index -> index in breaks

	pLastByID map[string][]int // see pLast
	gMaxLat   int64            // longest latency of a successful grant

	effects []leaseEffect // in Call order
	maybes  []int         // indices in effects of unknown outcomes
	maxLat  int64         // longest latency of a certainly applied effect

	settled map[int]settlement // grants of unknown outcome the history settles (settle)

	flagged map[uint64]bool    // ops a checker already reported (one violation per op)
	pending []pendingViolation // violations found, reported in history order by flush
}

// largestTwoByGrant keeps the largest value of a prefix and the largest from another
// grant, so that one grant (the judged call's own) can be left out.
type largestTwoByGrant struct {
	v1, v2 int64
	g1     int
}

func (t largestTwoByGrant) push(v int64, g int) largestTwoByGrant {
	switch {
	case t.g1 < 0 || v > t.v1:
		return largestTwoByGrant{v1: v, g1: g, v2: t.v1}
	case v > t.v2:
		t.v2 = v
	}
	return t
}

// without returns the largest value not from grant g.
func (t largestTwoByGrant) without(g int) int64 {
	if t.g1 == g {
		return t.v2
	}
	return t.v1
}

// leaseAnchor is a successful grant (g its index) or delete (g -1): after
// it the state follows from it alone.
type leaseAnchor struct {
	call, ret int64
	g, i      int
}

type acquireCall struct {
	call int64
	i    int
	ok   bool
}

type pendingViolation struct {
	seq       uint64
	kind, msg string
	ops       []checks.Op
}

func newLeaseModel(sp *leaseSpace, key string, ops *checks.Chunked[checks.Op]) *leaseModel {
	m := &leaseModel{sp: sp, key: key, ops: ops, byID: map[string][]int{}, ends: map[string][]leaseEnd{},
		dur: map[string]leaseDur{}, grantOf: map[int]int{}, flagged: map[uint64]bool{},
		endIdx: map[string]*leaseEndIndex{}, idMaybe: map[string][]int{}, breakOf: map[int]int{},
		pLastByID: map[string][]int{}}
	m.collect()
	m.durations()
	m.indexBreaks()
	m.expiries()
	m.truncate()
	m.index()
	return m
}

func (m *leaseModel) Op(i int) *checks.Op { return m.ops.At(int32(i)) }

// sure reports whether op i certainly took effect: it succeeded, or the
// history settles that it did.
func (m *leaseModel) sure(i int) bool {
	if s, ok := m.settled[i]; ok {
		return s.applied == appliedSure
	}
	return m.Op(i).Outcome == checks.OK
}

func (m *leaseModel) nops() int { return int(m.ops.Len()) }

// leaseGrantID is the lease id an acquire or change grants: the id the service
// returned, else the one proposed; an acquire that proposed none and got no
// answer grants an id nobody can name.
func leaseGrantID(op *checks.Op, act leaseAction) string {
	if op.Outcome == checks.OK {
		if v := normLeaseID(op.Out.Value); v != "" {
			return v
		}
	}
	id := normLeaseID(op.In.LeaseID)
	if act == laChange {
		id = normLeaseID(op.In.ProposedLeaseID)
	}
	if id == "" {
		return fmt.Sprintf("#%d", op.Seq)
	}
	return id
}
