package consistency

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"math"
	"net/http"
	"sort"
	"strings"

	"github.com/stormcheck/stormcheck/checks"
)

// VersionChainName is the name scenarios use for the version-chain check.
const VersionChainName = "version-chain"

func init() {
	checks.Register(VersionChainName, func() checks.Checker { return NewVersionChain() })
}

// VersionChain decides whether a blob register history (blob.etag-counter,
// blob.lww, blob.block-commit, conditional reads) is linearizable, from the
// ETags and unique values in the responses (CHECKERS.md, "The version
// chain"). Per key (blob):
//
//   - every applied write (blob.put, blob.create, blob.commit, blob.setmeta)
//     is a version; a successful If-Match write names the version it
//     replaced, which links versions into chains; unconditional writes and
//     writes on an unknown base start new chains; the setup write and
//     If-None-Match: * creates follow the initial "no blob";
//   - every read (a value and ETag, a 304 to If-None-Match, a 404) joins
//     the version it saw; a version's cluster is its write and its reads,
//     with a deadline (earliest return) and a release (latest call);
//   - a chain is a contiguous run of the version order, so real time orders
//     chains: chain Y comes before chain X when some op of Y returned before
//     some op of X was called. The history is linearizable iff no two chains
//     must each come before the other, no version in a chain is released
//     after a later one of the same chain is due, no read returned before its
//     write was sent, and the initial chain comes first (Gibbons–Korach
//     zones; without 412s and unknown outcomes this is exact).
//
// Violations: a fork (two applied writes on one If-Match base: a lost
// update), a phantom read (a value or ETag no write produced), an ETag/value
// pair that does not match its write, a read of a refused write's value, a
// stale read or order cycle, and a 412 (or 409 to If-None-Match: *) whose
// condition was provably current for the whole request. That last rule is
// sound but incomplete: a 412 next to writes that might have replaced its
// version in time is never flagged.
//
// Unknown outcomes (timeouts, 5xx other than 503) follow CHECKERS.md: a
// timed-out read is dropped; an unknown write whose value was read took
// effect, and its version is due when that read returned; an unknown write
// never read is left out of the order (it can only explain a refusal, never
// hide a fork or a stale read). A key without a final read is at most
// undecided. Memory is a compact record per operation; Finish is
// O(n log n).
type VersionChain struct {
	keys   map[string]*vcKey
	expect map[string]int // ExpectKey: records of each key in the group to come
	order  []*vcKey
	seed   maphash.Seed
	strs   map[string]int32 // shared small strings: kinds, error codes, dates
	strv   []string
	buf    []byte
	v      checks.Violations // of the keys judged so far (EndGroup)
	t      vcTotals
}

// NewVersionChain returns a fresh checker.
func NewVersionChain() *VersionChain {
	c := &VersionChain{keys: map[string]*vcKey{}, seed: maphash.MakeSeed(), strs: map[string]int32{"": 0}, strv: []string{""},
		t: vcTotals{unmodeled: map[string]int{}}}
	return c
}

// Name implements Checker.
func (c *VersionChain) Name() string { return VersionChainName }

const (
	vcInf    = math.MaxInt64
	vcNegInf = math.MinInt64
)

// A condition is an ETag id or one of these.
const (
	vcNone  int32 = -1 // no condition sent
	vcStar  int32 = -2 // "*"
	vcOther int32 = -3 // a list of ETags, which the checker does not read
)

// vcDup in writerOf: two write attempts stored the same value.
const vcDup int32 = -2

type vcKind uint8

const (
	vcGet       vcKind = iota
	vcWrite            // blob.put, blob.create, blob.commit: stores In.Value
	vcSetMeta          // blob.setmeta: a new ETag, the same content
	vcUnmodeled        // another blob operation that may change the blob
)

// vcKindOf sorts an operation kind; keep is false for operations the check
// ignores: other resources, and blob operations that change neither the
// ETag nor the content (Put Block, leases).
func vcKindOf(s string) (k vcKind, keep bool) {
	s = checks.Canon(s)
	switch {
	case s == checks.KindBlobGet:
		return vcGet, true
	case s == checks.KindBlobPut, s == checks.KindBlobCreate, s == "blob.commit":
		return vcWrite, true
	case s == "blob.setmeta":
		return vcSetMeta, true
	case s == "blob.stage", strings.HasPrefix(s, "blob.lease."):
		return 0, false
	case strings.HasPrefix(s, "blob."):
		return vcUnmodeled, true
	}
	return 0, false
}

