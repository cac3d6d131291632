package checks

import (
	"fmt"
	"math"
	"net/http"
	"sort"
	"strings"
	"time"
)

// The lease model shared by lease-exclusion, lease-protocol and
// container-lease (CHECKERS.md, "Leases with clocks").
//
// The service enforces leases with its own clock; the harness measures Call
// and Return with its own monotonic clock. A call took effect at some
// instant of [Call, Return] (its linearization point); a duration of d
// seconds on the service's clock lasts between d(1-rho) and d(1+rho) on the
// harness's. So an acquire or renew of duration d that succeeded over
// [call, return] leaves its lease
//
//   - certainly held over [return, call + d(1-rho)], cut short where a
//     release, a change or a break of it (after the break period), a delete
//     of the resource, or an acquire of the same id with a shorter duration
//     may have taken effect after the grant;
//   - possibly held over [call, return + d(1+rho)], cut short where one of
//     those, or another grant (which then decides the lease), certainly took
//     effect after it.
//
// A change keeps the lease's expiry; a break keeps the lease locked for
// min(break period, remaining time) (an infinite lease without a period
// breaks at once).
//
// An operation whose outcome is unknown (a timeout, a 500) may take effect at
// any time after its Call, also after its Return (CHECKERS.md, unknown
// outcomes), unless LeaseUnknownHorizon bounds it: it widens "possibly" and
// never creates "certainly".
//
// Sources for the state machine and the codes, where they agree:
//   - REST "Lease Blob" / "Lease Container" (modes, break period semantics,
//     acquire with the same id renews, durations 15..60 s or -1);
//   - the Blob Storage dev guide's lease table ("storage-dev-guide-blob-lease":
//     Available: acquire; Leased: acquire (same id), renew, change, release,
//     break; Expired: acquire, renew, release, break; Breaking: release,
//     break; Broken: acquire, release, break) and its note that after an
//     expiry "a client may need to wait up to one minute before a new lease
//     can be acquired" (LeaseReacquireGrace);
//   - Blob Storage error codes (all lease-operation failures are 409; all
//     lease failures of other operations are 412);
//   - the codes the legacy .NET client's lease tests expect from the cloud
//     service for every state (azure-storage-net BlobLeaseTests), which the
//     Azurite emulator also implements.
//
// Where those disagree with the brief, the checker accepts both and says so
// next to the table (leaseAllowed).

// LeaseClockRho bounds the rate difference between the harness's clock and
// the service's: a service duration d lasts between d(1-rho) and d(1+rho) on
// the harness's clock.
var LeaseClockRho = 0.01

// LeaseReacquireGrace is how long after a lease may have expired the service
// may still refuse a new acquire (documented: "up to one minute"). Only
// refusals are excused by it; nothing accepted is.
var LeaseReacquireGrace = time.Minute

// LeaseUnknownHorizon bounds how long after its Return an operation with an
// unknown outcome may still take effect. Zero means unbounded, the
// CHECKERS.md rule; a runner that sends every lease call with the service's
// timeout parameter may set it to that timeout plus the client's.
var LeaseUnknownHorizon time.Duration

const (
	lsInf    = math.MaxInt64
	lsNegInf = math.MinInt64
	lsSecond = int64(time.Second)
)

// lsAdd adds a duration to a time, saturating at the infinities.
func lsAdd(t, d int64) int64 {
	switch {
	case t == lsInf || d == lsInf:
		return lsInf
	case t == lsNegInf || d == lsNegInf:
		return lsNegInf
	}
	if s := t + d; (d > 0 && s < t) || (d < 0 && s > t) {
		if d > 0 {
			return lsInf
		}
		return lsNegInf
	}
	return t + d
}

func lsScaleLo(d int64) int64 {
	if d == lsInf {
		return lsInf
	}
	return int64(float64(d) * (1 - LeaseClockRho))
}

func lsScaleHi(d int64) int64 {
	if d == lsInf {
		return lsInf
	}
	return int64(math.Ceil(float64(d) * (1 + LeaseClockRho)))
}

// lsFmtT renders a harness time for messages.
func lsFmtT(t int64) string {
	switch t {
	case lsInf:
		return "forever"
	case lsNegInf:
		return "never"
	}
	return fmt.Sprintf("%.3fs", float64(t)/1e9)
}

// normLeaseID makes lease ids comparable: the service accepts "any valid
// GUID string format" and compares them without case, so a GUID is reduced
// to its 32 lower-case hex digits.
func normLeaseID(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	hex := make([]byte, 0, 32)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9', c >= 'a' && c <= 'f':
			hex = append(hex, c)
		case c >= 'A' && c <= 'F':
			hex = append(hex, c+'a'-'A')
		case c == '-' || c == '{' || c == '}' || c == '(' || c == ')':
		default:
			return strings.ToLower(s)
		}
	}
	if len(hex) == 32 {
		return string(hex)
	}
	return strings.ToLower(s)
}

