package seqnum

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

// hist writes page-blob CAS histories by hand.
type hist struct {
	*checkstest.Hist
	tags int
}

func newHist() *hist { return &hist{Hist: checkstest.NewHist()} }

func (h *hist) claim(n int64) string {
	h.tags++
	return checks.CounterValue{N: n, Tag: "t" + strconv.Itoa(h.tags)}.Format(0)
}

// create is the setup's Put Blob with initial number n.
func (h *hist) create(key string, n int64) uint64 {
	return h.Add(checks.Op{Actor: checks.ActorSetup, Kind: KindCreate, Key: key, In: checks.Input{Value: h.claim(n)},
		Out: checks.Output{Status: 201}})
}

// cas is an increment conditioned on from: acknowledged with the number
// to, refused (412), or of unknown outcome.
func (h *hist) cas(actor int, key string, from int64, o checks.Outcome, to int64) uint64 {
	op := checks.Op{Actor: actor, Kind: KindSeqNum, Key: key, Outcome: o, In: checks.Input{IfMatch: "0xE", Value: h.claim(from)}}
	switch o {
	case checks.OK:
		op.Out = checks.Output{Status: 200, Value: strconv.FormatInt(to, 10)}
	case checks.Conflict:
		op.Out = checks.Output{Status: 412, ErrorCode: "ConditionNotMet"}
	case checks.Unknown:
		op.Out = checks.Output{Err: "timeout"}
	}
	return h.Add(op)
}

func (h *hist) read(actor int, key string, n int64) uint64 {
	return h.Add(checks.Op{Actor: actor, Kind: KindProps, Key: key, Out: checks.Output{Status: 200, Value: strconv.FormatInt(n, 10)}})
}

func (h *hist) check(t *testing.T) checks.Result {
	t.Helper()
	return checks.Run(h.Ops, New())[0]
}

// A clean history: three actors race from each number, one wins each, a
// CAS of unknown outcome takes the step nobody acknowledged, another of
// unknown outcome from a step already taken did not land.
func TestChainCleanHistory(t *testing.T) {
	h := newHist()
	h.create("k0", 0)
	h.read(1, "k0", 0)
	h.cas(1, "k0", 0, checks.OK, 1)
	h.cas(2, "k0", 0, checks.Conflict, 0)
	h.cas(3, "k0", 1, checks.Unknown, 0) // lands: nobody else took 1 -> 2
	h.cas(2, "k0", 1, checks.Conflict, 0)
	h.cas(1, "k0", 2, checks.OK, 3)
	h.cas(3, "k0", 2, checks.Unknown, 0) // did not land: 2 -> 3 is acknowledged
	h.read(checks.ActorFinal, "k0", 3)
	r := h.check(t)
	checkstest.Want{Verdict: checks.Pass, Summary: "no lost update"}.Assert(t, r)
	if r.Unknown == nil || r.Unknown.Applied != 1 || r.Unknown.NotApplied != 1 || r.Unknown.Open != 0 {
		t.Errorf("unknown writes %+v, want 1 applied, 1 not", r.Unknown)
	}
	if r.Decided != r.Judgeable || r.Decided != 5 {
		t.Errorf("decided %d of %d, want 5 of 5", r.Decided, r.Judgeable)
	}
}

