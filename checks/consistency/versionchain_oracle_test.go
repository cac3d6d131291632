package consistency

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

// A brute-force oracle for small register histories: Wing and Gong's
// search for a linearization against the sequential spec of a blob with
// ETags (bruteLinearizable).

type regState struct {
	exists      bool
	etag, value string
}

// regStep applies op to s per the blob's documented semantics; ok is false
// when op's recorded answer is impossible in state s.
func regStep(s regState, op *checks.Op) (regState, bool) {
	matches := func(cond string) bool { return cond == "*" && s.exists || s.exists && s.etag == cond }
	switch op.Kind {
	case checks.KindBlobGet:
		switch {
		case op.Outcome == checks.Conflict: // 412 to If-Match
			return s, !matches(op.In.IfMatch)
		case op.Out.Status == http.StatusNotFound:
			return s, !s.exists
		case op.Out.Status == http.StatusNotModified:
			return s, s.exists && s.etag == op.In.IfNoneMatch
		}
		ok := s.exists && s.etag == op.Out.ETag && s.value == op.Out.Value
		if op.In.IfNoneMatch != "" {
			ok = ok && s.etag != op.In.IfNoneMatch
		}
		return s, ok
	}
	allowed := true
	if op.In.IfMatch != "" {
		allowed = matches(op.In.IfMatch)
	}
	if op.In.IfNoneMatch == "*" {
		allowed = allowed && !s.exists
	}
	if op.Outcome != checks.OK {
		return s, !allowed // refused: nothing changed
	}
	if !allowed || op.Kind == "blob.setmeta" && !s.exists {
		return s, false
	}
	n := regState{exists: true, etag: op.Out.ETag, value: op.In.Value}
	if op.Kind == "blob.setmeta" {
		n.value = s.value
	}
	return n, true
}

// bruteLinearizable searches every order of ops that real time allows. A
// write of unknown outcome may take effect at any instant after its call,
// with any ETag no acknowledged write returned, or never; a timed-out read
// says nothing.
func bruteLinearizable(ops []checks.Op) bool {
	n := len(ops)
	if n > 20 {
		panic("bruteLinearizable: too many ops")
	}
	var optional uint32
	acked := map[string]bool{}
	for i := range ops {
		if ops[i].Outcome == checks.Unknown {
			optional |= 1 << i
		} else if ops[i].Kind != checks.KindBlobGet && ops[i].Outcome == checks.OK {
			acked[ops[i].Out.ETag] = true
		}
	}
	etags := []string{"0x?unseen"}
	for i := range ops {
		for _, e := range []string{ops[i].Out.ETag, ops[i].In.IfMatch, ops[i].In.IfNoneMatch} {
			if e != "" && e != "*" && !acked[e] && !slices.Contains(etags, e) {
				etags = append(etags, e)
			}
		}
	}
	seen := map[string]bool{}
	var search func(done uint32, s regState) bool
	search = func(done uint32, s regState) bool {
		if done|optional == 1<<n-1 {
			return true
		}
		key := fmt.Sprintf("%x|%v|%s|%s", done, s.exists, s.etag, s.value)
		if seen[key] {
			return false
		}
		seen[key] = true
		// The earliest return among the remaining ops: only ops called by
		// then can go next.
		minRet := int64(vcInf)
		for i := range n {
			if done&(1<<i) == 0 && optional&(1<<i) == 0 {
				minRet = min(minRet, ops[i].Return)
			}
		}
		for i := range n {
			if done&(1<<i) != 0 || ops[i].Call > minRet {
				continue
			}
			if optional&(1<<i) == 0 {
				if t, ok := regStep(s, &ops[i]); ok && search(done|1<<i, t) {
					return true
				}
				continue
			}
			if ops[i].Kind == checks.KindBlobGet {
				continue
			}
			for _, e := range etags { // it takes effect, with some ETag
				o := ops[i]
				o.Outcome, o.Out = checks.OK, checks.Output{Status: 201, ETag: e}
				if t, ok := regStep(s, &o); ok && search(done|1<<i, t) {
					return true
				}
			}
		}
		return false
	}
	return search(0, regState{})
}

