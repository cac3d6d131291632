package runner

import (
	"fmt"
	"math"

	"github.com/stormcheck/stormcheck/scenarios"
)

// shardPart is shard i's part of total split over n shards (the
// remainder goes to the lowest shards).
var shardPart = scenarios.ShardPart

// shardBase is where shard i's part starts: the sum of the parts of the
// shards before it.
func shardBase(total, n, i int) int {
	return i*(total/n) + min(i, total%n)
}

// shardCut is one shard's part of a workload.
type shardCut struct {
	// w is the workload as this shard runs it: its actors, rate, stage
	// targets, iteration bound and (queue.work) producers.
	w scenarios.Workload
	// actorBase is the global id of this shard's first actor: ids never
	// collide across shards, nor do the write values built from them.
	actorBase int
	// keyLo, keyN are the keys this shard's actors pick from: every key
	// (shard_keys shared), or its own disjoint part (divided).
	keyLo, keyN int
	// skip: this shard runs none of the workload's load (no actor, or no
	// iteration, falls to it). It still knows the workload (for the final
	// reads, if it is the last shard to finish).
	skip bool
}

// cutWorkload cuts shard index of count out of w. Actors (and the actor
// ids a closed loop's stages ramp up to) split by the remainder rule, and
// so do closed-loop stage targets and the iteration bound; an open loop's
// rate and stage targets go to each shard in proportion to its actors.
// Divided keys split by the remainder rule over the shards that run the
// workload (the first min(count, actors)); fewer keys than those shards is
// an error.
func cutWorkload(w scenarios.Workload, index, count int) (shardCut, error) {
	c := shardCut{w: w, keyN: w.Keys}
	if count <= 1 {
		return c, nil
	}
	ids := w.Actors // the actor ids the workload may use
	if w.Executor == scenarios.ExecutorClosed {
		for _, s := range w.Stages {
			ids = max(ids, int(math.Ceil(s.Target)))
		}
	}
	c.actorBase = shardBase(ids, count, index)
	c.w.Actors = shardPart(w.Actors, count, index)
	mine := shardPart(ids, count, index)
	running := min(count, ids) // the shards that get actor ids: 0..running-1
	if w.Executor == scenarios.ExecutorOpen {
		share := float64(c.w.Actors) / float64(w.Actors)
		c.w.Rate = w.Rate * share
		c.w.Stages = scaleStages(w.Stages, func(t float64) float64 { return t * share })
		mine = c.w.Actors
		running = min(count, w.Actors)
	} else {
		c.w.Stages = scaleStages(w.Stages, func(t float64) float64 { return float64(shardPart(int(t), count, index)) })
	}
	if w.Iterations > 0 {
		c.w.Iterations = int64(shardPart(int(min(w.Iterations, math.MaxInt32)), running, min(index, running)))
		if index >= running {
			c.w.Iterations = 0
		}
	}
	if w.Params.Producers > 0 && index < running {
		c.w.Params.Producers = shardProducers(w, c.w.Actors, running, index)
	}
	if mine == 0 || index >= running || (w.Iterations > 0 && c.w.Iterations == 0) {
		c.skip = true
		c.w.Actors = 0
	}
	if w.ShardKeys == scenarios.ShardKeysShared {
		return c, nil
	}
	if c.skip {
		c.keyN = 0
		return c, nil
	}
	if w.Keys < running {
		return c, fmt.Errorf("workload %s: shard_keys divided gives each of the %d shards that run it a disjoint part of its keys, and it has %d: give it at least %d keys, or set shard_keys: shared (every shard races on every key)", w.Name, running, w.Keys, running)
	}
	c.keyLo, c.keyN = shardBase(w.Keys, running, index), shardPart(w.Keys, running, index)
	return c, nil
}

// shardProducers is a shard's part of queue.work's producers. With shared
// keys they split by the remainder rule (the run has the producers the
// scenario says). With divided keys each shard's queues are its own, so a
// shard of two actors or more gets at least one producer and one consumer
// when the scenario has both: its share of the producers, rounded, within
// [1, actors-1].
func shardProducers(w scenarios.Workload, actors, running, index int) int {
	p := w.Params.Producers
	if w.ShardKeys == scenarios.ShardKeysShared || p >= w.Actors {
		return shardPart(p, running, index)
	}
	if actors < 2 {
		return shardPart(p, running, index)
	}
	share := int(math.Round(float64(p) * float64(actors) / float64(w.Actors)))
	return min(max(share, 1), actors-1)
}

// scaleStages copies stages with each target mapped by f.
func scaleStages(st []scenarios.Stage, f func(float64) float64) []scenarios.Stage {
	if st == nil {
		return nil
	}
	out := make([]scenarios.Stage, len(st))
	for i, s := range st {
		out[i] = scenarios.Stage{Duration: s.Duration, Target: f(s.Target)}
	}
	return out
}

// CheckShardCut reports whether every workload of sc can be cut into n
// shards (divided keys enough for the shards that run it), as each shard
// will cut it when it starts: `stormcheck kube` refuses the manifests of
// a run whose shards would all refuse to start.
func CheckShardCut(sc *scenarios.Scenario, n int) error {
	for _, w := range sc.Workloads {
		for i := range n {
			if _, err := cutWorkload(w, i, n); err != nil {
				return err
			}
		}
	}
	return nil
}
