package consistency

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

const vc = VersionChainName

// vcb builds register histories with explicit call/return times on one key
// ("k"). Values are plain tags unless a test pads them.
type vcb struct{ h *checkstest.Hist }

func newVCB() *vcb { return &vcb{h: checkstest.NewHist()} }

const vcKeyName = "k"

func (b *vcb) Add(op checks.Op) uint64 {
	if op.Key == "" {
		op.Key = vcKeyName
	}
	return b.h.Add(op)
}

func (b *vcb) Setup(val, etag string) uint64 {
	return b.Add(checks.Op{Actor: checks.ActorSetup, Kind: checks.KindBlobPut, Call: 1, Return: 2, In: checks.Input{Value: val}, Out: checks.Output{Status: 201, ETag: etag}})
}

func (b *vcb) read(actor int, call, ret int64, val, etag string) uint64 {
	return b.Add(checks.Op{Actor: actor, Kind: checks.KindBlobGet, Call: call, Return: ret, Out: checks.Output{Status: 200, ETag: etag, Value: val}})
}

// read304 is a 304 to If-None-Match inm.
func (b *vcb) read304(actor int, call, ret int64, inm string) uint64 {
	return b.Add(checks.Op{Actor: actor, Kind: checks.KindBlobGet, Call: call, Return: ret, In: checks.Input{IfNoneMatch: inm}, Out: checks.Output{Status: 304}})
}

// condRead is a 200 to If-None-Match inm.
func (b *vcb) condRead(actor int, call, ret int64, inm, val, etag string) uint64 {
	s := b.read(actor, call, ret, val, etag)
	b.h.Op(s).In.IfNoneMatch = inm
	return s
}

func (b *vcb) read404(actor int, call, ret int64) uint64 {
	return b.Add(checks.Op{Actor: actor, Kind: checks.KindBlobGet, Call: call, Return: ret, Outcome: checks.Error, Out: checks.Output{Status: 404, ErrorCode: "BlobNotFound"}})
}

func (b *vcb) write(actor int, kind string, call, ret int64, in checks.Input, o checks.Outcome, etag string) uint64 {
	out := checkstest.Answered(kind, o)
	if o == checks.OK {
		out.Status, out.ETag = 201, etag
	}
	return b.Add(checks.Op{Actor: actor, Kind: kind, Call: call, Return: ret, Outcome: o, In: in, Out: out})
}

// put is a blob.put; ifMatch "" makes it unconditional.
func (b *vcb) Put(actor int, call, ret int64, ifMatch, val string, o checks.Outcome, etag string) uint64 {
	return b.write(actor, checks.KindBlobPut, call, ret, checks.Input{IfMatch: ifMatch, Value: val}, o, etag)
}

func (b *vcb) setmeta(actor int, call, ret int64, ifMatch string, o checks.Outcome, etag string) uint64 {
	return b.write(actor, "blob.setmeta", call, ret, checks.Input{IfMatch: ifMatch}, o, etag)
}

// create is a blob.create with If-None-Match: *.
func (b *vcb) Create(actor int, call, ret int64, val string, o checks.Outcome, etag string) uint64 {
	return b.write(actor, checks.KindBlobCreate, call, ret, checks.Input{IfNoneMatch: "*", Value: val}, o, etag)
}

func (b *vcb) Final(t int64, val, etag string) uint64 {
	return b.read(checks.ActorFinal, t, t+1, val, etag)
}

