package checks

import (
	"bufio"
	"io"
)

// ReadHistoryBatches is ReadHistoryLines handing fn the records a batch at
// a time, in file order: ops is fn's to keep (the reader never reuses it,
// so it may be shared with other goroutines that only read it); line(i) is
// the line of ops[i], valid until fn returns.
func ReadHistoryBatches(r io.Reader, fn func(ops []Op, line func(int) []byte) error) error {
	return readHistoryBatches(r, false, fn)
}

// RouteHistoryBatches is RouteHistoryLines a batch at a time, as
// ReadHistoryBatches: each op has its workload and key set and no other
// field.
func RouteHistoryBatches(r io.Reader, fn func(ops []Op, line func(int) []byte) error) error {
	return readHistoryBatches(r, true, fn)
}

func readHistoryBatches(r io.Reader, route bool, fn func(ops []Op, line func(int) []byte) error) error {
	src, done, err := historySource(r)
	if err != nil {
		return err
	}
	defer done()
	if _, plain := src.(*bufio.Reader); !plain {
		// Decompress ahead, on a goroutine of its own, while the lines
		// before are split and decoded.
		ahead := newReadAhead(src)
		defer ahead.close()
		src = ahead
	}
	return readBatches(src, route, func(b *lineBatch) error { return fn(b.ops, b.line) })
}
