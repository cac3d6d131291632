package checks

import (
	"io"
	"sync"
)

// readAhead reads src on a goroutine of its own, a few chunks ahead of
// its caller: a history read whole is decompressed while the lines before
// are split and decoded. The caller sees exactly the bytes and the error
// src gives, in order (the same decoder, read the same way).
type readAhead struct {
	chunks chan aheadChunk
	free   chan []byte
	stop   chan struct{}
	wg     sync.WaitGroup
	cur    aheadChunk
	off    int
}

type aheadChunk struct {
	b   []byte
	err error
}

const (
	aheadChunkBytes = 256 << 10
	aheadChunks     = 4
)

func newReadAhead(src io.Reader) *readAhead {
	r := &readAhead{chunks: make(chan aheadChunk, aheadChunks), free: make(chan []byte, aheadChunks+2), stop: make(chan struct{})}
	for range aheadChunks + 2 {
		r.free <- make([]byte, aheadChunkBytes)
	}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer close(r.chunks)
		for {
			var buf []byte
			select {
			case buf = <-r.free:
			case <-r.stop:
				return
			}
			n, err := src.Read(buf)
			select {
			case r.chunks <- aheadChunk{buf[:n], err}:
			case <-r.stop:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return r
}

func (r *readAhead) Read(p []byte) (int, error) {
	for r.off == len(r.cur.b) {
		if r.cur.err != nil {
			return 0, r.cur.err
		}
		if r.cur.b != nil {
			r.free <- r.cur.b[:cap(r.cur.b)]
		}
		c, ok := <-r.chunks
		if !ok {
			return 0, io.ErrClosedPipe // read after close: never, the reader stops at an error
		}
		r.cur, r.off = c, 0
	}
	n := copy(p, r.cur.b[r.off:])
	r.off += n
	return n, nil
}

// close stops the goroutine and waits for it: src is no longer read.
func (r *readAhead) close() {
	close(r.stop)
	r.wg.Wait()
}