// Each violation, fed alone, is reported by its kind.
func TestChainViolations(t *testing.T) {
	t.Run("two CASes from one number", func(t *testing.T) {
		h := newHist()
		h.create("k0", 0)
		a := h.cas(1, "k0", 0, checks.OK, 1)
		b := h.cas(2, "k0", 0, checks.OK, 1)
		h.read(checks.ActorFinal, "k0", 1)
		checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{checkstest.Vio("two CASes from one number", a, b)}, Total: 1}.Assert(t, h.check(t))
	})
	t.Run("CAS not by one (a write conditioned on a number that had moved)", func(t *testing.T) {
		h := newHist()
		h.create("k0", 0)
		h.cas(1, "k0", 0, checks.OK, 1)
		b := h.cas(2, "k0", 0, checks.OK, 2) // stripped condition: B's page write went through on 1
		f := h.read(checks.ActorFinal, "k0", 2)
		r := h.check(t)
		checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{
			checkstest.Vio("CAS not by one", b), checkstest.Vio("two CASes from one number"), checkstest.Vio("step without a CAS: the sequence number went from 1 to 2", f),
		}, Total: 3}.Assert(t, r)
	})
	t.Run("lost CAS", func(t *testing.T) {
		h := newHist()
		h.create("k0", 0)
		h.cas(1, "k0", 0, checks.OK, 1)
		b := h.cas(1, "k0", 1, checks.OK, 2)
		f := h.read(checks.ActorFinal, "k0", 1)
		checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{checkstest.Vio("lost CAS: an increment from 1", b, f)}, Total: 1}.Assert(t, h.check(t))
	})
	t.Run("step without a CAS", func(t *testing.T) {
		h := newHist()
		h.create("k0", 0)
		h.cas(1, "k0", 0, checks.OK, 1)
		h.cas(2, "k0", 1, checks.Conflict, 0) // refused: certainly not the step 1 -> 2
		f := h.read(checks.ActorFinal, "k0", 2)
		checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{checkstest.Vio("step without a CAS: the sequence number went from 1 to 2", f)}, Total: 1}.Assert(t, h.check(t))
	})
	t.Run("a number far past every CAS is counted, the first gaps listed", func(t *testing.T) {
		h := newHist()
		h.create("k0", 0)
		h.cas(1, "k0", 0, checks.OK, 1)
		h.read(checks.ActorFinal, "k0", 1_000_000)
		r := h.check(t)
		checkstest.Want{Verdict: checks.Fail, Total: 999_999}.Assert(t, r)
		if len(r.Violations) != checks.MaxViolations || r.Kinds["step without a CAS"] != 999_999 {
			t.Errorf("%d listed, kinds %v", len(r.Violations), r.Kinds)
		}
	})
	t.Run("number went back", func(t *testing.T) {
		h := newHist()
		h.create("k0", 5)
		h.read(checks.ActorFinal, "k0", 4)
		checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{checkstest.Vio("number went back")}, Total: 1}.Assert(t, h.check(t))
	})
	t.Run("an unknown CAS never hides a fork", func(t *testing.T) {
		h := newHist()
		h.create("k0", 0)
		h.cas(1, "k0", 0, checks.OK, 1)
		h.cas(2, "k0", 0, checks.Unknown, 0)
		h.cas(3, "k0", 0, checks.OK, 1)
		h.read(checks.ActorFinal, "k0", 1)
		checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{checkstest.Vio("two CASes from one number")}, Total: 1}.Assert(t, h.check(t))
	})
}

// Two unknown CASes from one untaken step: one landed, unknown which
// (open); no final read leaves the chain undecided, but a fork is still
// found.
func TestChainUndecided(t *testing.T) {
	h := newHist()
	h.create("k0", 0)
	h.cas(1, "k0", 0, checks.Unknown, 0)
	h.cas(2, "k0", 0, checks.Unknown, 0)
	h.read(checks.ActorFinal, "k0", 1)
	r := h.check(t)
	checkstest.Want{Verdict: checks.Pass}.Assert(t, r)
	if r.Unknown.Open != 2 || r.Decided != 1 || r.Judgeable != 3 {
		t.Errorf("unknown %+v, decided %d of %d", r.Unknown, r.Decided, r.Judgeable)
	}

	h = newHist()
	h.create("k0", 0)
	h.cas(1, "k0", 0, checks.OK, 1)
	checkstest.Want{Verdict: checks.Undecided, Summary: "no final read of 1 page blob"}.Assert(t, h.check(t))
	h.cas(2, "k0", 0, checks.OK, 1)
	checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{checkstest.Vio("two CASes from one number")}}.Assert(t, h.check(t))

	checkstest.Want{Verdict: checks.Undecided, Summary: "no page blob CAS"}.Assert(t, checks.Run(nil, New())[0])
}