func TestVersionChain(t *testing.T) {
	cases := []struct {
		name  string
		build func(b *vcb) checkstest.Want
	}{
		// Clean histories.
		{"clean single-chain CAS with many 412s", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			b.read(0, 10, 12, "init", "E0")
			b.read(1, 11, 13, "init", "E0")
			b.read(2, 11, 14, "init", "E0")
			b.Put(0, 15, 20, "E0", "a0-1", checks.OK, "E1")
			b.Put(1, 16, 22, "E0", "a1-1", checks.Conflict, "") // overlaps the write that replaced E0
			b.read(1, 23, 24, "a0-1", "E1")
			b.Put(2, 25, 27, "E0", "a2-1", checks.Conflict, "")
			b.Put(1, 25, 30, "E1", "a1-2", checks.OK, "E2")
			b.read(2, 28, 29, "a0-1", "E1") // overlaps the write of E2: may still see E1
			b.Put(0, 31, 33, "E1", "a0-2", checks.Conflict, "")
			b.read(0, 34, 35, "a1-2", "E2")
			b.Put(2, 35, 36, "E1", "a2-2", checks.Conflict, "")
			b.Put(0, 36, 40, "E2", "a0-3", checks.OK, "E3")
			b.Put(1, 37, 39, "E2", "a1-3", checks.Conflict, "")
			b.read(2, 41, 42, "a0-3", "E3")
			b.Final(50, "a0-3", "E3")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 key, 4 writes in 1 chain, 8 reads, 5 refusals checked: linearizable"}
		}},
		{"clean LWW: overlapping reads see either concurrent write", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			b.Put(0, 10, 40, "", "a0-1", checks.OK, "E1")
			b.Put(1, 20, 50, "", "a1-1", checks.OK, "E2")
			b.read(2, 15, 25, "init", "E0") // before either took effect
			b.read(2, 30, 60, "a0-1", "E1") // w1 after w2 ...
			b.read(3, 35, 45, "a1-1", "E2") // ... w2 still current here
			b.read(4, 36, 44, "init", "E0") // and neither yet (w2 at 37, w1 at 46)
			b.read(2, 70, 75, "a0-1", "E1")
			b.Final(80, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 key, 3 writes in 3 chains, 6 reads: linearizable"}
		}},
		{"an op called the instant another returned is concurrent with it", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			b.Put(0, 10, 15, "E0", "a0-1", checks.OK, "E1")
			b.read(1, 15, 20, "init", "E0") // in the chain
			b.Put(2, 20, 25, "", "a2-1", checks.OK, "E2")
			b.read(1, 25, 30, "a0-1", "E1") // across chains
			b.Final(40, "a2-1", "E2")
			return checkstest.Want{Verdict: checks.Pass, Summary: "linearizable"}
		}},
		{"stage and lease ops are ignored; timed-out reads dropped", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			b.Add(checks.Op{Actor: 0, Kind: "blob.lease.acquire", Call: 5, Return: 6, In: checks.Input{LeaseID: "L"}, Out: checks.Output{Status: 201, Value: "L"}})
			b.Add(checks.Op{Actor: 0, Kind: "blob.stage", Call: 7, Return: 8, In: checks.Input{Value: "blockid"}, Out: checks.Output{Status: 201}})
			b.Add(checks.Op{Actor: 1, Kind: checks.KindBlobGet, Call: 9, Return: 90, Outcome: checks.Unknown, Out: checks.Output{Err: "timeout"}})
			b.Add(checks.Op{Actor: 1, Kind: checks.KindBlobGet, Call: 9, Return: 10, Outcome: checks.Throttled, Out: checks.Output{Status: 503, ErrorCode: "ServerBusy"}})
			b.write(0, "blob.commit", 10, 15, checks.Input{IfMatch: "E0", Value: "a0-1", LeaseID: "L"}, checks.OK, "E1")
			b.Add(checks.Op{Actor: 0, Kind: "blob.lease.release", Call: 16, Return: 17, In: checks.Input{LeaseID: "L"}, Out: checks.Output{Status: 200}})
			b.Add(checks.Op{Actor: 9, Kind: "container.setmeta", Key: "c", Call: 16, Return: 17, Out: checks.Output{Status: 200}})
			b.Final(20, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 key, 2 writes in 1 chain, 1 read: linearizable"}
		}},

		// Forks, phantoms, mismatches, refused writes.
		{"fork: two applied writes on one base", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			b.read(0, 10, 11, "init", "E0")
			b.read(1, 10, 12, "init", "E0")
			p := b.Put(0, 13, 15, "E0", "a0-1", checks.OK, "E1")
			q := b.Put(1, 14, 16, "E0", "a1-1", checks.OK, "E2")
			b.Final(20, "a1-1", "E2")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("fork: #4 and #5 both took effect with If-Match E0", p, q)}}
		}},
		{"phantom read", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			r := b.read(0, 10, 11, "ghost", "E7")
			b.Final(20, "init", "E0")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio(`phantom read: #2 read "ghost"`, r)}}
		}},
		{"read of a value with another version's ETag", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			w := b.Put(0, 10, 15, "E0", "a0-1", checks.OK, "E1")
			r := b.read(1, 20, 25, "a0-1", "E0")
			b.Final(30, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio(`ETag/value mismatch: #3 read "a0-1" with ETag E0`, r, w)}}
		}},
		{"read of a value with an ETag no write returned", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			w := b.Put(0, 10, 15, "E0", "a0-1", checks.OK, "E1")
			r := b.read(1, 20, 25, "a0-1", "E9")
			b.Final(30, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("but #2 installed that value as E1", r, w)}}
		}},
		{"a refused write's value is read", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			w := b.Put(0, 10, 15, "E0", "a0-1", checks.Conflict, "")
			r := b.read(1, 20, 25, "a0-1", "E1")
			b.Final(30, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{checkstest.Vio("a refused write took effect: #3 read the value of #2, which was answered conflict 412", r, w)}}
		}},
		{"a write succeeds on an ETag no write produced", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			w := b.Put(0, 10, 15, "E7", "a0-1", checks.OK, "E1")
			b.Final(30, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("phantom base: #2 took effect with If-Match E7, an ETag no write produced", w)}}
		}},
		{"... unless a write of unknown outcome may have produced it", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			b.Put(1, 5, 100, "", "a1-1", checks.Unknown, "")
			b.Put(0, 10, 15, "E7", "a0-1", checks.OK, "E1")
			b.Final(200, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "linearizable"}
		}},
		{"two writes each replaced the other's ETag", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			p := b.Put(0, 10, 15, "E2", "a0-1", checks.OK, "E1")
			q := b.Put(1, 20, 25, "E1", "a1-1", checks.OK, "E2")
			b.Final(30, "a1-1", "E2")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("version loop: the writes #2 #3 each replaced", p, q)}}
		}},
		{"a retried setup write still comes first", func(b *vcb) checkstest.Want {
			b.Add(checks.Op{Actor: checks.ActorSetup, Kind: checks.KindBlobPut, Call: 1, Return: 2, Outcome: checks.Throttled, In: checks.Input{Value: "init-1"},
				Out: checks.Output{Status: 503, ErrorCode: "ServerBusy"}})
			b.Add(checks.Op{Actor: checks.ActorSetup, Kind: checks.KindBlobPut, Attempt: 2, Call: 3, Return: 4, In: checks.Input{Value: "init-2"}, Out: checks.Output{Status: 201, ETag: "E0"}})
			b.Put(0, 10, 15, "E0", "a0-1", checks.OK, "E1")
			b.Final(30, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 key, 2 writes in 1 chain, 1 read: linearizable"}
		}},
		{"two writes return one ETag", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			p := b.Put(0, 10, 15, "", "a0-1", checks.OK, "E1")
			q := b.Put(1, 20, 25, "", "a1-1", checks.OK, "E1")
			b.Final(30, "a1-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{checkstest.Vio("ETag reused: #2 and #3", p, q)}}
		}},
		{"read from the future", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			r := b.read(1, 5, 8, "a0-1", "E1")
			w := b.Put(0, 10, 15, "E0", "a0-1", checks.OK, "E1")
			b.Final(30, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{checkstest.Vio("read from the future: #2 read E1 and returned before #3", r, w)}}
		}},

		// Stale reads and cycles.
		{"stale read after a completed later write in the chain", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			w := b.Put(0, 10, 15, "E0", "a0-1", checks.OK, "E1")
			r := b.read(1, 20, 25, "init", "E0")
			b.Final(30, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{
				checkstest.Vio("stale read: #3 read E0 after #2 had written E1, the next version in its If-Match chain", r, w)}}
		}},
		{"stale read two versions back: blamed on the nearest", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			w1 := b.Put(0, 10, 15, "E0", "a0-1", checks.OK, "E1")
			b.read(2, 11, 40, "init", "E0") // overlaps both writes: fine
			b.Put(0, 20, 25, "E1", "a0-2", checks.OK, "E2")
			r := b.read(1, 30, 35, "init", "E0")
			b.Final(50, "a0-2", "E2")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("stale read: #5 read E0 after #2 had written E1, the next version", r, w1)}}
		}},
		{"stale read of the initial version after an unconditional write", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			w := b.Put(0, 10, 15, "", "a0-1", checks.OK, "E1")
			r := b.read(1, 20, 25, "init", "E0")
			b.Final(30, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("stale read: #3 read E0 after #2 had written E1, but E0 comes first", r, w)}}
		}},
		{"stale read across chains of unconditional writes", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			w1 := b.Put(0, 10, 15, "", "a0-1", checks.OK, "E1")
			w2 := b.Put(1, 20, 25, "", "a1-1", checks.OK, "E2")
			r := b.read(2, 30, 35, "a0-1", "E1")
			b.Final(40, "a1-1", "E2")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{
				checkstest.Vio("stale read: #4 read E1 after #3 had written E2, yet E1 precedes E2: #2 had written E1 before #3 wrote E2", r, w1, w2)}}
		}},
		{"blob vanishes: a 404 after the setup", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			r := b.read404(1, 20, 25)
			b.Final(30, "init", "E0")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("stale read: #2 found no blob after #1 had written E0", r, 1)}}
		}},

		// Conditional reads and set-metadata.
		{"304 to a stale If-None-Match after a completed write", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			w := b.Put(0, 10, 15, "E0", "a0-1", checks.OK, "E1")
			r := b.read304(1, 20, 25, "E0")
			b.Final(30, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("stale read: #3 got 304 Not Modified for E0 after #2 had written E1", r, w)}}
		}},
		{"304 and 200 to If-None-Match that are fine", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			b.read(0, 5, 6, "init", "E0")
			b.read304(0, 7, 8, "E0")
			b.Put(1, 9, 15, "E0", "a1-1", checks.OK, "E1")
			b.read304(0, 10, 12, "E0") // overlaps the write
			b.read304(0, 20, 25, "E1")
			b.condRead(2, 26, 27, "E0", "a1-1", "E1")
			b.Final(30, "a1-1", "E1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "6 reads: linearizable"}
		}},
		{"304 to an ETag no write produced", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			r := b.read304(1, 20, 25, "E5")
			b.Final(30, "init", "E0")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("phantom read: #2 got 304 Not Modified to If-None-Match E5", r)}}
		}},
		{"200 to If-None-Match with that very ETag", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			r := b.condRead(1, 20, 25, "E0", "init", "E0")
			b.Final(30, "init", "E0")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("sent If-None-Match E0 and got 200 with that very ETag", r)}}
		}},
		{"set-metadata: new ETag, old value", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			b.setmeta(0, 10, 15, "E0", checks.OK, "E1")
			b.read(1, 20, 25, "init", "E1")
			b.setmeta(0, 26, 28, "", checks.OK, "E2")
			b.read(1, 30, 35, "init", "E2")
			b.Final(40, "init", "E2")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 key, 3 writes in 2 chains, 3 reads: linearizable"}
		}},
		{"set-metadata: stale read of the ETag it replaced", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			w := b.setmeta(0, 10, 15, "E0", checks.OK, "E1")
			r := b.read(1, 20, 25, "init", "E0")
			b.Final(40, "init", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("stale read: #3 read E0 after #2 had written E1", r, w)}}
		}},
		{"set-metadata: its ETag with another version's value", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			b.Put(0, 10, 15, "E0", "a0-1", checks.OK, "E1")
			b.setmeta(0, 20, 25, "E1", checks.OK, "E2")
			r := b.read(1, 30, 35, "init", "E2")
			b.Final(40, "a0-1", "E2")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio(`ETag/value mismatch: #4 read "init" with ETag E2`, r, 3)}}
		}},

		// Unknown outcomes.
		{"unknown write later read", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			b.read(0, 5, 6, "init", "E0")
			b.Put(0, 10, 100, "E0", "a0-1", checks.Unknown, "")
			b.read(1, 20, 25, "a0-1", "E1")
			b.Put(1, 30, 35, "E1", "a1-1", checks.OK, "E2")
			b.Final(200, "a1-1", "E2")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 unknown write (1 read later, 0 lost the race): linearizable"}
		}},
		{"unknown write lands after its client gave up", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			b.read(0, 5, 6, "init", "E0")
			b.Put(0, 10, 20, "E0", "a0-1", checks.Unknown, "")
			b.read(1, 25, 28, "init", "E0") // after the timeout, before it landed
			b.read(1, 30, 35, "a0-1", "E1")
			b.Final(200, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "linearizable"}
		}},
		{"unknown write never read", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			b.read(0, 5, 6, "init", "E0")
			b.Put(0, 10, 100, "E0", "a0-1", checks.Unknown, "")
			b.read(1, 20, 25, "init", "E0")
			b.Put(1, 30, 35, "E0", "a1-1", checks.OK, "E1")
			b.Add(checks.Op{Actor: 2, Kind: checks.KindBlobPut, Call: 40, Return: 45, Outcome: checks.Throttled, In: checks.Input{Value: "a2-1"},
				Out: checks.Output{Status: 500, ErrorCode: "OperationTimedOut"}})
			b.Final(200, "a1-1", "E1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "2 unknown writes (0 read later, 1 lost the race): linearizable"}
		}},
		{"unknown write explains a 412", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			b.Put(0, 10, 100, "E0", "a0-1", checks.Unknown, "")
			b.Put(1, 20, 25, "E0", "a1-1", checks.Conflict, "")
			b.Put(2, 30, 35, "", "a2-1", checks.OK, "E2")
			b.Final(200, "a2-1", "E2")
			return checkstest.Want{Verdict: checks.Pass, Summary: "linearizable"}
		}},
		{"... and without it the 412 is flagged", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			q := b.Put(1, 20, 25, "E0", "a1-1", checks.Conflict, "")
			b.Put(2, 30, 35, "", "a2-1", checks.OK, "E2")
			b.Final(200, "a2-1", "E2")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{
				checkstest.Vio("412 on a current ETag: #2 was refused for If-Match E0, yet E0 was current for the whole request: #1 had written E0 before #2 was sent, and no write that could replace it was sent before #2 returned", q)}}
		}},
		{"unknown write cannot hide a fork", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			b.read(0, 5, 6, "init", "E0")
			b.read(1, 5, 7, "init", "E0")
			u := b.Put(0, 10, 100, "E0", "a0-1", checks.Unknown, "")
			w := b.Put(1, 12, 15, "E0", "a1-1", checks.OK, "E1")
			r := b.read(2, 20, 25, "a0-1", "Eu")
			b.Final(200, "a0-1", "Eu")
			return checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{
				checkstest.Vio("fork: #4 and #5 both took effect with If-Match E0 (unknown outcome, read later and acknowledged)", u, w, r)}}
		}},
		{"missing final read", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			b.read(0, 5, 6, "init", "E0")
			b.Put(0, 10, 15, "E0", "a0-1", checks.OK, "E1")
			b.read(1, 20, 25, "a0-1", "E1")
			b.read(1, 26, 27, "a9-9", "E9") // its write may be missing from a cut-short history
			return checkstest.Want{Verdict: checks.Undecided, Summary: "undecided, no final read of 1 key, 1 read of values or ETags with no recorded write"}
		}},
		{"missing final read does not hide a violation", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			w := b.Put(0, 10, 15, "E0", "a0-1", checks.OK, "E1")
			r := b.read(1, 20, 25, "init", "E0")
			return checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{checkstest.Vio("stale read", r, w)}}
		}},

		// Refusals.
		{"412 while its ETag was provably current", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			b.read(0, 5, 6, "init", "E0")
			q := b.Put(1, 10, 15, "E0", "a1-1", checks.Conflict, "")
			w := b.Put(0, 20, 25, "E0", "a0-1", checks.OK, "E1")
			b.Final(30, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{
				checkstest.Vio("412 on a current ETag: #3 was refused for If-Match E0, yet E0 was current for the whole request: #1 had written E0 before #3 was sent, and the write that replaced it, #4, was sent after #3 returned", q, w)}}
		}},
		{"412 on the version the final read still found", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			q := b.Put(1, 10, 15, "E0", "a1-1", checks.Conflict, "")
			f := b.Final(30, "init", "E0")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("and the final read #3 still found it", q, f)}}
		}},
		{"ambiguous 412: overlaps the write that replaced its ETag", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			b.Put(1, 10, 30, "E0", "a1-1", checks.Conflict, "")
			b.Put(0, 15, 20, "E0", "a0-1", checks.OK, "E1")
			b.Final(40, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 refusal checked: linearizable"}
		}},
		{"412 to an ETag not yet certainly installed", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			b.Put(1, 10, 15, "E1", "a1-1", checks.Conflict, "") // E1's write is still in flight
			b.Put(0, 12, 20, "E0", "a0-1", checks.OK, "E1")
			b.Put(0, 25, 30, "E1", "a0-2", checks.OK, "E2")
			b.Final(40, "a0-2", "E2")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 refusal checked: linearizable"}
		}},
		{"412 with a date condition or a lease error is not judged", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			b.write(1, checks.KindBlobPut, 10, 15, checks.Input{IfMatch: "E0", IfUnmodifiedSince: "Mon, 02 Jan 2006 15:04:05 GMT", Value: "a1-1"}, checks.Conflict, "")
			b.Add(checks.Op{Actor: 2, Kind: checks.KindBlobPut, Call: 10, Return: 15, Outcome: checks.Conflict, In: checks.Input{IfMatch: "E0", LeaseID: "L", Value: "a2-1"},
				Out: checks.Output{Status: 412, ErrorCode: "LeaseIdMismatchWithBlobOperation"}})
			b.Final(30, "init", "E0")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 key, 1 write in 1 chain, 1 read: linearizable"}
		}},

		// Create-once: the initial version is "no blob".
		{"create-once, clean", func(b *vcb) checkstest.Want {
			b.read404(2, 5, 6)
			b.Create(0, 10, 15, "a0-1", checks.OK, "E1")
			b.Create(1, 12, 18, "a1-1", checks.Conflict, "")
			b.Create(2, 20, 25, "a2-1", checks.Conflict, "")
			b.Final(30, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 key, 1 write in 1 chain, 2 reads, 2 refusals checked: linearizable"}
		}},
		{"create-once: 409 while no blob existed", func(b *vcb) checkstest.Want {
			b.read404(2, 5, 6)
			q := b.Create(1, 10, 15, "a1-1", checks.Conflict, "")
			b.Create(0, 20, 25, "a0-1", checks.OK, "E1")
			b.Final(30, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("409 on an absent blob: #2 was refused", q)}}
		}},
		{"no blob, an unconditional put, then a 404", func(b *vcb) checkstest.Want {
			w := b.Put(0, 10, 15, "", "a0-1", checks.OK, "E1")
			r := b.read404(1, 20, 25)
			// No final read: only "no blob comes first" shows it.
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("stale read: #2 found no blob after #1 had written E1, but no blob comes first", r, w)}}
		}},
		{"create-once: two creators", func(b *vcb) checkstest.Want {
			p := b.Create(0, 10, 15, "a0-1", checks.OK, "E1")
			q := b.Create(1, 12, 18, "a1-1", checks.OK, "E2")
			b.Final(30, "a1-1", "E2")
			return checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{checkstest.Vio("fork: #1 and #2 both created the blob", p, q)}}
		}},

		// What the check does not model.
		{"a delete makes the key undecided", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			b.Add(checks.Op{Actor: 0, Kind: "blob.delete", Call: 10, Return: 15, Out: checks.Output{Status: 202}})
			b.read404(1, 20, 25)
			b.Final(30, "init", "E0")
			return checkstest.Want{Verdict: checks.Undecided, Summary: "operations the check does not model (blob.delete ×1)"}
		}},
		{"two attempts storing one value make the key undecided", func(b *vcb) checkstest.Want {
			b.Setup("init", "E0")
			b.Put(0, 10, 15, "E0", "same", checks.OK, "E1")
			b.Put(1, 20, 25, "E1", "same", checks.OK, "E2")
			b.Final(30, "same", "E2")
			return checkstest.Want{Verdict: checks.Undecided, Summary: "1 write attempt reusing another's value"}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := newVCB()
			w := tc.build(b)
			w.Assert(t, b.h.Check(t, vc))
		})
	}
}

