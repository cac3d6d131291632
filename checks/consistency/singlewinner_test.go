package consistency

import (
	"math/rand/v2"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

const sw = SingleWinnerName

func TestSingleWinner(t *testing.T) {
	const r1, r2 = "c-r1", "c-r2"
	cases := []struct {
		name  string
		build func(h *checkstest.Hist) checkstest.Want
	}{
		// Clean histories.
		{"one 201 per round, the rest 409", func(h *checkstest.Hist) checkstest.Want {
			h.Create(0, r1, 1, "a0-1", checks.OK, 0, 0)
			h.Create(1, r1, 1, "a1-1", checks.Conflict, 0, 0)
			h.Create(2, r2, 2, "a2-1", checks.OK, 0, 0)
			h.Create(2, r1, 1, "a2-2", checks.Conflict, 0, 0)
			h.Create(0, r2, 2, "a0-2", checks.Conflict, 0, 0)
			h.Create(1, r2, 2, "a1-2", checks.Conflict, 0, 0)
			h.Get(checks.ActorFinal, r1, 1, "a0-1", "E1")
			h.Get(checks.ActorFinal, r2, 2, "a2-1", "E2")
			return checkstest.Want{Verdict: checks.Pass, Summary: "2 rounds, 6 attempts, 0 unknown: exactly one creator per round"}
		}},
		{"overlapping attempts: the 409 returns after the winner was sent", func(h *checkstest.Hist) checkstest.Want {
			h.Create(0, r1, 1, "a0-1", checks.OK, 100, 400)
			h.Create(1, r1, 1, "a1-1", checks.Conflict, 50, 150) // sent first, answered 409 after the winner was sent
			h.Final(r1, 1, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "exactly one creator per round"}
		}},
		{"unknown create that won, the others 409", func(h *checkstest.Hist) checkstest.Want {
			h.Create(0, r1, 1, "a0-1", checks.Unknown, 10, 500)
			h.Create(1, r1, 1, "a1-1", checks.Conflict, 20, 30)
			h.Create(2, r1, 1, "a2-1", checks.Conflict, 40, 50)
			h.Final(r1, 1, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 round, 3 attempts, 1 unknown: exactly one creator per round"}
		}},
		{"unknown create that lost to a 201", func(h *checkstest.Hist) checkstest.Want {
			h.Create(0, r1, 1, "a0-1", checks.Unknown, 0, 0)
			h.Create(1, r1, 1, "a1-1", checks.OK, 0, 0)
			h.Create(2, r1, 1, "a2-1", checks.Conflict, 0, 0)
			h.Final(r1, 1, "a1-1", "E1")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"unknown create, its own retry gets 409", func(h *checkstest.Hist) checkstest.Want {
			h.Create(0, r1, 1, "a0-1", checks.Unknown, 0, 0)
			s := h.Create(0, r1, 1, "a0-2", checks.Conflict, 0, 0)
			h.Op(s).Attempt = 2
			h.Final(r1, 1, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Pass}
		}},
		{"500 OperationTimedOut create that won", func(h *checkstest.Hist) checkstest.Want {
			s := h.Create(0, r1, 1, "a0-1", checks.Throttled, 0, 0)
			h.Op(s).Out = checks.Output{Status: 500, ErrorCode: "OperationTimedOut"}
			h.Create(1, r1, 1, "a1-1", checks.Conflict, 0, 0)
			h.Final(r1, 1, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "1 unknown: exactly one creator per round"}
		}},
		{"nobody created it: throttled, errors, an unknown that never landed", func(h *checkstest.Hist) checkstest.Want {
			h.Create(0, r1, 1, "a0-1", checks.Throttled, 0, 0)
			h.Create(1, r1, 1, "a1-1", checks.Error, 0, 0)
			h.Create(2, r1, 1, "a2-1", checks.Unknown, 0, 0)
			h.Final404(r1)
			h.Create(0, r2, 2, "a0-2", checks.OK, 0, 0)
			h.Final(r2, 2, "a0-2", "E2")
			return checkstest.Want{Verdict: checks.Pass, Summary: "at most one creator per round (1 never created)"}
		}},
		{"lease and counter kinds are ignored", func(h *checkstest.Hist) checkstest.Want {
			h.Create(0, r1, 1, "a0-1", checks.OK, 0, 0)
			h.Put(1, r1, "E1", 7, "a1-1", checks.OK, "E2")
			h.Get(1, r1, 7, "ghost", "E2")
			h.Final(r1, 1, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Pass}
		}},

		// Violations.
		{"two 201s", func(h *checkstest.Hist) checkstest.Want {
			a := h.Create(0, r1, 1, "a0-1", checks.OK, 0, 0)
			b := h.Create(1, r1, 1, "a1-1", checks.OK, 0, 0)
			h.Create(2, r1, 1, "a2-1", checks.Conflict, 0, 0)
			h.Final(r1, 1, "a1-1", "E2")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("2 creates of one blob succeeded (201)", a, b)}}
		}},
		{"the blob holds a 409 attempt's value while another got 201", func(h *checkstest.Hist) checkstest.Want {
			a := h.Create(0, r1, 1, "a0-1", checks.OK, 0, 0)
			b := h.Create(1, r1, 1, "a1-1", checks.Conflict, 0, 0)
			f := h.Final(r1, 1, "a1-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("the blob holds the value of #2 (conflict 409 BlobAlreadyExists), but #1 was told it created it", a, b, f)}}
		}},
		{"the blob holds an unknown attempt's value while another got 201", func(h *checkstest.Hist) checkstest.Want {
			a := h.Create(0, r1, 1, "a0-1", checks.OK, 0, 0)
			b := h.Create(1, r1, 1, "a1-1", checks.Unknown, 0, 0)
			f := h.Final(r1, 1, "a1-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("the blob holds the value of #2", a, b, f)}}
		}},
		{"409 but no attempt created it", func(h *checkstest.Hist) checkstest.Want {
			a := h.Create(0, r1, 1, "a0-1", checks.Conflict, 0, 0)
			b := h.Create(1, r1, 1, "a1-1", checks.Conflict, 0, 0)
			h.Create(2, r1, 1, "a2-1", checks.Throttled, 0, 0)
			h.Final404(r1)
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("409 BlobAlreadyExists but no attempt created it", a, b)}}
		}},
		{"409 and a refused attempt's value", func(h *checkstest.Hist) checkstest.Want {
			h.Create(0, r1, 1, "a0-1", checks.Unknown, 0, 0)
			b := h.Create(1, r1, 1, "a1-1", checks.Conflict, 0, 0)
			f := h.Final(r1, 1, "a1-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("a refused create took effect: the blob holds the value of #2", b, f)}}
		}},
		{"a throttled (503) attempt's value", func(h *checkstest.Hist) checkstest.Want {
			a := h.Create(0, r1, 1, "a0-1", checks.Throttled, 0, 0)
			f := h.Final(r1, 1, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("a refused create took effect", a, f)}}
		}},
		{"final value belongs to no attempt of the round", func(h *checkstest.Hist) checkstest.Want {
			h.Create(0, r1, 1, "a0-1", checks.OK, 0, 0)
			h.Create(1, r2, 2, "a1-1", checks.OK, 0, 0)
			f := h.Final(r1, 2, "a1-1", "E1") // round 2's value in round 1's blob
			h.Final(r2, 2, "a1-1", "E2")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("final value belongs to no create attempt of this round", f)}}
		}},
		{"a created blob vanished", func(h *checkstest.Hist) checkstest.Want {
			a := h.Create(0, r1, 1, "a0-1", checks.OK, 0, 0)
			h.Create(1, r1, 1, "a1-1", checks.Conflict, 0, 0)
			f := h.Final404(r1)
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("a created blob vanished", a, f)}}
		}},
		{"409, an unknown attempt, and no blob at the end", func(h *checkstest.Hist) checkstest.Want {
			h.Create(0, r1, 1, "a0-1", checks.Unknown, 0, 0)
			b := h.Create(1, r1, 1, "a1-1", checks.Conflict, 0, 0)
			f := h.Final404(r1)
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("409 BlobAlreadyExists (#2) but the final read found no blob", b, f)}}
		}},
		{"409 returned before the only 201 was sent", func(h *checkstest.Hist) checkstest.Want {
			b := h.Create(1, r1, 1, "a1-1", checks.Conflict, 10, 20)
			a := h.Create(0, r1, 1, "a0-1", checks.OK, 30, 40)
			h.Final(r1, 1, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("409 BlobAlreadyExists (#1) returned before the creating attempt #2 was sent", a, b)}}
		}},
		{"409 returned before the unknown creator was sent", func(h *checkstest.Hist) checkstest.Want {
			b := h.Create(1, r1, 1, "a1-1", checks.Conflict, 10, 20)
			a := h.Create(0, r1, 1, "a0-1", checks.Unknown, 30, 40)
			h.Final(r1, 1, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("returned before the creating attempt #2 was sent", a, b)}}
		}},
		{"409 returned before any unknown attempt was sent, no final read", func(h *checkstest.Hist) checkstest.Want {
			b := h.Create(1, r1, 1, "a1-1", checks.Conflict, 10, 20)
			a := h.Create(0, r1, 1, "a0-1", checks.Unknown, 30, 40)
			h.Create(2, r1, 1, "a2-1", checks.Unknown, 35, 45)
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("409 BlobAlreadyExists but no attempt created it: #1 returned before", a, b)}}
		}},

		{"the earliest-returning 409 is judged, not the first recorded", func(h *checkstest.Hist) checkstest.Want {
			h.Create(1, r1, 1, "a1-1", checks.Conflict, 10, 50)
			b := h.Create(2, r1, 1, "a2-1", checks.Conflict, 10, 20)
			a := h.Create(0, r1, 1, "a0-1", checks.OK, 30, 40)
			h.Final(r1, 1, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("409 BlobAlreadyExists (#2) returned before the creating attempt #3 was sent", a, b)}}
		}},
		{"of two 409s returning at once, the first recorded is named", func(h *checkstest.Hist) checkstest.Want {
			b := h.Create(1, r1, 1, "a1-1", checks.Conflict, 10, 20)
			h.Create(2, r1, 1, "a2-1", checks.Conflict, 10, 20)
			a := h.Create(0, r1, 1, "a0-1", checks.OK, 30, 40)
			h.Final(r1, 1, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("409 BlobAlreadyExists (#1) returned before the creating attempt #3 was sent", a, b)}}
		}},
		{"of two unknown attempts sent at once after the 409 returned, the first recorded is named", func(h *checkstest.Hist) checkstest.Want {
			b := h.Create(1, r1, 1, "a1-1", checks.Conflict, 10, 20)
			a := h.Create(0, r1, 1, "a0-1", checks.Unknown, 30, 40)
			h.Create(2, r1, 1, "a2-1", checks.Unknown, 30, 45)
			return checkstest.Want{Verdict: checks.Fail, Total: 1, Vios: []checkstest.ExpectViolation{checkstest.Vio("returned before any attempt that could have created the blob was sent (first: #2)", a, b)}}
		}},
		{"a 409 returning the instant the creator was sent is not early", func(h *checkstest.Hist) checkstest.Want {
			h.Create(1, r1, 1, "a1-1", checks.Conflict, 10, 30)
			h.Create(0, r1, 1, "a0-1", checks.OK, 30, 40)
			h.Final(r1, 1, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Pass, Summary: "exactly one creator per round"}
		}},
		{"a 409 returning the instant the unknown attempt was sent is not early", func(h *checkstest.Hist) checkstest.Want {
			h.Create(1, r1, 1, "a1-1", checks.Conflict, 10, 30)
			h.Create(0, r1, 1, "a0-1", checks.Unknown, 30, 40)
			return checkstest.Want{Verdict: checks.Undecided, Summary: "no final read of 1 round"}
		}},

		// Missing information: never a pass.
		{"no final read", func(h *checkstest.Hist) checkstest.Want {
			h.Create(0, r1, 1, "a0-1", checks.OK, 0, 0)
			h.Create(1, r1, 1, "a1-1", checks.Conflict, 0, 0)
			h.FailedGet(checks.ActorFinal, r1, checks.Unknown)
			return checkstest.Want{Verdict: checks.Undecided, Summary: "undecided, no final read of 1 round"}
		}},
		{"attempts reusing a tag", func(h *checkstest.Hist) checkstest.Want {
			h.Create(0, r1, 1, "a0-1", checks.OK, 0, 0)
			h.Create(1, r1, 1, "a0-1", checks.Conflict, 0, 0)
			h.Final(r1, 1, "a0-1", "E1")
			return checkstest.Want{Verdict: checks.Undecided, Summary: "1 attempt with no counter value or a reused tag"}
		}},
		{"empty history", func(h *checkstest.Hist) checkstest.Want {
			return checkstest.Want{Verdict: checks.Undecided, Summary: "nothing to check"}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := checkstest.NewHist()
			w := tc.build(h)
			w.Assert(t, h.Check(t, sw))
		})
	}
}