// Boundaries of the chain: an unknown CAS from the initial number lands;
// a final number equal to the initial one, with no CAS, is no violation;
// a lost CAS past the final number does not take a step below it; the
// summary counts blobs, acknowledged and refused CASes; a message says by
// how much a CAS moved the number.
func TestChainBoundaries(t *testing.T) {
	h := newHist()
	h.create("k0", 0)
	h.cas(1, "k0", 0, checks.Unknown, 0)
	h.cas(2, "k0", 1, checks.Conflict, 0)
	h.read(checks.ActorFinal, "k0", 1)
	h.create("k1", 5)
	h.read(checks.ActorFinal, "k1", 5)
	r := h.check(t)
	checkstest.Want{Verdict: checks.Pass}.Assert(t, r)
	if want := "2 page blobs, 0 CASes acknowledged, 1 refused or lost, 1 unknown (1 landed, 0 did not, 0 open)"; !strings.HasPrefix(r.Summary, want) {
		t.Errorf("summary %q, want it to begin %q", r.Summary, want)
	}

	// An unknown CAS from the final number did not land.
	h = newHist()
	h.create("k0", 0)
	h.cas(1, "k0", 0, checks.OK, 1)
	h.cas(2, "k0", 1, checks.Unknown, 0)
	h.read(checks.ActorFinal, "k0", 1)
	r = h.check(t)
	checkstest.Want{Verdict: checks.Pass, Summary: "1 unknown (0 landed, 1 did not, 0 open)"}.Assert(t, r)

	h = newHist()
	h.create("k0", 0)
	h.cas(1, "k0", 0, checks.OK, 1)
	lost := h.cas(1, "k0", 2, checks.OK, 3) // from 2, yet the final number is 2
	f := h.read(checks.ActorFinal, "k0", 2)
	checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{
		checkstest.Vio("lost CAS: an increment from 2", lost, f), checkstest.Vio("step without a CAS: the sequence number went from 1 to 2", f),
	}, Total: 2}.Assert(t, h.check(t))

	h = newHist()
	h.create("k0", 0)
	h.cas(1, "k0", 0, checks.OK, 1)
	h.cas(1, "k0", 1, checks.OK, 4)
	h.read(checks.ActorFinal, "k0", 4)
	r = h.check(t)
	checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{checkstest.Vio("conditioned on 1 was acknowledged with sequence number 4 (moved by 3)")}}.Assert(t, r)

	// A gap above several steps taken is the one named.
	h = newHist()
	h.create("k0", 0)
	h.cas(1, "k0", 1, checks.OK, 2)
	h.cas(1, "k0", 0, checks.OK, 1)
	f = h.read(checks.ActorFinal, "k0", 3)
	checkstest.Want{Verdict: checks.Fail, Vios: []checkstest.ExpectViolation{checkstest.Vio("went from 2 to 3 (final 3)", f)}, Total: 1}.Assert(t, h.check(t))

	// Forks are listed in the order of their numbers.
	h = newHist()
	h.create("k0", 0)
	h.cas(1, "k0", 1, checks.OK, 2)
	h.cas(2, "k0", 1, checks.OK, 2)
	h.cas(1, "k0", 0, checks.OK, 1)
	h.cas(2, "k0", 0, checks.OK, 1)
	h.read(checks.ActorFinal, "k0", 2)
	r = h.check(t)
	var forks []string
	for _, v := range r.Violations {
		if v.Kind == "two CASes from one number" {
			forks = append(forks, v.Message)
		}
	}
	if len(forks) != 2 || !strings.Contains(forks[0], "sequence number 0") || !strings.Contains(forks[1], "sequence number 1") {
		t.Errorf("forks %q, want from 0 then from 1", forks)
	}
}

// Records the check cannot read leave it undecided, never passing: an
// increment without its claim or without the number answered, a blob
// created without its initial number, a CAS on a blob whose creation is
// not in the history.
func TestChainMalformedIsUndecided(t *testing.T) {
	h := newHist()
	h.create("k0", 0)
	h.Add(checks.Op{Actor: 1, Kind: KindSeqNum, Key: "k0", In: checks.Input{Value: "no number"}, Out: checks.Output{Status: 200, Value: "1"}})
	h.Add(checks.Op{Actor: 1, Kind: KindSeqNum, Key: "k0", In: checks.Input{Value: h.claim(0)}, Out: checks.Output{Status: 200}})
	h.read(checks.ActorFinal, "k0", 0)
	checkstest.Want{Verdict: checks.Undecided, Summary: "2 records without a claimed or answered number"}.Assert(t, h.check(t))

	h = newHist()
	h.Add(checks.Op{Actor: checks.ActorSetup, Kind: KindCreate, Key: "k0", Out: checks.Output{Status: 201}})
	h.cas(1, "k1", 0, checks.OK, 1)
	h.read(checks.ActorFinal, "k1", 1)
	r := h.check(t)
	checkstest.Want{Verdict: checks.Undecided, Summary: "no initial number of 2 page blobs"}.Assert(t, r)
	if !strings.Contains(r.Summary, "1 record without a claimed or answered number") {
		t.Errorf("summary %q", r.Summary)
	}
}
