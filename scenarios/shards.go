package scenarios

// ShardPart is shard i's part of total (actors, keys, iterations) split
// over n shards: total/n each, and one more for each shard below total mod n
// (the remainder goes to the lowest shards, so shard 0 is the busiest). The
// runner cuts a shard's workload by it; `stormcheck kube` sizes the pods by
// it.
func ShardPart(total, n, i int) int {
	p := total / n
	if i < total%n {
		p++
	}
	return p
}
