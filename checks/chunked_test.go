package checks_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/checks/checkstest"
)

// chunked keeps every element where it was added, through the growing
// chunks and the fixed ones after them.
func TestChunked(t *testing.T) {
	var c checks.Chunked[int32]
	var ptrs []*int32
	const n = 200_000 // far past the growing chunks
	for i := range int32(n) {
		if got := c.Add(i * 3); got != i {
			t.Fatalf("add returned %d, want %d", got, i)
		}
		ptrs = append(ptrs, c.At(i))
	}
	for i := range int32(n) {
		if *c.At(i) != i*3 || c.At(i) != ptrs[i] {
			t.Fatalf("element %d: %d (moved: %v)", i, *c.At(i), c.At(i) != ptrs[i])
		}
	}
	if len(c.Chunks[0]) != checks.ChunkFirst || cap(c.Chunks[0]) != checks.ChunkFirst || cap(c.Chunks[6]) != checks.ChunkLen || cap(c.Chunks[len(c.Chunks)-1]) != checks.ChunkLen || c.Len() != n {
		t.Errorf("chunks: first %d, seventh %d, len %d", cap(c.Chunks[0]), cap(c.Chunks[6]), c.Len())
	}
}

// A kept operation rebuilds to exactly what compactOp keeps, for every
// operation of simulated counter and create-once histories (request ids
// as UUIDs, numbers or neither, unknown outcomes, lease ids, padded values).
func TestCompactOpRoundTrip(t *testing.T) {
	for seed := range uint64(20) {
		cfg := checkstest.RandomCounterConfig(rand.New(rand.NewPCG(seed, 1)))
		ops := checkstest.SimulateCounter(rand.New(rand.NewPCG(seed, 2)), &cfg)
		ccfg := checkstest.RandomCreateConfig(rand.New(rand.NewPCG(seed, 3)))
		more, _ := checkstest.SimulateCreateOnce(rand.New(rand.NewPCG(seed, 4)), &ccfg)
		ops = append(ops, more...)
		var shared checks.StrTable
		keys := map[string]*checks.CopKey{}
		for i := range ops {
			op := &ops[i]
			switch i % 5 {
			case 0:
				op.Out.RequestID = fmt.Sprintf("%08x-0000-4000-8000-%012x", i, seed)
			case 1:
				op.Out.RequestID = fmt.Sprintf("REQ-%d", i)
			case 2:
				op.Out.RequestID = fmt.Sprint(i * 7919)
			case 3:
				op.Out.RequestID = fmt.Sprintf("%07d", i) // a leading zero: kept as a string
			}
			k := keys[op.Key]
			if k == nil {
				k = &checks.CopKey{}
				keys[op.Key] = k
			}
			c := k.Keep(&shared, op)
			got, want := k.Op(&shared, op.Key, &c), checks.CompactOp(op, op.Workload, op.Kind, op.Key)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("seed %d op %d:\ngot  %+v\nwant %+v", seed, i, got, want)
			}
		}
	}
}