func TestSingleWinnerRegistered(t *testing.T) {
	c, err := checks.New(SingleWinnerName)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name() != SingleWinnerName {
		t.Fatalf("name %q", c.Name())
	}
}

// Random valid create-once executions pass; with one 409 turned into a
// second 201 they fail.
func TestSingleWinnerProperty(t *testing.T) {
	seeds := uint64(400)
	if testing.Short() {
		seeds = 50
	}
	injected := 0
	for seed := range seeds {
		cfg := checkstest.RandomCreateConfig(rand.New(rand.NewPCG(seed, 3)))
		ops, _ := checkstest.SimulateCreateOnce(rand.New(rand.NewPCG(seed, 4)), &cfg)
		if r := checks.Run(ops, NewSingleWinner())[0]; r.Verdict != checks.Pass {
			t.Fatalf("seed %d (%v): valid history judged %s\n%s", seed, cfg, r.Verdict, checkstest.Describe(r))
		}
		cfg.Inject = true
		ops, ok := checkstest.SimulateCreateOnce(rand.New(rand.NewPCG(seed, 4)), &cfg)
		if !ok {
			continue
		}
		injected++
		if r := checks.Run(ops, NewSingleWinner())[0]; r.Verdict != checks.Fail {
			t.Fatalf("seed %d (%v): history with two creators judged %s\n%s", seed, cfg, r.Verdict, checkstest.Describe(r))
		} else {
			checkstest.CheckKinds(t, r)
		}
	}
	if injected < int(seeds)/2 {
		t.Fatalf("only %d/%d histories injected", injected, seeds)
	}
	t.Logf("%d histories, %d with a second creator", seeds, injected)
}