// A cycle no single read shows: two concurrent writes, then one read sees
// w1 and a later one w2. Each read alone is fine.
func TestVersionChainCycle(t *testing.T) {
	build := func(readA, readB bool) (*vcb, uint64, uint64) {
		b := newVCB()
		b.Setup("init", "E0")
		b.Put(0, 10, 30, "", "a0-1", checks.OK, "E1")
		b.Put(1, 10, 30, "", "a1-1", checks.OK, "E2")
		var ra, rb uint64
		if readA {
			ra = b.read(2, 40, 45, "a0-1", "E1")
		}
		if readB {
			rb = b.read(3, 50, 55, "a1-1", "E2")
		}
		switch {
		case readA && !readB:
			b.Final(60, "a0-1", "E1")
		case readB && !readA:
			b.Final(60, "a1-1", "E2")
		}
		return b, ra, rb
	}
	b, _, _ := build(true, false)
	checkstest.Want{Verdict: checks.Pass}.Assert(t, b.h.Check(t, vc))
	b, _, _ = build(false, true)
	checkstest.Want{Verdict: checks.Pass}.Assert(t, b.h.Check(t, vc))
	b, ra, rb := build(true, true)
	checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("precedes", ra, rb, 2, 3)}}.Assert(t, b.h.Check(t, vc))
}