// vcRec is what the check keeps of one operation: enough to decide, and to
// rebuild the operation for an excerpt (values without padding).
type vcRec struct {
	seq       uint64
	call, ret int64
	req       checks.ReqID // the request id, when it is a UUID (as Azure and Azurite send) or a number
	actor     int32
	attempt   int32
	etag      int32 // Out.ETag, or -1
	ifMatch   int32 // a condition
	ifNone    int32 // a condition
	value     int32 // In.Value of a write, Out.Value of a read; -1 for none
	kname     int32 // Op.Kind (shared string)
	errCode   int32 // shared string
	lastMod   int32 // shared string
	rare      int32 // index in vcKey.rare, or -1
	status    uint16
	kind      vcKind
	outcome   checks.Outcome
}

// vcRare holds the fields few operations carry.
type vcRare struct {
	ifMatch, ifNoneMatch, ifModifiedSince, ifUnmodifiedSince, leaseID, err string
	reqID                                                                  string // a request id ReqID does not keep
}

type vcKey struct {
	key, workload string
	recs          checks.Chunked[vcRec]
	etags         map[string]int32
	etagStr       checks.Chunked[string]
	vals          map[string]int32       // value identity -> value id
	valStr        checks.Chunked[string] // value id -> value for display (no padding)
	writerOf      checks.Chunked[int32]  // value id -> the write attempt that stored it, -1, or vcDup
	rare          []vcRare
	final         bool // a final read answered (a value or 404)
	versions      int  // write attempts that may be versions (applied or maybe)
	setups        int  // setup write attempts that may have applied
	dupValues     int  // write attempts storing a value another attempt stored
	unmodeled     map[string]int
	droppedReads  int
}

func (c *VersionChain) key(op *checks.Op) *vcKey {
	k := c.keys[op.Key]
	if k == nil {
		room := max(c.expect[op.Key], 0) / 2 // about half a blob's records are writes, each with a new value and ETag
		k = &vcKey{key: op.Key, workload: op.Workload, etags: make(map[string]int32, room), vals: make(map[string]int32, room)}
		c.keys[op.Key] = k
		c.order = append(c.order, k)
	}
	return k
}

func (c *VersionChain) Str(s string) int32 {
	if id, ok := c.strs[s]; ok {
		return id
	}
	id := int32(len(c.strv))
	c.strs[s] = id
	c.strv = append(c.strv, s)
	return id
}

// Observe implements Checker.
func (c *VersionChain) Observe(op *checks.Op) {
	kind, keep := vcKindOf(op.Kind)
	if !keep {
		return
	}
	k := c.key(op)
	switch kind {
	case vcUnmodeled:
		if op.Outcome == checks.OK || checks.MayHaveApplied(op) {
			if k.unmodeled == nil {
				k.unmodeled = map[string]int{}
			}
			k.unmodeled[op.Kind]++
		}
		return
	case vcGet:
		if op.Actor == checks.ActorFinal && (op.Outcome == checks.OK || checks.IsNotFound(op)) {
			k.final = true
		}
		// A failed or timed-out read says nothing (CHECKERS.md, unknown
		// outcomes, rule 2); a 412 to If-Match is a refusal to judge.
		if op.Outcome != checks.OK && !checks.IsNotFound(op) && (op.Outcome != checks.Conflict || op.In.IfMatch == "") {
			k.droppedReads++
			return
		}
	default:
		if op.Outcome == checks.OK || checks.MayHaveApplied(op) {
			k.versions++
			if op.Actor == checks.ActorSetup {
				k.setups++
			}
		}
	}
	r := vcRec{
		seq: op.Seq, call: op.Call, ret: op.Return,
		actor: int32(op.Actor), attempt: int32(op.Attempt), kind: kind, outcome: op.Outcome, status: uint16(op.Out.Status),
		etag: k.etag(op.Out.ETag), ifMatch: k.cond(op.In.IfMatch), ifNone: k.cond(op.In.IfNoneMatch), value: -1, rare: -1,
		kname: c.Str(op.Kind), errCode: c.Str(op.Out.ErrorCode), lastMod: c.Str(op.Out.LastModified),
	}
	switch {
	case kind == vcWrite:
		r.value = c.valueID(k, op.In.Value)
	case kind == vcGet && op.Outcome == checks.OK && op.Out.Status != http.StatusNotModified:
		r.value = c.valueID(k, op.Out.Value)
	}
	reqKept := r.req.Keep(op.Out.RequestID)
	if r.ifMatch == vcOther || r.ifNone == vcOther || op.In.IfModifiedSince != "" || op.In.IfUnmodifiedSince != "" ||
		op.In.LeaseID != "" || op.Out.Err != "" || !reqKept {
		r.rare = int32(len(k.rare))
		k.rare = append(k.rare, vcRare{ifMatch: op.In.IfMatch, ifNoneMatch: op.In.IfNoneMatch, ifModifiedSince: op.In.IfModifiedSince,
			ifUnmodifiedSince: op.In.IfUnmodifiedSince, leaseID: op.In.LeaseID, err: op.Out.Err, reqID: op.Out.RequestID})
	}
	i := k.recs.Add(r)
	if kind == vcWrite {
		switch w := *k.writerOf.At(r.value); {
		case w == -1:
			*k.writerOf.At(r.value) = i
		case w >= 0:
			*k.writerOf.At(r.value) = vcDup
			k.dupValues++
		default:
			k.dupValues++
		}
	}
}