// Error codes (Blob Storage error codes).
const (
	lcAlreadyPresent      = "LeaseAlreadyPresent"
	lcMismatchLeaseOp     = "LeaseIdMismatchWithLeaseOperation"
	lcNotPresentLeaseOp   = "LeaseNotPresentWithLeaseOperation"
	lcBrokenNoRenew       = "LeaseIsBrokenAndCannotBeRenewed"
	lcBreakingNoAcquire   = "LeaseIsBreakingAndCannotBeAcquired"
	lcBreakingNoChange    = "LeaseIsBreakingAndCannotBeChanged"
	lcIDMissing           = "LeaseIdMissing"
	lcMismatchBlob        = "LeaseIdMismatchWithBlobOperation"
	lcNotPresentBlob      = "LeaseNotPresentWithBlobOperation"
	lcMismatchContainer   = "LeaseIdMismatchWithContainerOperation"
	lcNotPresentContainer = "LeaseNotPresentWithContainerOperation"
	lcLeaseLost           = "LeaseLost"
)

// The answers a judged call can give: "ok", an error code, or a bare status
// ("409", "412") when the service sent no code.
const lsOK = "ok"

// isLeaseOpCode reports whether code is one a lease call fails with.
func isLeaseOpCode(code string) bool {
	switch code {
	case lcAlreadyPresent, lcMismatchLeaseOp, lcNotPresentLeaseOp, lcBrokenNoRenew,
		lcBreakingNoAcquire, lcBreakingNoChange, "LeaseAlreadyBroken", "LeaseIsAlreadyBroken":
		return true
	}
	return false
}

// isLeaseDataCode reports whether code is one another operation fails with
// because of a lease.
func isLeaseDataCode(code string) bool {
	switch code {
	case lcIDMissing, lcMismatchBlob, lcNotPresentBlob, lcMismatchContainer, lcNotPresentContainer, lcLeaseLost:
		return true
	}
	return false
}

// lsConditional reports whether the call sent a condition that could itself
// fail with 412.
func lsConditional(op *Op) bool {
	return op.In.IfMatch != "" || op.In.IfNoneMatch != "" || op.In.IfModifiedSince != "" || op.In.IfUnmodifiedSince != ""
}

// --- the two namespaces ---

type leaseAction uint8

const (
	laNone leaseAction = iota
	laAcquire
	laRenew
	laChange
	laRelease
	laBreak
)

var leaseActionNames = [...]string{"", "acquire", "renew", "change", "release", "break"}

// leaseOKStatus is the documented success status of each lease action.
var leaseOKStatus = [...]int{0, http.StatusCreated, http.StatusOK, http.StatusOK, http.StatusOK, http.StatusAccepted}

// leaseDataClass says how a non-lease operation relates to a lease.
type leaseDataClass struct {
	known    bool // a kind the checkers judge
	enforced bool // refused without the lease id while the lease is held
	modifies bool // changes the resource (its ETag; forgets an expired lease's id)
	observes bool // a successful answer's ETag is the resource's current ETag
	deletes  bool // removes the resource, and its lease with it
}

type leaseSpace struct {
	prefix     string // every kind of this namespace starts with it: "blob."
	lease      string // lease calls: "blob.lease."
	noun       string // "blob"
	nouns      string // "blobs"
	data       map[string]leaseDataClass
	mismatch   string // 412 code for a wrong lease id on another operation
	notPresent string // 412 code for a lease id where there is no lease
	etag       bool   // check that lease calls never change the ETag
}

// The blob namespace. Put Block (blob.stage) takes the lease id and is
// refused without it on a leased blob; it does not change the committed
// blob, but it is counted as a possible change (of the ETag, and of an
// expired lease's id) so that no correct history is flagged for it.
var blobLeaseSpace = &leaseSpace{
	prefix: "blob.", lease: "blob.lease.", noun: "blob", nouns: "blobs",
	data: map[string]leaseDataClass{
		"blob.get":          {known: true, observes: true},
		"blob.getprops":     {known: true, observes: true},
		"blob.getmeta":      {known: true, observes: true},
		"blob.getblocklist": {known: true},
		"blob.put":          {known: true, enforced: true, modifies: true},
		"blob.create":       {known: true, enforced: true, modifies: true},
		"blob.commit":       {known: true, enforced: true, modifies: true},
		"blob.setmeta":      {known: true, enforced: true, modifies: true},
		"blob.setprops":     {known: true, enforced: true, modifies: true},
		"blob.stage":        {known: true, enforced: true, modifies: true},
		"blob.delete":       {known: true, enforced: true, modifies: true, deletes: true},
	},
	mismatch: lcMismatchBlob, notPresent: lcNotPresentBlob, etag: true,
}

// The container namespace: only Delete Container needs the lease; every
// other container operation succeeds without the lease id, and with one
// succeeds only if it names the active lease.
var containerLeaseSpace = &leaseSpace{
	prefix: "container.", lease: "container.lease.", noun: "container", nouns: "containers",
	data: map[string]leaseDataClass{
		"container.delete":   {known: true, enforced: true, modifies: true, deletes: true},
		"container.setmeta":  {known: true, modifies: true},
		"container.setacl":   {known: true, modifies: true},
		"container.getprops": {known: true},
		"container.getmeta":  {known: true},
		"container.getacl":   {known: true},
	},
	mismatch: lcMismatchContainer, notPresent: lcNotPresentContainer,
}