// A stale read deep in a long chain is reported with the versions next to
// it, not the chain's ends; several stale reads give several violations.
func TestVersionChainLongChain(t *testing.T) {
	b := newVCB()
	b.Setup("v0", "E0")
	tm := int64(10)
	var stale []uint64
	for i := 1; i <= 200; i++ {
		b.read(0, tm, tm+1, fmt.Sprintf("v%d", i-1), fmt.Sprintf("E%d", i-1))
		b.Put(0, tm+2, tm+3, fmt.Sprintf("E%d", i-1), fmt.Sprintf("v%d", i), checks.OK, fmt.Sprintf("E%d", i))
		if i%50 == 0 {
			stale = append(stale, b.read(1, tm+5, tm+6, fmt.Sprintf("v%d", i-1), fmt.Sprintf("E%d", i-1)))
		}
		tm += 10
	}
	b.Final(tm, "v200", "E200")
	r := b.h.Check(t, vc)
	var vs []checkstest.ExpectViolation
	for _, s := range stale {
		vs = append(vs, checkstest.Vio("stale read", s, s-1))
	}
	checkstest.Want{Verdict: checks.Fail, Total: len(stale), Vios: vs, Summary: "201 writes in 1 chain"}.Assert(t, r)
}

// Padded counter values are identified exactly, shown without padding.
func TestVersionChainPaddedValues(t *testing.T) {
	b := newVCB()
	pad := func(n int64, tag string) string { return checks.CounterValue{N: n, Tag: tag}.Format(2000) }
	b.Setup(pad(0, "setup-1"), "E0")
	b.read(0, 5, 6, pad(0, "setup-1"), "E0")
	b.Put(0, 10, 15, "E0", pad(1, "a0-1"), checks.OK, "E1")
	b.read(1, 20, 25, pad(1, "a0-1"), "E1")
	checkstest.Want{Verdict: checks.Fail}.Assert(t, func() checks.Result {
		b2 := newVCB()
		b2.h.Ops = append([]checks.Op(nil), b.h.Ops...)
		b2.h.T = b.h.T
		// The same counter and tag with other padding is another value.
		r := b2.read(1, 30, 35, pad(1, "a0-1")+"x", "E1")
		b2.Final(40, pad(1, "a0-1"), "E1")
		res := b2.h.Check(t, vc)
		if !strings.Contains(res.Violations[0].Message, "ETag/value mismatch") && !strings.Contains(res.Violations[0].Message, "phantom") {
			t.Errorf("read #%d: %s", r, checkstest.Describe(res))
		}
		return res
	}())
	b.Final(40, pad(1, "a0-1"), "E1")
	checkstest.Want{Verdict: checks.Pass}.Assert(t, b.h.Check(t, vc))
	q := newVCB()
	q.Setup(pad(0, "setup-1"), "E0")
	q.Put(0, 10, 15, "E0", pad(1, "a0-1"), checks.OK, "E1")
	q.read(1, 20, 25, pad(0, "setup-1"), "E0")
	q.Final(40, pad(1, "a0-1"), "E1")
	r := q.h.Check(t, vc)
	checkstest.Want{Verdict: checks.Fail}.Assert(t, r)
	for _, v := range r.Violations {
		for _, o := range v.Ops {
			if len(o.In.Value) > 48 || len(o.Out.Value) > 48 {
				t.Errorf("excerpt keeps padding: %s", o.String())
			}
		}
	}
}

