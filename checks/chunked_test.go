package checks

import "testing"

// chunked keeps every element where it was added, through the growing
// chunks and the fixed ones after them.
func TestChunked(t *testing.T) {
	var c chunked[int32]
	var ptrs []*int32
	for i := range int32(5000) {
		if got := c.add(i * 3); got != i {
			t.Fatalf("add returned %d, want %d", got, i)
		}
		ptrs = append(ptrs, c.at(i))
	}
	for i := range int32(5000) {
		if *c.at(i) != i*3 || c.at(i) != ptrs[i] {
			t.Fatalf("element %d: %d (moved: %v)", i, *c.at(i), c.at(i) != ptrs[i])
		}
	}
	if len(c.chunks[0]) != chunkFirst || cap(c.chunks[0]) != chunkFirst || cap(c.chunks[6]) != chunkLen || c.len() != 5000 {
		t.Errorf("chunks: first %d, seventh %d, len %d", cap(c.chunks[0]), cap(c.chunks[6]), c.len())
	}
}
