package checks

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// chunked keeps every element where it was added, through the growing
// chunks and the fixed ones after them.
func TestChunked(t *testing.T) {
	var c chunked[int32]
	var ptrs []*int32
	const n = 200_000 // far past the growing chunks
	for i := range int32(n) {
		if got := c.add(i * 3); got != i {
			t.Fatalf("add returned %d, want %d", got, i)
		}
		ptrs = append(ptrs, c.at(i))
	}
	for i := range int32(n) {
		if *c.at(i) != i*3 || c.at(i) != ptrs[i] {
			t.Fatalf("element %d: %d (moved: %v)", i, *c.at(i), c.at(i) != ptrs[i])
		}
	}
	if len(c.chunks[0]) != chunkFirst || cap(c.chunks[0]) != chunkFirst || cap(c.chunks[6]) != chunkLen || cap(c.chunks[len(c.chunks)-1]) != chunkLen || c.len() != n {
		t.Errorf("chunks: first %d, seventh %d, len %d", cap(c.chunks[0]), cap(c.chunks[6]), c.len())
	}
}

// A kept operation rebuilds to exactly what compactOp keeps, for every
// operation of simulated counter and create-once histories (request ids
// as UUIDs or not, unknown outcomes, lease ids, padded values).
func TestCompactOpRoundTrip(t *testing.T) {
	for seed := range uint64(20) {
		cfg := randomCounterConfig(rand.New(rand.NewPCG(seed, 1)))
		ops := simulateCounter(rand.New(rand.NewPCG(seed, 2)), &cfg)
		ccfg := randomCreateConfig(rand.New(rand.NewPCG(seed, 3)))
		more, _ := simulateCreateOnce(rand.New(rand.NewPCG(seed, 4)), &ccfg)
		ops = append(ops, more...)
		var shared strTable
		keys := map[string]*copKey{}
		for i := range ops {
			op := &ops[i]
			switch i % 3 {
			case 0:
				op.Out.RequestID = fmt.Sprintf("%08x-0000-4000-8000-%012x", i, seed)
			case 1:
				op.Out.RequestID = fmt.Sprintf("REQ-%d", i)
			}
			k := keys[op.Key]
			if k == nil {
				k = &copKey{}
				keys[op.Key] = k
			}
			c := k.keep(&shared, op)
			got, want := k.op(&shared, op.Key, &c), compactOp(op, op.Workload, op.Kind, op.Key)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d op %d:\ngot  %+v\nwant %+v", seed, i, got, want)
			}
		}
	}
}