func TestVersionChainRegistered(t *testing.T) {
	c, err := checks.New(VersionChainName)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name() != VersionChainName {
		t.Fatalf("name %q", c.Name())
	}
	if r := c.Finish(); r.Check != VersionChainName || r.Verdict != checks.Undecided {
		t.Fatalf("empty history: %s %s", r.Check, r.Verdict)
	}
}

// Generated register histories: a correct service always passes, one lost
// update always fails, whatever the actors, interleaving and unknowns.
func TestVersionChainProperty(t *testing.T) {
	seeds := uint64(300)
	if testing.Short() {
		seeds = 50
	}
	mixes := []registerMix{registerCASMix, {Read: 0.5, IfMatch: 0.3, Uncond: 0.2, CondRead: 0.4, SetMeta: 0.15}, {Read: 0.6, Uncond: 0.4, CondRead: 0.3}}
	var unknowns, ops int
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 11))
		actors, n := 1+r.IntN(16), 20+r.IntN(600)
		mix := mixes[seed%uint64(len(mixes))]
		rate := []float64{0, 0.01, 0.05}[r.IntN(3)]
		for _, bad := range []bool{false, true} {
			h := genRegisterHistory(rand.New(rand.NewPCG(seed, 12)), actors, n, mix, rate, bad)
			ops += len(h)
			for i := range h {
				if h[i].Outcome == checks.Unknown {
					unknowns++
				}
			}
			res := checks.Run(h, NewVersionChain())[0]
			if !bad && res.Verdict != checks.Pass {
				t.Fatalf("seed %d (actors %d, ops %d, mix %+v, unknown %.2f): valid history judged %s\n%s", seed, actors, n, mix, rate, res.Verdict, checkstest.Describe(res))
			}
			if bad && res.Verdict != checks.Fail {
				t.Fatalf("seed %d (actors %d, ops %d, mix %+v, unknown %.2f): history with a lost update judged %s\n%s", seed, actors, n, mix, rate, res.Verdict, checkstest.Describe(res))
			}
		}
	}
	if unknowns == 0 {
		t.Fatal("generator made no unknown outcomes")
	}
	t.Logf("%d histories, %d ops, %d unknown", 2*seeds, ops, unknowns)
}

