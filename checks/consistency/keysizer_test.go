package consistency

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

// How many records a key is said to have is a hint for the checker's
// tables: right, wrong or absent, the results are the same, violations
// included.
func TestExpectKeyIsAHint(t *testing.T) {
	failed := map[string]int{}
	for seed := range uint64(6) {
		cfg := checkstest.RandomCounterConfig(rand.New(rand.NewPCG(seed, 1)))
		ops := checkstest.SimulateCounter(rand.New(rand.NewPCG(seed, 2)), &cfg)
		// plant a fork where a put was refused, and a phantom read
		planted := false
		for i := range ops {
			op := &ops[i]
			if op.Kind == checks.KindBlobPut && op.Outcome == checks.Conflict && op.Actor >= 0 {
				op.Outcome, op.Out = checks.OK, checks.Output{Status: 201, ETag: `"fork"`}
			}
			if op.Kind == checks.KindBlobGet && op.Outcome == checks.OK && op.Actor >= 0 && !planted && i > len(ops)/2 {
				op.Out.Value, planted = checkstest.Cval(7, "phantom"), true
			}
		}
		counts := map[string]int{}
		for i := range ops {
			counts[ops[i].Key]++
		}
		for _, name := range []string{NoLostUpdatesName, VersionChainName} {
			run := func(hint func(n int) int) checks.Result {
				c, _ := checks.New(name)
				ks := c.(checks.KeySizer)
				ks.Groups(1)
				if hint != nil {
					for k, n := range counts {
						ks.ExpectKey(k, hint(n))
					}
				}
				return checks.Run(ops, c)[0]
			}
			want := run(nil)
			for _, hint := range []func(int) int{func(n int) int { return n }, func(int) int { return 0 },
				func(int) int { return -7 }, func(n int) int { return 50 * n }} {
				if got := run(hint); !reflect.DeepEqual(got, want) {
					t.Errorf("seed %d %s: with a hint %s, without %s", seed, name, got.Summary, want.Summary)
				}
			}
			if want.Verdict == checks.Fail && len(want.Violations) > 0 {
				failed[name]++
			}
		}
	}
	for _, name := range []string{NoLostUpdatesName, VersionChainName} {
		if failed[name] < 3 {
			t.Errorf("%s reported what was planted in %d histories of 6: the violations are not what is compared", name, failed[name])
		}
	}
}