func (sp *leaseSpace) action(kind string) leaseAction {
	if !strings.HasPrefix(kind, sp.lease) {
		return laNone
	}
	for a, n := range leaseActionNames {
		if a > 0 && kind[len(sp.lease):] == n {
			return leaseAction(a)
		}
	}
	return laNone
}

// class returns a non-lease kind's class; an unknown kind of the namespace
// may change the resource and is not judged.
func (sp *leaseSpace) class(kind string) leaseDataClass {
	if c, ok := sp.data[kind]; ok {
		return c
	}
	return leaseDataClass{modifies: true}
}

// --- collecting the history ---

type leaseKey struct {
	key        string
	ops        chunked[Op] // never moved: a long history is not copied as it grows
	leaseCalls int
}

// leaseKeys keeps every operation of one namespace per key, until Finish.
type leaseKeys struct {
	sp    *leaseSpace
	keys  map[string]*leaseKey
	order []*leaseKey
}

func newLeaseKeys(sp *leaseSpace) leaseKeys {
	return leaseKeys{sp: sp, keys: map[string]*leaseKey{}}
}

func (ks *leaseKeys) observe(op *Op) {
	if !strings.HasPrefix(op.Kind, ks.sp.prefix) {
		return
	}
	k := ks.keys[op.Key]
	if k == nil {
		k = &leaseKey{key: op.Key}
		ks.keys[op.Key] = k
		ks.order = append(ks.order, k)
	}
	if ks.sp.action(op.Kind) != laNone {
		k.leaseCalls++
	}
	k.ops.add(compactOp(op, op.Workload, op.Kind, k.key))
}

// models builds the model of every key: a key without lease calls is
// never leased, which decides the state too.
func (ks *leaseKeys) models() []*leaseModel {
	out := make([]*leaseModel, 0, len(ks.order))
	for _, k := range ks.order {
		m := newLeaseModel(ks.sp, k.key, &k.ops)
		m.leaseCalls = k.leaseCalls
		out = append(out, m)
	}
	return out
}

// --- the model of one key ---

type lsApplied uint8

const (
	lsNo lsApplied = iota
	lsMaybe
	lsSure
)

func lsAppliedOf(op *Op) lsApplied {
	switch {
	case op.Outcome == OK:
		return lsSure
	case mayHaveApplied(op):
		return lsMaybe
	}
	return lsNo
}

// lsEffectEnd is the latest time an operation may take effect: its Return if
// it certainly did, else (unknown) unbounded or LeaseUnknownHorizon later.
func lsEffectEnd(op *Op, a lsApplied) int64 {
	if a == lsSure {
		return op.Return
	}
	if LeaseUnknownHorizon > 0 {
		return lsAdd(op.Return, int64(LeaseUnknownHorizon))
	}
	return lsInf
}

// lgrant is a call that may have granted (or renewed) a lease id.
type lgrant struct {
	i          int // index in the model's ops
	id         string
	src        string // a change's old id
	act        leaseAction
	ok         bool
	call, ret  int64 // ret: lsEffectEnd
	cExp, pExp int64 // expiry bounds, before any release, change or break
	cEnd, pEnd int64 // the certainly- and possibly-held windows' ends
	cBy, pBy   int   // op index that cut cEnd / pEnd short, or -1 (expiry)
	dMin       int64 // the duration it gives the lease (grantDur), shortest
}

// lend is a call that may have ended a lease id: a release, a change (of its
// old id), or a delete of the resource (id "*").
type lend struct {
	i         int
	id        string
	ok        bool
	call, ret int64
}

type lbreak struct {
	i                 int
	ok                bool
	call, ret         int64
	period, leaseTime *int
}

// lsEndIndex answers "the earliest end sent at or after t" and "an end
// that may have taken effect after t though sent before it" for one id.
type lsEndIndex struct {
	list     []lend
	prefRet  []int64 // prefRet[j]: the latest ret of list[:j+1]
	sufOKRet []int64 // sufOKRet[j]: the earliest ret of a certain end in list[j:]
	sufOKBy  []int   // ... and its op index
}

func lsNewEndIndex(list []lend) *lsEndIndex {
	x := &lsEndIndex{list: list, prefRet: make([]int64, len(list)), sufOKRet: make([]int64, len(list)+1), sufOKBy: make([]int, len(list)+1)}
	for j, e := range list {
		x.prefRet[j] = e.ret
		if j > 0 {
			x.prefRet[j] = max(x.prefRet[j], x.prefRet[j-1])
		}
	}
	x.sufOKRet[len(list)], x.sufOKBy[len(list)] = lsInf, -1
	for j := len(list) - 1; j >= 0; j-- {
		x.sufOKRet[j], x.sufOKBy[j] = x.sufOKRet[j+1], x.sufOKBy[j+1]
		if e := list[j]; e.ok && e.ret < x.sufOKRet[j] {
			x.sufOKRet[j], x.sufOKBy[j] = e.ret, e.i
		}
	}
	return x
}