// perturb makes up to two changes a faulty service (or clock) could cause.
func perturb(r *rand.Rand, ops []checks.Op) []checks.Op {
	out := append([]checks.Op(nil), ops...)
	type pair struct{ value, etag string }
	var pairs []pair
	for _, o := range out {
		if o.Kind == checks.KindBlobPut && o.Outcome == checks.OK {
			pairs = append(pairs, pair{o.In.Value, o.Out.ETag})
		}
	}
	fresh := 0
	for changes, want := 0, 1+r.IntN(2); changes < want; {
		o := &out[r.IntN(len(out))]
		switch r.IntN(4) {
		case 0: // a read sees another version
			if o.Kind == checks.KindBlobGet && o.Out.Status == 200 && len(pairs) > 0 {
				p := pairs[r.IntN(len(pairs))]
				o.Out.Value, o.Out.ETag = p.value, p.etag
				changes++
			}
		case 1: // the op happened at another time
			if o.Actor >= 0 {
				o.Call = max(3, o.Call+r.Int64N(61)-30)
				o.Return = o.Call + r.Int64N(40)
				changes++
			}
		case 2: // a refused write succeeds
			if o.Kind != checks.KindBlobGet && o.Outcome == checks.Conflict {
				fresh++
				o.Outcome, o.Out = checks.OK, checks.Output{Status: 201, ETag: fmt.Sprintf("0xf%d", fresh)}
				changes++
			}
		case 3: // an applied write is refused
			if o.Kind != checks.KindBlobGet && o.Outcome == checks.OK && o.Actor >= 0 {
				o.Outcome, o.Out = checks.Conflict, checks.Output{Status: 412, ErrorCode: "ConditionNotMet"}
				changes++
			}
		}
	}
	return out
}

// The checker never fails a history the oracle linearizes (sound, also with
// unknown outcomes), and, where it claims to be exact (no refusal, no
// unknown outcome, no unconditional set-metadata), fails every history the
// oracle cannot linearize.
func TestVersionChainAgainstBruteForce(t *testing.T) {
	seeds := uint64(6000)
	if testing.Short() {
		seeds = 1000
	}
	mixes := []registerMix{registerCASMix, {Read: 0.5, IfMatch: 0.3, Uncond: 0.2, CondRead: 0.5, SetMeta: 0.2}, {Read: 0.5, Uncond: 0.5, CondRead: 0.3}}
	var lin, nonLin, exact, caught int
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 21))
		unknown := []float64{0, 0, 0.15}[seed/3%3]
		h := genRegisterHistory(r, 2+r.IntN(3), 3+r.IntN(8), mixes[seed%3], unknown, false)
		if r.IntN(4) > 0 {
			h = perturb(r, h)
		}
		ok := bruteLinearizable(h)
		res := checks.Run(h, NewVersionChain())[0]
		if ok {
			lin++
			if res.Verdict == checks.Fail {
				t.Fatalf("seed %d: linearizable history judged fail\n%s%s", seed, checkstest.Describe(res), dumpOps(h))
			}
			continue
		}
		nonLin++
		claimsExact := true
		for _, o := range h {
			if o.Outcome == checks.Conflict || o.Outcome == checks.Unknown || o.Kind == "blob.setmeta" && o.In.IfMatch == "" {
				claimsExact = false
			}
		}
		if res.Verdict == checks.Fail {
			caught++
		}
		if claimsExact {
			exact++
			if res.Verdict != checks.Fail {
				t.Fatalf("seed %d: non-linearizable history without refusals judged %s\n%s%s", seed, res.Verdict, checkstest.Describe(res), dumpOps(h))
			}
		}
	}
	if lin < int(seeds)/5 || nonLin < int(seeds)/5 || exact < nonLin/10 {
		t.Fatalf("poor mix: %d linearizable, %d not (%d without refusals)", lin, nonLin, exact)
	}
	t.Logf("%d linearizable, %d not: %d caught (%d of %d without refusals or unknowns)", lin, nonLin, caught, exact, exact)
}

func dumpOps(ops []checks.Op) string {
	s := ""
	for i := range ops {
		s += "    " + ops[i].String() + fmt.Sprintf(" [%d..%d]\n", ops[i].Call, ops[i].Return)
	}
	return s
}
