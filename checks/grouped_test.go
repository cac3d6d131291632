package checks_test

import (
	"math/rand/v2"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
	"github.com/stormcheck/stormcheck/checks/consistency"
)

// feedGrouped feeds ops to c one group of keys at a time, as
// runner.CheckHistory does for a large history.
func feedGrouped(ops []checks.Op, c checks.KeyLocal, groups int) checks.Result {
	return checkstest.FeedGrouped(ops, c, groups)
}

// Every KeyLocal checker reaches the same verdict, count of violations and
// (but for the order of listed keys) summary whether it sees the history
// whole or in groups of keys — on valid histories and on histories with a
// planted violation, which it must still report.
func TestKeyLocalCheckersAgreeInGroups(t *testing.T) {
	type named struct {
		name string
		mk   func() checks.KeyLocal
	}
	counterChecks := []named{
		{consistency.NoLostUpdatesName, func() checks.KeyLocal { return consistency.NewNoLostUpdates() }},
		{consistency.VersionChainName, func() checks.KeyLocal { return consistency.NewVersionChain() }},
		{consistency.LinearizableName, func() checks.KeyLocal { return consistency.NewLinearizable() }},
	}
	fails := map[string]int{}
	for seed := range uint64(60) {
		for _, inject := range []bool{false, true} {
			cfg := checkstest.RandomCounterConfig(rand.New(rand.NewPCG(seed, 1)))
			cfg.Lease, cfg.Keys, cfg.Inject = false, 2+int(seed%5), inject
			ops := checkstest.SimulateCounter(rand.New(rand.NewPCG(seed, 2)), &cfg)
			for _, c := range counterChecks {
				whole := checks.Run(ops, c.mk())[0]
				grouped := feedGrouped(ops, c.mk(), 3)
				if whole.Verdict != grouped.Verdict || whole.Total != grouped.Total ||
					c.name != consistency.LinearizableName && whole.Summary != grouped.Summary {
					t.Fatalf("seed %d inject %v %s:\nwhole:   %s %d %s\ngrouped: %s %d %s", seed, inject, c.name,
						whole.Verdict, whole.Total, whole.Summary, grouped.Verdict, grouped.Total, grouped.Summary)
				}
				if whole.Verdict == checks.Fail {
					fails[c.name]++
				}
			}
		}
		ccfg := checkstest.RandomCreateConfig(rand.New(rand.NewPCG(seed, 3)))
		ccfg.Inject = seed%2 == 1
		ops, _ := checkstest.SimulateCreateOnce(rand.New(rand.NewPCG(seed, 4)), &ccfg)
		whole := checks.Run(ops, consistency.NewSingleWinner())[0]
		grouped := feedGrouped(ops, consistency.NewSingleWinner(), 4)
		if whole.Verdict != grouped.Verdict || whole.Total != grouped.Total || whole.Summary != grouped.Summary {
			t.Fatalf("seed %d single-winner:\nwhole:   %s\ngrouped: %s", seed, whole.Summary, grouped.Summary)
		}
		if whole.Verdict == checks.Fail {
			fails[consistency.SingleWinnerName]++
		}
	}
	for _, name := range []string{consistency.NoLostUpdatesName, consistency.VersionChainName, consistency.LinearizableName, consistency.SingleWinnerName} {
		if fails[name] < 10 {
			t.Errorf("%s failed only %d histories: the planted violations must show, grouped or not", name, fails[name])
		}
	}
	t.Log(fails)
}