func (k *vcKey) etag(s string) int32 {
	if s == "" {
		return -1
	}
	if id, ok := k.etags[s]; ok {
		return id
	}
	id := k.etagStr.Add(s)
	k.etags[s] = id
	return id
}

func (k *vcKey) etagName(id int32) string { return *k.etagStr.At(id) }
func (k *vcKey) valName(id int32) string  { return *k.valStr.At(id) }

func (k *vcKey) cond(s string) int32 {
	switch {
	case s == "":
		return vcNone
	case s == "*":
		return vcStar
	case strings.ContainsRune(s, ','):
		return vcOther
	}
	return k.etag(s)
}

// vcWhole is the longest value kept whole as its own identity; a longer one
// (a padded payload) is identified by its first bytes and a 64-bit hash of
// all of it, so the check never holds payloads.
const vcWhole = 64

func (c *VersionChain) valueID(k *vcKey, s string) int32 {
	id := s
	if len(s) > vcWhole {
		c.buf = append(append(c.buf[:0], s[:32]...), 0)
		c.buf = binary.LittleEndian.AppendUint64(c.buf, maphash.String(c.seed, s))
		if v, ok := k.vals[string(c.buf)]; ok {
			return v
		}
		id = string(c.buf)
	} else if v, ok := k.vals[s]; ok {
		return v
	}
	v := k.valStr.Add(vcDisplay(s))
	k.writerOf.Add(-1)
	k.vals[id] = v
	return v
}

// vcDisplay is a value as excerpts show it: a counter value without its
// padding, any other long value cut.
func vcDisplay(s string) string {
	if len(s) <= vcWhole {
		return s
	}
	if short := checks.ShortValue(s); len(short) < len(s) {
		return short
	}
	return s[:40] + " ..."
}

// op rebuilds the recorded operation for an excerpt.
func (c *VersionChain) Op(k *vcKey, i int32) *checks.Op {
	r := k.recs.At(i)
	o := &checks.Op{Seq: r.seq, Actor: int(r.actor), Workload: k.workload, Kind: c.strv[r.kname], Key: k.key, Attempt: int(r.attempt),
		Intended: r.call, Call: r.call, Return: r.ret, Outcome: r.outcome,
		Out: checks.Output{Status: int(r.status), ErrorCode: c.strv[r.errCode], LastModified: c.strv[r.lastMod]}}
	o.Out.RequestID = r.req.String()
	cond := func(id int32) string {
		switch {
		case id >= 0:
			return k.etagName(id)
		case id == vcStar:
			return "*"
		}
		return ""
	}
	o.In.IfMatch, o.In.IfNoneMatch = cond(r.ifMatch), cond(r.ifNone)
	if r.etag >= 0 {
		o.Out.ETag = k.etagName(r.etag)
	}
	if r.value >= 0 {
		if r.kind == vcGet {
			o.Out.Value = k.valName(r.value)
		} else {
			o.In.Value = k.valName(r.value)
		}
	}
	if r.rare >= 0 {
		x := &k.rare[r.rare]
		if r.ifMatch == vcOther {
			o.In.IfMatch = x.ifMatch
		}
		if r.ifNone == vcOther {
			o.In.IfNoneMatch = x.ifNoneMatch
		}
		o.In.IfModifiedSince, o.In.IfUnmodifiedSince, o.In.LeaseID, o.Out.Err = x.ifModifiedSince, x.ifUnmodifiedSince, x.leaseID, x.err
		if x.reqID != "" {
			o.Out.RequestID = x.reqID
		}
	}
	return o
}