// The other simulators' histories (counter workloads under If-Match or a
// lease, create-once; throttles, 500s, late and retried writes): valid ones
// never fail, and the injected faults that break linearizability fail.
func TestVersionChainOtherSimulators(t *testing.T) {
	seeds := uint64(200)
	if testing.Short() {
		seeds = 30
	}
	for seed := range seeds {
		cfg := checkstest.RandomCounterConfig(rand.New(rand.NewPCG(seed, 1)))
		ops := checkstest.SimulateCounter(rand.New(rand.NewPCG(seed, 2)), &cfg)
		if r := checks.Run(ops, NewVersionChain())[0]; r.Verdict != checks.Pass {
			t.Fatalf("counter seed %d (%v): valid history judged %s\n%s", seed, cfg, r.Verdict, checkstest.Describe(r))
		}
		cfg.Inject = true
		s := &checkstest.CounterSim{}
		ops = checkstest.SimulateCounterWith(rand.New(rand.NewPCG(seed, 2)), &cfg, s)
		if r := checks.Run(ops, NewVersionChain())[0]; s.Injected && r.Verdict != checks.Fail {
			t.Fatalf("counter seed %d (%v): acknowledged write that stored nothing judged %s\n%s", seed, cfg, r.Verdict, checkstest.Describe(r))
		} else {
			checkstest.CheckKinds(t, r)
		}

		ccfg := checkstest.RandomCreateConfig(rand.New(rand.NewPCG(seed, 3)))
		ops, _ = checkstest.SimulateCreateOnce(rand.New(rand.NewPCG(seed, 4)), &ccfg)
		if r := checks.Run(ops, NewVersionChain())[0]; r.Verdict != checks.Pass {
			t.Fatalf("create seed %d (%v): valid history judged %s\n%s", seed, ccfg, r.Verdict, checkstest.Describe(r))
		}
		ccfg.Inject = true
		ops, injected := checkstest.SimulateCreateOnce(rand.New(rand.NewPCG(seed, 4)), &ccfg)
		if r := checks.Run(ops, NewVersionChain())[0]; injected && r.Verdict != checks.Fail {
			t.Fatalf("create seed %d (%v): second creator judged %s\n%s", seed, ccfg, r.Verdict, checkstest.Describe(r))
		} else {
			checkstest.CheckKinds(t, r)
		}
	}
}

// BenchmarkVersionChain checks generated register histories (CAS mix, 1%
// unknown writes) of 1k to 1M operations on one blob.
func BenchmarkVersionChain(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000, 1_000_000} {
		for _, actors := range []int{4, 16, 64} {
			b.Run(fmt.Sprintf("ops=%d/actors=%d", n, actors), func(b *testing.B) {
				h := genRegisterHistory(rand.New(rand.NewPCG(uint64(n), uint64(actors))), actors, n, registerCASMix, 0.01, false)
				b.ReportAllocs()
				b.ResetTimer()
				var r checks.Result
				for b.Loop() {
					r = checks.Run(h, NewVersionChain())[0]
				}
				if r.Verdict != checks.Pass {
					b.Fatalf("judged %s: %s", r.Verdict, r.Summary)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(h)), "ns/histop")
			})
		}
	}
}
