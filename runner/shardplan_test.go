package runner

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/scenarios"
)

// TestShardPartRemainder: parts sum to the total, the remainder goes to
// the lowest shards, and bases are the sums before.
func TestShardPartRemainder(t *testing.T) {
	for _, tc := range []struct {
		total, n int
		want     []int
	}{
		{10, 4, []int{3, 3, 2, 2}},
		{8, 4, []int{2, 2, 2, 2}},
		{3, 4, []int{1, 1, 1, 0}},
		{0, 3, []int{0, 0, 0}},
		{1, 1, []int{1}},
		{7, 3, []int{3, 2, 2}},
	} {
		sum, base := 0, 0
		for i, w := range tc.want {
			if got := shardPart(tc.total, tc.n, i); got != w {
				t.Errorf("shardPart(%d, %d, %d) = %d, want %d", tc.total, tc.n, i, got, w)
			}
			if got := shardBase(tc.total, tc.n, i); got != base {
				t.Errorf("shardBase(%d, %d, %d) = %d, want %d", tc.total, tc.n, i, got, base)
			}
			base += w
			sum += shardPart(tc.total, tc.n, i)
		}
		if sum != tc.total {
			t.Errorf("%d over %d: parts sum to %d", tc.total, tc.n, sum)
		}
	}
}

// TestCutWorkload: how one workload splits over shards.
func TestCutWorkload(t *testing.T) {
	closed := func(actors, keys int, mode string) scenarios.Workload {
		return scenarios.Workload{Name: "w", Executor: scenarios.ExecutorClosed, Actors: actors, Keys: keys, ShardKeys: mode}
	}
	type part struct {
		actors, base, keyLo, keyN int
		skip                      bool
	}
	for _, tc := range []struct {
		name string
		w    scenarios.Workload
		n    int
		want []part
	}{
		{"remainder to the lowest shards", closed(10, 8, scenarios.ShardKeysDivided), 4,
			[]part{{3, 0, 0, 2, false}, {3, 3, 2, 2, false}, {2, 6, 4, 2, false}, {2, 8, 6, 2, false}}},
		{"fewer actors than shards: 0-actor shards skip", closed(2, 5, scenarios.ShardKeysDivided), 4,
			[]part{{1, 0, 0, 3, false}, {1, 1, 3, 2, false}, {0, 2, 0, 0, true}, {0, 2, 0, 0, true}}},
		{"shared keys: every shard all keys", closed(4, 3, scenarios.ShardKeysShared), 2,
			[]part{{2, 0, 0, 3, false}, {2, 2, 0, 3, false}}},
		{"one shard: the workload as written", closed(5, 3, scenarios.ShardKeysDivided), 1,
			[]part{{5, 0, 0, 3, false}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			owner := map[int]int{}
			actors := 0
			for i, w := range tc.want {
				c, err := cutWorkload(tc.w, i, tc.n)
				if err != nil {
					t.Fatal(err)
				}
				got := part{c.w.Actors, c.actorBase, c.keyLo, c.keyN, c.skip}
				if got != w {
					t.Errorf("shard %d/%d: %+v, want %+v", i, tc.n, got, w)
				}
				actors += c.w.Actors
				if tc.w.ShardKeys == scenarios.ShardKeysDivided {
					for k := c.keyLo; k < c.keyLo+c.keyN; k++ {
						if o, dup := owner[k]; dup {
							t.Errorf("key %d owned by shards %d and %d", k, o, i)
						}
						owner[k] = i
					}
				}
			}
			if actors != tc.w.Actors {
				t.Errorf("the shards' actors sum to %d, want %d", actors, tc.w.Actors)
			}
			if tc.w.ShardKeys == scenarios.ShardKeysDivided && len(owner) != tc.w.Keys {
				t.Errorf("divided keys cover %d of %d", len(owner), tc.w.Keys)
			}
		})
	}
}