// TestSingleWinnerDecidedCounts: every attempt and every round is
// judgeable; a round without a final read decides nothing of its own.
func TestSingleWinnerDecidedCounts(t *testing.T) {
	const r1, r2 = "c-r1", "c-r2"
	for _, tc := range []struct {
		name            string
		build           func(h *checkstest.Hist)
		decided, ofJudg int
	}{
		{"no round has a final read", func(h *checkstest.Hist) {
			h.Create(0, r1, 1, "a0-1", checks.OK, 0, 0)
			h.Create(1, r1, 1, "a1-1", checks.Conflict, 0, 0)
			h.Create(0, r2, 2, "a0-2", checks.OK, 0, 0)
			h.FailedGet(checks.ActorFinal, r1, checks.Unknown)
		}, 0, 5},
		{"one of two rounds has a final read", func(h *checkstest.Hist) {
			h.Create(0, r1, 1, "a0-1", checks.OK, 0, 0)
			h.Create(1, r1, 1, "a1-1", checks.Conflict, 0, 0)
			h.Final(r1, 1, "a0-1", "E1")
			h.Create(0, r2, 2, "a0-2", checks.OK, 0, 0)
		}, 4, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := checkstest.NewHist()
			tc.build(h)
			r := h.Check(t, sw)
			if r.Verdict != checks.Undecided || r.Decided != tc.decided || r.Judgeable != tc.ofJudg {
				t.Errorf("%s, %d of %d decided, want undecided, %d of %d: %s", r.Verdict, r.Decided, r.Judgeable, tc.decided, tc.ofJudg, r.Summary)
			}
		})
	}
}