// vcTotals accumulates the summary over keys.
type vcTotals struct {
	keys, writes, chains, reads, refusals       int
	unknown, proven, lost, open                 int
	noFinal, unattributed, ambiguous, dupValues int
	unmodeled                                   map[string]int
	notJudged                                   int // records of keys not judged (unmodeled operations)
}

// Groups implements KeyLocal.
func (c *VersionChain) Groups(int) {}

// ExpectKey implements checks.KeySizer.
func (c *VersionChain) ExpectKey(key string, ops int) {
	if c.expect == nil {
		c.expect = map[string]int{}
	}
	c.expect[key] = ops
}

// EndGroup implements KeyLocal: it judges the keys seen so far.
func (c *VersionChain) EndGroup() {
	t := &c.t
	for _, k := range c.order {
		t.keys++
		if !k.final {
			t.noFinal++
		}
		t.dupValues += k.dupValues
		if len(k.unmodeled) > 0 {
			// A delete or another write the check does not model may have
			// changed the blob: judging the rest could blame the service
			// for the harness's own change.
			for kind, n := range k.unmodeled {
				t.unmodeled[kind] += n
			}
			t.notJudged += int(k.recs.Len())
			continue
		}
		a := newVCRun(c, k, &c.v)
		a.run()
		a.totals(t)
	}
	c.keys, c.order, c.expect = map[string]*vcKey{}, nil, nil
}

// Finish implements Checker.
func (c *VersionChain) Finish() checks.Result {
	c.EndGroup()
	return c.t.Result(&c.v)
}

func (t *vcTotals) Result(v *checks.Violations) checks.Result {
	var b strings.Builder
	if t.keys == 0 {
		b.WriteString("no blob reads or writes in the history")
	} else {
		fmt.Fprintf(&b, "%s, %s in %s, %s", checks.Plural(t.keys, "key", "keys"), checks.Plural(t.writes, "write", "writes"),
			checks.Plural(t.chains, "chain", "chains"), checks.Plural(t.reads, "read", "reads"))
		if t.refusals > 0 {
			fmt.Fprintf(&b, ", %s checked", checks.Plural(t.refusals, "refusal", "refusals"))
		}
		if t.unknown > 0 {
			fmt.Fprintf(&b, ", %s (%d read later, %d lost the race)", checks.Plural(t.unknown, "unknown write", "unknown writes"), t.proven, t.lost)
		}
	}
	var undecided []string
	if t.keys == 0 {
		undecided = append(undecided, "nothing to check")
	}
	if t.noFinal > 0 {
		undecided = append(undecided, "no final read of "+checks.Plural(t.noFinal, "key", "keys"))
	}
	if t.unattributed > 0 {
		undecided = append(undecided, checks.Plural(t.unattributed, "read", "reads")+" of values or ETags with no recorded write (history cut short?)")
	}
	if t.dupValues > 0 {
		undecided = append(undecided, checks.Plural(t.dupValues, "write attempt", "write attempts")+" reusing another's value")
	}
	if len(t.unmodeled) > 0 {
		kinds := make([]string, 0, len(t.unmodeled))
		for kind, n := range t.unmodeled {
			kinds = append(kinds, fmt.Sprintf("%s ×%d", kind, n))
		}
		sort.Strings(kinds)
		undecided = append(undecided, "operations the check does not model ("+strings.Join(kinds, ", ")+"): their keys were not judged")
	}
	switch {
	case v.Total > 0:
		fmt.Fprintf(&b, ": %s", checks.Plural(v.Total, "violation", "violations"))
	case len(undecided) > 0:
		b.WriteString(": undecided, " + strings.Join(undecided, ", "))
	default:
		b.WriteString(": linearizable")
	}
	if t.ambiguous > 0 {
		fmt.Fprintf(&b, " (%s not attributed: an unknown set-metadata may explain them)", checks.Plural(t.ambiguous, "read", "reads"))
	}
	r := v.Result(VersionChainName, b.String())
	if r.Verdict == checks.Pass && len(undecided) > 0 {
		r.Verdict = checks.Undecided
	}
	if t.proven+t.lost+t.open > 0 {
		r.Unknown = &checks.UnknownWrites{Applied: t.proven, NotApplied: t.lost, Open: t.open}
	}
	return r.WithDecided(t.writes + t.reads + t.refusals).
		Of(t.writes + t.reads + t.refusals + t.open + t.unattributed + t.ambiguous + t.notJudged)
}