// TestCutOpenLoopAndStages: rates go with the actors, closed stage targets
// and iteration bounds split by the remainder rule, producers likewise.
func TestCutOpenLoopAndStages(t *testing.T) {
	open := scenarios.Workload{Name: "o", Executor: scenarios.ExecutorOpen, Actors: 3, Rate: 300, Keys: 3,
		Stages: []scenarios.Stage{{Duration: time.Second, Target: 600}}, ShardKeys: scenarios.ShardKeysDivided}
	var rate, target float64
	for i := 0; i < 2; i++ {
		c, err := cutWorkload(open, i, 2)
		if err != nil {
			t.Fatal(err)
		}
		rate += c.w.Rate
		target += c.w.Stages[0].Target
		if i == 0 && (c.w.Rate != 200 || c.w.Actors != 2) {
			t.Errorf("shard 0: rate %v with %d actors, want 200 with 2", c.w.Rate, c.w.Actors)
		}
	}
	if rate != 300 || target != 600 {
		t.Errorf("rates sum to %v, stage targets to %v; want 300 and 600", rate, target)
	}
	if open.Stages[0].Target != 600 {
		t.Error("cutting changed the scenario's stages")
	}

	ramp := scenarios.Workload{Name: "r", Executor: scenarios.ExecutorClosed, Actors: 1, Keys: 1, Iterations: 5,
		Stages: []scenarios.Stage{{Duration: time.Second, Target: 7}}, ShardKeys: scenarios.ShardKeysShared}
	ids, its := map[int]bool{}, int64(0)
	for i := 0; i < 3; i++ {
		c, _ := cutWorkload(ramp, i, 3)
		for a := c.actorBase; a < c.actorBase+int(c.w.Stages[0].Target); a++ {
			if ids[a] {
				t.Errorf("actor id %d in two shards", a)
			}
			ids[a] = true
		}
		its += c.w.Iterations
	}
	if len(ids) != 7 || its != 5 {
		t.Errorf("stage actors %d (want 7), iterations %d (want 5)", len(ids), its)
	}

	// queue.work: shared keys keep the scenario's producers (remainder
	// rule); divided keys give every shard of 2+ actors a producer and a
	// consumer.
	work := scenarios.Workload{Name: "q", Executor: scenarios.ExecutorClosed, Actors: 8, Keys: 4, ShardKeys: scenarios.ShardKeysShared,
		Params: scenarios.Params{Producers: 2}}
	var shared, divided []int
	for i := 0; i < 4; i++ {
		c, _ := cutWorkload(work, i, 4)
		shared = append(shared, c.w.Params.Producers)
	}
	work.ShardKeys = scenarios.ShardKeysDivided
	for i := 0; i < 4; i++ {
		c, _ := cutWorkload(work, i, 4)
		divided = append(divided, c.w.Params.Producers)
	}
	if fmt.Sprint(shared) != "[1 1 0 0]" || fmt.Sprint(divided) != "[1 1 1 1]" {
		t.Errorf("producers of 2 over 4 shards of 2 actors: shared keys %v (want [1 1 0 0]), divided %v (want [1 1 1 1])", shared, divided)
	}
	work.Actors, work.Params.Producers = 9, 6 // 3 actors a shard, 2 producers each
	if c, _ := cutWorkload(work, 2, 3); c.w.Params.Producers != 2 {
		t.Errorf("6 of 9 producers, shard of 3 actors: %d, want 2", c.w.Params.Producers)
	}
}

// TestCutTooFewDividedKeys: divided keys need one per running shard, and
// the error says what to do.
func TestCutTooFewDividedKeys(t *testing.T) {
	w := scenarios.Workload{Name: "hot", Executor: scenarios.ExecutorClosed, Actors: 8, Keys: 2, ShardKeys: scenarios.ShardKeysDivided}
	_, err := cutWorkload(w, 0, 4)
	if err == nil || !strings.Contains(err.Error(), "at least 4 keys") || !strings.Contains(err.Error(), "shard_keys: shared") {
		t.Fatalf("err = %v", err)
	}
	w.ShardKeys = scenarios.ShardKeysShared
	if _, err := cutWorkload(w, 3, 4); err != nil {
		t.Fatalf("shared keys: %v", err)
	}
}

// TestCheckShardCut: the cut every shard will make is checked whole, up
// front (stormcheck kube refuses manifests whose pods would all refuse).
func TestCheckShardCut(t *testing.T) {
	sc, err := scenarios.Load("../scenarios/examples/shards.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 4, 16, 64} {
		if err := CheckShardCut(sc, n); err != nil {
			t.Errorf("shards.yaml on %d shards: %v", n, err)
		}
	}
	sc.Workloads[0].Keys = 3
	if err := CheckShardCut(sc, 4); err == nil || !strings.Contains(err.Error(), "workload counters: shard_keys divided") {
		t.Errorf("3 divided keys on 4 shards: %v", err)
	}
}