// from returns the index of the first end sent at or after t.
func (x *lsEndIndex) from(t int64) int {
	if x == nil {
		return 0
	}
	return sort.Search(len(x.list), func(j int) bool { return x.list[j].call >= t })
}

// certainCut is where ends cut a certainly-held window of a grant sent at
// c: at the first end sent at or after c (but skip), or at c itself if an
// end sent before c may have taken effect after it.
func (x *lsEndIndex) certainCut(c int64, skip int) (int64, int) {
	if x == nil {
		return lsInf, -1
	}
	t, by := int64(lsInf), -1
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
func (x *lsEndIndex) possibleCut(r int64) (int64, int) {
	if x == nil {
		return lsInf, -1
	}
	j := x.from(r)
	return x.sufOKRet[j], x.sufOKBy[j]
}

// lsBreakIndex indexes the breaks (in Call order) for the same questions;
// how long a break keeps a lease locked depends on whether the lease may be
// infinite, so every bound has two variants (index 0: finite, 1: may be
// infinite / certainly infinite).
type lsBreakIndex struct {
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

// lsEffect is an operation that may have changed the key's lease state.
type lsEffect struct {
	i         int
	call, end int64
	ok        bool
}

// lsWin is a certainly-held window [start, end] of lease id.
type lsWin struct {
	start, end int64
	id         string
	g          int // index in grants
}

type leaseModel struct {
	sp         *leaseSpace
	key        string
	ops        *chunked[Op]
	leaseCalls int

	grants  []lgrant // in Call order
	okByRet []int    // indices of ok grants in Return order
	okArg   []int    // okArg[j]: the grant of okByRet[:j+1] with the latest Call
	byID    map[string][]int
	ends    map[string][]lend // per id, in Call order; "*" for deletes
	breaks  []lbreak          // in Call order
	acqs    []lsAcq           // acquires that may have applied, by Call
	dur     map[string]leaseDur
	grantOf map[int]int // op index -> grant index

	wins    []lsWin  // certainly-held windows by start
	winBest []int    // winBest[j]: the window of wins[:j+1] with the latest end
	pCall   []int64  // grants' calls (sorted)
	pMax    []lsTop2 // pMax[j]: the two latest pEnd over grants[:j+1]
	pGrace  []lsTop2 // same, with LeaseReacquireGrace after expiries

	endIdx  map[string]*lsEndIndex // per id (and "*"), built from ends
	brk     lsBreakIndex
	idMaybe map[string][]int // per id, grants of unknown outcome
	breakOf map[int]int      // op index -> index in breaks

	pLastByID map[string][]int // see pLast
	gMaxLat   int64            // longest latency of a successful grant

	effects []lsEffect // in Call order
	maybes  []int      // indices in effects of unknown outcomes
	maxLat  int64      // longest latency of a certainly applied effect

	flagged map[uint64]bool // ops a checker already reported (one violation per op)
	pending []lsPending     // violations found, reported in history order by flush
}

// lsTop2 keeps the largest value of a prefix and the largest from another
// grant, so that one grant (the judged call's own) can be left out.
type lsTop2 struct {
	v1, v2 int64
	g1     int
}

func (t lsTop2) push(v int64, g int) lsTop2 {
	switch {
	case t.g1 < 0 || v > t.v1:
		return lsTop2{v1: v, g1: g, v2: t.v1}
	case v > t.v2:
		t.v2 = v
	}
	return t
}

// without returns the largest value not from grant g.
func (t lsTop2) without(g int) int64 {
	if t.g1 == g {
		return t.v2
	}
	return t.v1
}

type lsAcq struct {
	call int64
	i    int
}

type lsPending struct {
	seq uint64
	msg string
	ops []Op
}

func newLeaseModel(sp *leaseSpace, key string, ops *chunked[Op]) *leaseModel {
	m := &leaseModel{sp: sp, key: key, ops: ops, byID: map[string][]int{}, ends: map[string][]lend{},
		dur: map[string]leaseDur{}, grantOf: map[int]int{}, flagged: map[uint64]bool{},
		endIdx: map[string]*lsEndIndex{}, idMaybe: map[string][]int{}, breakOf: map[int]int{},
		pLastByID: map[string][]int{}}
	m.collect()
	m.durations()
	m.indexBreaks()
	m.expiries()
	m.truncate()
	m.index()
	return m
}

func (m *leaseModel) op(i int) *Op { return m.ops.at(int32(i)) }

func (m *leaseModel) nops() int { return int(m.ops.len()) }

// leaseGrantID is the lease id an acquire or change grants: the id the service
// returned, else the one proposed; an acquire that proposed none and got no
// answer grants an id nobody can name.
func leaseGrantID(op *Op, act leaseAction) string {
	if op.Outcome == OK {
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

func (m *leaseModel) collect() {
	for i := range m.nops() {
		op := m.op(i)
		a := lsAppliedOf(op)
		if a == lsNo {
			continue
		}
		end := lsEffectEnd(op, a)
		act := m.sp.action(op.Kind)
		if act == laNone {
			c := m.sp.class(op.Kind)
			if c.modifies {
				m.effects = append(m.effects, lsEffect{i: i, call: op.Call, end: end, ok: a == lsSure})
			}
			if c.deletes {
				m.ends["*"] = append(m.ends["*"], lend{i: i, id: "*", ok: a == lsSure, call: op.Call, ret: end})
			}
			continue
		}
		m.effects = append(m.effects, lsEffect{i: i, call: op.Call, end: end, ok: a == lsSure})
		g := lgrant{i: i, act: act, ok: a == lsSure, call: op.Call, ret: end}
		switch act {
		case laAcquire:
			g.id = leaseGrantID(op, act)
			m.acqs = append(m.acqs, lsAcq{call: op.Call, i: i})
		case laRenew:
			g.id = normLeaseID(op.In.LeaseID)
		case laChange:
			g.id, g.src = leaseGrantID(op, act), normLeaseID(op.In.LeaseID)
			if g.src != g.id {
				m.ends[g.src] = append(m.ends[g.src], lend{i: i, id: g.src, ok: g.ok, call: op.Call, ret: end})
			}
		case laRelease:
			id := normLeaseID(op.In.LeaseID)
			m.ends[id] = append(m.ends[id], lend{i: i, id: id, ok: a == lsSure, call: op.Call, ret: end})
			continue
		case laBreak:
			m.breaks = append(m.breaks, lbreak{i: i, ok: a == lsSure, call: op.Call, ret: end,
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
		m.endIdx[id] = lsNewEndIndex(l)
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
		x.sufLo[v][n], x.sufLoB[v][n], x.sufHi[v][n], x.sufHiB[v][n] = lsInf, -1, lsInf, -1
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
			if lo := lsAdd(b.call, m.retLo(b, v == 1)); lo < x.sufLo[v][bi] {
				x.sufLo[v][bi], x.sufLoB[v][bi] = lo, b.i
			}
			x.sufHi[v][bi], x.sufHiB[v][bi] = x.sufHi[v][bi+1], x.sufHiB[v][bi+1]
			if b.ok {
				if hi := lsAdd(b.ret, m.retHi(bi, v == 1)); hi < x.sufHi[v][bi] {
					x.sufHi[v][bi], x.sufHiB[v][bi] = hi, b.i
				}
			}
		}
	}
}

// durations collects each lease id's durations from the acquires that may
// have applied, and hands them on along changes (the new id keeps the lease,
// and with it the duration).
func (m *leaseModel) durations() {
	for _, g := range m.grants {
		if g.act != laAcquire {
			continue
		}
		ns, ok := lsValidDur(m.op(g.i).In.LeaseDuration)
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
			s = leaseDur{min: 15 * lsSecond, max: lsInf}
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

// lsValidDur converts a recorded acquire duration to ns.
func lsValidDur(d int) (int64, bool) {
	switch {
	case d == -1:
		return lsInf, true
	case d >= 15 && d <= 60:
		return int64(d) * lsSecond, true
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
		if d, ok := lsValidDur(m.op(g.i).In.LeaseDuration); ok {
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
	return leaseDur{min: 15 * lsSecond, max: lsInf}
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
			g.cExp, g.pExp = lsNegInf, lsInf
			continue
		}
		if g.act != laChange {
			d := m.grantDur(gi)
			g.cExp, g.pExp = lsAdd(g.call, lsScaleLo(d.min)), lsAdd(g.ret, lsScaleHi(d.max))
		} else {
			g.cExp, g.pExp = lsNegInf, lsInf // until computed below, in Call order
		}
	}
	for gi := range m.grants {
		g := &m.grants[gi]
		if !g.ok || g.act != laChange {
			continue
		}
		g.pExp, g.cExp = lsNegInf, lsNegInf
		for _, hi := range append(append([]int(nil), m.byID[g.src]...), m.byID[g.id]...) {
			h := &m.grants[hi]
			if hi == gi || h.call >= g.ret {
				continue
			}
			g.pExp = max(g.pExp, h.pExp) // a later-sent change still counts as forever
		}
		if g.pExp == lsNegInf {
			g.pExp = lsInf
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
func (m *leaseModel) retLo(b *lbreak, mayInf bool) int64 {
	if b.period != nil {
		return lsScaleLo(int64(max(*b.period, 0)) * lsSecond)
	}
	if mayInf {
		return 0
	}
	return lsInf
}

// mayInf reports whether a lease id may be infinite; certInf whether it
// certainly is (every acquire of it recorded -1).
func (m *leaseModel) mayInf(id string) bool { return m.durOf(id).max == lsInf }

func (m *leaseModel) certInf(id string) bool {
	d, ok := m.dur[id]
	return ok && d.known && d.min == lsInf
}

// retHi is how long a lease may stay locked after a break's Return: at most
// the break period, or the x-ms-lease-time the break answered (whole
// seconds, rounding unknown). Without either, an infinite lease (certInf)
// breaks at once, unless an earlier break may have left it breaking (a
// break without a period does not shorten a break in progress).
func (m *leaseModel) retHi(bi int, certInf bool) int64 {
	b := &m.breaks[bi]
	r := int64(lsInf)
	if b.period != nil {
		r = lsScaleHi(int64(max(*b.period, 0)) * lsSecond)
	}
	if b.ok && b.leaseTime != nil {
		return min(r, lsScaleHi(int64(max(*b.leaseTime, 0)+1)*lsSecond))
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
			g.cEnd, g.pEnd = lsNegInf, lsInf
			continue
		}
		g.cEnd, g.cBy = m.certainEnd(gi, -1)
		// Possibly held: cut at what certainly ended it after the grant.
		p := int64(lsInf)
		for _, x := range []*lsEndIndex{m.endIdx[g.id], m.endIdx["*"]} {
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
				cut(lsAdd(max(b.call, g.call), m.retLo(b, mayInf)), b.i)
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
				cut(lsAdd(g.call, m.retLo(b, mayInf)), b.i)
			}
		}
		for _, k := range x.maybes {
			if b := &m.breaks[k]; b.call < g.call && b.ret > g.call {
				cut(lsAdd(g.call, m.retLo(b, mayInf)), b.i)
			}
		}
	}
	// A later acquire of the same id sets a new duration, perhaps shorter:
	// the lease then certainly lasts only that long from it. (Grants are in
	// Call order, and every lease lasts at least 15 s: stop when no later
	// one can cut shorter.)
	sameID := func(hi int) {
		if h := &m.grants[hi]; hi != gi && h.act != laChange && h.ret > g.call {
			cut(lsAdd(max(h.call, g.call), lsScaleLo(h.dMin)), h.i)
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
		if h.call >= g.call && lsAdd(h.call, lsScaleLo(15*lsSecond)) >= min(t, g.cExp) {
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
			m.okByRet = append(m.okByRet, gi)
			if g.cEnd > g.ret {
				m.wins = append(m.wins, lsWin{start: g.ret, end: g.cEnd, id: g.id, g: gi})
			}
		}
		m.pCall = append(m.pCall, g.call)
		grace := g.pEnd
		if g.pBy < 0 {
			grace = lsAdd(grace, lsScaleHi(int64(LeaseReacquireGrace)))
		}
		pm, pg := lsTop2{v1: lsNegInf, v2: lsNegInf, g1: -1}, lsTop2{v1: lsNegInf, v2: lsNegInf, g1: -1}
		if gi > 0 {
			pm, pg = m.pMax[gi-1], m.pGrace[gi-1]
		}
		m.pMax = append(m.pMax, pm.push(g.pEnd, gi))
		m.pGrace = append(m.pGrace, pg.push(grace, gi))
	}
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

// certainLock returns the certainly-held window that covers [a, b], with
// the latest end, or nil; the judged call self does not count.
func (m *leaseModel) certainLock(a, b int64, self int) *lsWin {
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
func (m *leaseModel) effectsBetween(from, to int64, fn func(e *lsEffect) bool) {
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

// --- candidate states ---

type lsKind uint8

const (
	lsUnknown   lsKind = iota // anything: the history does not decide
	lsAvailable               // no lease
	lsLeased
	lsBreaking
	lsBroken
	lsExpired
	lsUnlocked // unlocked (available, expired or broken), the id unknown
)

type lsState struct {
	kind  lsKind
	id    string
	grace bool // a new acquire may still be refused (expired up to a minute ago)
}

func (s lsState) String() string {
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

// lsCands is the set of states the lease may have been in when a call took
// effect, with the operations that show it.
type lsCands struct {
	states   []lsState
	evidence []int // op indices
	certain  bool  // decided from a certainly-held window
}

func (c lsCands) unknown() bool {
	for _, s := range c.states {
		if s.kind == lsUnknown {
			return true
		}
	}
	return len(c.states) == 0
}

func (c lsCands) String() string {
	parts := make([]string, len(c.states))
	for i, s := range c.states {
		parts[i] = s.String()
	}
	return strings.Join(parts, " or ")
}

var lsUnknownCands = lsCands{states: []lsState{{kind: lsUnknown}}}

// candidates returns the states the lease may have been in at some instant
// of [a, b] (the judged call's window; self is its op index). Only few
// histories decide the state; the rest answer "unknown" and are not judged.
func (m *leaseModel) candidates(a, b int64, self int) lsCands {
	// A lease certainly held over the whole window: leased or breaking.
	if w := m.certainLock(a, b, self); w != nil {
		g := &m.grants[w.g]
		c := lsCands{evidence: []int{g.i}, certain: true}
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
			c.states = append(c.states, lsState{kind: lsLeased, id: w.id})
		} else {
			c.evidence = append(c.evidence, breakingSure)
		}
		if breakingMay {
			c.states = append(c.states, lsState{kind: lsBreaking, id: w.id})
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
		return lsCands{states: []lsState{{kind: lsAvailable}}}
	}
	if c := m.fromAnchor(a, b, self); !c.unknown() {
		return c
	}
	// No lease may have been held at any instant of the window.
	if locked, grace := m.possiblyLocked(a, b, self); !locked {
		return lsCands{states: []lsState{{kind: lsUnlocked, grace: grace}}}
	}
	return lsUnknownCands
}

// leaseScanBudget bounds the operations fromAnchor looks at for one call,
// so that a history where certainty was lost long ago stays linear.
const leaseScanBudget = 4096

// fromAnchor derives the state from the latest successful grant before the
// call and everything that may have happened since; it gives up (unknown) as
// soon as another lease id may have been granted or the resource deleted.
func (m *leaseModel) fromAnchor(a, b int64, self int) lsCands {
	gi := m.latestOKGrant(a)
	if gi < 0 {
		return lsUnknownCands
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
	m.effectsBetween(g.call, b, func(e *lsEffect) bool {
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
		return lsUnknownCands
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
	grace := a < lsAdd(pExpMax, lsScaleHi(int64(LeaseReacquireGrace)))
	c := lsCands{evidence: []int{g.i}}
	has := map[lsKind]bool{lsLeased: leased, lsExpired: expired}
	if len(brks) > 0 {
		has[lsBroken] = true
		sure := -1
		for _, i := range brks {
			bi := m.breakOf[i]
			br := &m.breaks[bi]
			if !br.ok || a < lsAdd(br.ret, m.retHi(bi, m.certInf(x))) {
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
				has = map[lsKind]bool{lsAvailable: true}
				c.evidence = append(c.evidence, i)
				break
			}
		}
	}
	if mods && (has[lsExpired] || has[lsBroken]) {
		has[lsAvailable] = true
	}
	for _, k := range []lsKind{lsAvailable, lsLeased, lsBreaking, lsBroken, lsExpired} {
		if has[k] {
			s := lsState{kind: k, id: x}
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
		return lsUnknownCands
	}
	return c
}

// --- what each state allows ---

// leaseAllowed lists the documented answers of a lease call in a state: x is
// the id the call names (acquire: the proposed id), p a change's proposed id.
//
// Where the sources differ:
//   - renew or release with no lease present: the brief says 409
//     LeaseNotPresentWithLeaseOperation; the cloud service answers 409
//     LeaseIdMismatchWithLeaseOperation (azure-storage-net's lease tests,
//     "renew/release a lease when no lease is held"). Both are accepted.
//   - acquire while breaking: the brief says LeaseIsBreakingAndCannotBeAcquired
//     for any id; the error code's text ("the lease ID matched, but ...") and
//     the cloud tests give it only for the breaking lease's own id, and
//     LeaseAlreadyPresent for another. For another id both are accepted.
//   - break, change or renew on a broken or expired lease after the blob was
//     changed: the lease id is forgotten (available); the model adds that
//     state whenever a change may have happened.
//   - in the minute after an expiry a new acquire may be refused with
//     LeaseAlreadyPresent (LeaseReacquireGrace).
func leaseAllowed(s lsState, act leaseAction, x, p string) []string {
	eq := x != "" && x == s.id
	switch s.kind {
	case lsAvailable:
		switch act {
		case laAcquire:
			return []string{lsOK}
		case laRenew, laRelease:
			return []string{lcMismatchLeaseOp, lcNotPresentLeaseOp}
		case laChange:
			return []string{lcNotPresentLeaseOp, lcMismatchLeaseOp}
		case laBreak:
			return []string{lcNotPresentLeaseOp}
		}
	case lsLeased:
		switch act {
		case laAcquire, laRenew, laRelease:
			if eq {
				return []string{lsOK}
			}
			if act == laAcquire {
				return []string{lcAlreadyPresent}
			}
			return []string{lcMismatchLeaseOp}
		case laChange:
			if eq || (p != "" && p == s.id) {
				return []string{lsOK}
			}
			return []string{lcMismatchLeaseOp}
		case laBreak:
			return []string{lsOK}
		}
	case lsBreaking:
		switch act {
		case laAcquire:
			if eq {
				return []string{lcBreakingNoAcquire}
			}
			return []string{lcAlreadyPresent, lcBreakingNoAcquire}
		case laRenew:
			if eq {
				return []string{lcBrokenNoRenew}
			}
			return []string{lcMismatchLeaseOp}
		case laChange:
			if eq {
				return []string{lcBreakingNoChange}
			}
			return []string{lcMismatchLeaseOp, lcBreakingNoChange}
		case laRelease:
			if eq {
				return []string{lsOK}
			}
			return []string{lcMismatchLeaseOp}
		case laBreak:
			return []string{lsOK}
		}
	case lsBroken, lsExpired:
		switch act {
		case laAcquire:
			if s.kind == lsExpired && s.grace {
				return []string{lsOK, lcAlreadyPresent}
			}
			return []string{lsOK}
		case laRenew:
			switch {
			case eq && s.kind == lsBroken:
				return []string{lcBrokenNoRenew}
			case eq:
				return []string{lsOK}
			}
			return []string{lcMismatchLeaseOp, lcNotPresentLeaseOp}
		case laRelease:
			if eq {
				return []string{lsOK}
			}
			return []string{lcMismatchLeaseOp, lcNotPresentLeaseOp}
		case laChange:
			return []string{lcNotPresentLeaseOp, lcMismatchLeaseOp}
		case laBreak:
			return []string{lsOK}
		}
	case lsUnlocked:
		switch act {
		case laAcquire:
			if s.grace {
				return []string{lsOK, lcAlreadyPresent}
			}
			return []string{lsOK}
		case laChange:
			return []string{lcNotPresentLeaseOp, lcMismatchLeaseOp}
		case laBreak:
			return []string{lsOK, lcNotPresentLeaseOp}
		}
	}
	return nil // anything
}

// dataAllowed lists the documented lease answers of another operation in a
// state: x is the lease id it sent. Refusals for other reasons (a failed
// If-Match, 404) are not judged.
func (sp *leaseSpace) dataAllowed(s lsState, c leaseDataClass, x string) []string {
	if x == "" {
		if !c.enforced {
			return []string{lsOK}
		}
		switch s.kind {
		case lsLeased, lsBreaking:
			return []string{lcIDMissing}
		case lsAvailable, lsBroken:
			return []string{lsOK}
		case lsExpired, lsUnlocked:
			// In the minute after an expiry the service may still act as if
			// leased (see LeaseReacquireGrace): a refusal is excused there.
			if s.grace {
				return []string{lsOK, lcIDMissing}
			}
			return []string{lsOK}
		}
		return nil
	}
	switch s.kind {
	case lsLeased, lsBreaking:
		if x == s.id {
			return []string{lsOK}
		}
		return []string{sp.mismatch}
	case lsAvailable:
		return []string{sp.notPresent, lcLeaseLost, sp.mismatch}
	case lsBroken, lsExpired, lsUnlocked:
		return []string{sp.notPresent, lcLeaseLost, sp.mismatch}
	}
	return nil
}

// leaseAnswer is how a lease call was answered, for judging: "ok", a 409's
// code, or "" (not a lease answer: 400, 404, 503, unknown).
func leaseAnswer(op *Op) string {
	if op.Outcome == OK {
		return lsOK
	}
	if op.Out.Status == http.StatusConflict {
		if op.Out.ErrorCode == "" {
			return "409"
		}
		return op.Out.ErrorCode
	}
	if isLeaseOpCode(op.Out.ErrorCode) {
		return op.Out.ErrorCode
	}
	return ""
}

// dataAnswer is how another operation was answered, for judging: "ok", a
// lease code, "412" for a precondition failure the call's own conditions
// cannot explain, or "" (not judged).
func dataAnswer(op *Op) string {
	switch {
	case op.Outcome == OK:
		return lsOK
	case isLeaseDataCode(op.Out.ErrorCode):
		return op.Out.ErrorCode
	case op.Out.Status == http.StatusPreconditionFailed && !lsConditional(op):
		return "412"
	}
	return ""
}

// lsAllows reports whether ans is among the allowed answers; a bare status
// ("409", "412": no code sent) matches any refusal.
func lsAllows(allowed []string, ans string) bool {
	for _, a := range allowed {
		if a == ans || (a != lsOK && (ans == "409" || ans == "412")) {
			return true
		}
	}
	return false
}

// lsUnion merges allowed answers over candidate states; nil means anything.
func lsUnion(c lsCands, fn func(s lsState) []string) []string {
	var out []string
	for _, s := range c.states {
		a := fn(s)
		if a == nil {
			return nil
		}
		for _, x := range a {
			if !lsContains(out, x) {
				out = append(out, x)
			}
		}
	}
	return out
}

func lsContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// lsDescribe renders allowed answers: "ok", "409 LeaseAlreadyPresent".
func lsDescribe(allowed []string, act leaseAction, status int) string {
	parts := make([]string, len(allowed))
	for i, a := range allowed {
		switch {
		case a == lsOK && act != laNone:
			parts[i] = fmt.Sprintf("ok (%d)", leaseOKStatus[act])
		case a == lsOK:
			parts[i] = "ok"
		default:
			parts[i] = fmt.Sprintf("%d %s", status, a)
		}
	}
	return strings.Join(parts, " or ")
}

// evidenceOps builds an excerpt: the judged op first, then the evidence.
func (m *leaseModel) evidenceOps(first int, more ...int) []Op {
	ops := []*Op{m.op(first)}
	for _, i := range more {
		if i >= 0 {
			ops = append(ops, m.op(i))
		}
	}
	return excerpt(ops...)
}

// flag records a violation about op i unless one was already recorded;
// flush hands them to v in history order.
func (m *leaseModel) flag(i int, msg string, ops []Op) {
	seq := m.op(i).Seq
	if m.flagged[seq] {
		return
	}
	m.flagged[seq] = true
	m.pending = append(m.pending, lsPending{seq: seq, msg: msg, ops: ops})
}

func (m *leaseModel) flush(v *violations) {
	sort.SliceStable(m.pending, func(a, b int) bool { return m.pending[a].seq < m.pending[b].seq })
	for _, p := range m.pending {
		v.add(m.key, p.msg, p.ops...)
	}
	m.pending = nil
}

// leaseShortID shortens a lease id for messages.
func leaseShortID(id string) string {
	if len(id) > 12 {
		return id[:8] + "…"
	}
	return id
}
