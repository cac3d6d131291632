package checks

import (
	"math/bits"
	"net/http"
	"sort"
	"strconv"
)

// Operation kinds the blob checkers read.
const (
	KindBlobGet    = "blob.get"
	KindBlobPut    = "blob.put"
	KindBlobCreate = "blob.create"
)

// maxExcerpt bounds the operations one violation carries.
const MaxExcerpt = 6

// mayHaveApplied reports whether a write attempt that was not acknowledged
// may still have taken effect: an unknown outcome, or a 500 answer. The
// runner files 500 OperationTimedOut under Throttled, but the service
// documents it as "the operation may or may not have succeeded on the server
// side", so a checker must treat it as unknown, never as refused.
func MayHaveApplied(op *Op) bool {
	switch op.Outcome {
	case Unknown:
		return true
	case OK:
		return false
	}
	return op.Out.Status == http.StatusInternalServerError || op.Out.ErrorCode == "OperationTimedOut"
}

// refused reports whether a write attempt certainly did not take effect: a
// documented conflict, a throttle (503) or an error that was not a 500.
func Refused(op *Op) bool { return op.Outcome != OK && !MayHaveApplied(op) }

// isNotFound reports whether a read found no blob (404 BlobNotFound).
func IsNotFound(op *Op) bool {
	return op.Outcome != OK && (op.Out.Status == http.StatusNotFound || op.Out.ErrorCode == "BlobNotFound")
}

// shortValue drops a counter value's padding so that a stored excerpt does
// not keep payload_bytes of dots alive per operation. The result parses to
// the same CounterValue; a value it cannot cut safely is kept whole.
func ShortValue(s string) string {
	if len(s) <= 48 {
		return s
	}
	_, _, end, ok := counterFields(s)
	if !ok || end+4 >= len(s) {
		return s
	}
	b := make([]byte, 0, end+4)
	b = append(append(b, s[:end]...), " ..."...)
	return string(b)
}

// compactOp copies op for keeping in memory until Finish: the padding of
// values is dropped, and the workload, kind and key strings are shared with
// the caller's copies instead of each op holding its own.
func CompactOp(op *Op, workload, kind, key string) Op {
	c := *op
	if c.Workload == workload {
		c.Workload = workload
	}
	if c.Kind == kind {
		c.Kind = kind
	}
	if c.Key == key {
		c.Key = key
	}
	c.In.Value = ShortValue(c.In.Value)
	c.Out.Value = ShortValue(c.Out.Value)
	return c
}

// excerpt builds a violation's operations: nil entries and repeats are
// dropped, at most maxExcerpt are kept (the first ones given, which callers
// order by importance), and the result is in Seq order.
func Excerpt(ops ...*Op) []Op {
	out := make([]Op, 0, min(len(ops), MaxExcerpt))
	seen := make(map[uint64]bool, len(ops))
	for _, o := range ops {
		if o == nil || seen[o.Seq] || len(out) == MaxExcerpt {
			continue
		}
		seen[o.Seq] = true
		out = append(out, *o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// plural renders "1 key", "2 keys".
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// parseCounter is ParseCounterValue without allocating on the usual ASCII
// value; the tag it returns is a substring of s. Any other input goes
// through ParseCounterValue, so both accept exactly the same values.
func ParseCounter(s string) (CounterValue, bool) {
	num, tag, _, ok := counterFields(s)
	if !ok {
		v, err := ParseCounterValue(s)
		return v, err == nil
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return CounterValue{}, false
	}
	return CounterValue{N: n, Tag: tag}, true
}

// counterFields finds the first two fields of an ASCII value as
// strings.Fields would, and where the second ends. ok is false when either
// is missing or a non-ASCII byte comes before the end of the second (the
// caller then falls back to strings.Fields' Unicode rules).
func counterFields(s string) (num, tag string, end int, ok bool) {
	i := 0
	field := func() (string, bool) {
		for i < len(s) && asciiSpace(s[i]) {
			i++
		}
		start := i
		for i < len(s) && !asciiSpace(s[i]) {
			if s[i] >= 0x80 {
				return "", false
			}
			i++
		}
		return s[start:i], i > start
	}
	num, ok = field()
	if !ok {
		return "", "", 0, false
	}
	tag, ok = field()
	if !ok || i < len(s) && s[i] >= 0x80 {
		return "", "", 0, false
	}
	return num, tag, i, true
}

func asciiSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\v' || b == '\f' || b == '\r'
}

// chunked is an append-only list that never moves its elements: large
// histories grow it without copying, and pointers into it stay valid. Its
// chunks double from chunkFirst up to chunkLen elements, so that the many
// short lists of a history with many keys stay small.
type Chunked[T any] struct {
	Chunks [][]T
	n      int32
}

const (
	ChunkLen   = 1024
	ChunkFirst = 16
	// chunkSmall is how many elements the growing chunks hold together
	// (16 + 32 + ... + 512); chunks after them hold chunkLen each.
	chunkSmall = ChunkLen - ChunkFirst
)

// chunkOf is the chunk holding element i and i's offset in it.
func chunkOf(i int32) (int, int32) {
	if i < chunkSmall {
		k := bits.Len32(uint32(i+ChunkFirst)) - bits.Len32(ChunkFirst)
		return k, i + ChunkFirst - ChunkFirst<<k
	}
	j := i - chunkSmall
	return bits.Len32(chunkSmall/ChunkFirst) + int(j/ChunkLen), j % ChunkLen
}

func (c *Chunked[T]) Add(v T) int32 {
	if k, off := chunkOf(c.n); off == 0 {
		size := ChunkLen
		if c.n < chunkSmall {
			size = ChunkFirst << k
		}
		c.Chunks = append(c.Chunks, make([]T, 0, size))
	}
	last := &c.Chunks[len(c.Chunks)-1]
	*last = append(*last, v)
	c.n++
	return c.n - 1
}

func (c *Chunked[T]) At(i int32) *T {
	k, off := chunkOf(i)
	return &c.Chunks[k][off]
}

func (c *Chunked[T]) Len() int32 { return c.n }
