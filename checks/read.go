package checks

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/zstd"

	"github.com/stormcheck/stormcheck/internal/boundedread"
)

// maxHistoryWindow bounds the window a compressed history may ask the
// reader to keep: HistoryWriter uses 1 MiB. A frame header can ask for up to
// 512 MiB (the library's default bound) in ten bytes, which the reader
// would allocate before reading a record.
const maxHistoryWindow = 8 << 20

// MaxRecordBytes bounds one record (one line) of a history, plain or
// after decompression; the history itself may be any length and is
// streamed. A record is one operation: under 2 KiB even with 1 MiB
// payloads (a long value is recorded as its head, length and digest),
// more for a batch or a query that lists its rows, never near this.
const MaxRecordBytes = 64 << 20

// zstdMagic starts every zstd frame (RFC 8878, section 3.1.1).
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// TruncatedError says a history ends inside a record: the run that wrote it
// was killed or its disk filled up. Every whole record before that point
// was read and delivered; the error says how many.
type TruncatedError struct {
	// Records is how many whole records were read.
	Records int
	// Why is what was cut: a partial line, or a compressed frame cut short.
	Why string
	// Damaged: the history goes on but cannot be read past this point (a
	// compressed block that does not decode): it is judged, as a cut one,
	// up to its last good record. (A record that decompresses but is not
	// an operation stays an error.)
	Damaged bool
}

func (e *TruncatedError) Error() string {
	if e.Damaged {
		return fmt.Sprintf("history damaged after record %d (%s): the rest cannot be read; "+
			"the %d whole records before it were read", e.Records, e.Why, e.Records)
	}
	return fmt.Sprintf("history truncated after record %d (%s): the run was interrupted or its disk filled up; "+
		"the %d whole records before it were read", e.Records, e.Why, e.Records)
}

// notAHistory is the error for a file whose very first record does not
// read: another file, or one damaged from its start.
func notAHistory(err error) error {
	return fmt.Errorf("not a stormcheck history (zstd-compressed JSON lines, one operation each), or damaged from its start: %w", err)
}

// IsTruncated reports whether err is (or wraps) a TruncatedError: the
// records before it were delivered and can still be judged.
func IsTruncated(err error) bool {
	var t *TruncatedError
	return errors.As(err, &t)
}

// ReadHistory streams a history (one JSON Op per line, plain or zstd
// compressed: the first bytes tell) to fn, in file order, without holding
// the history in memory. A history that ends inside a record (a partial
// last line, or a compressed frame cut short) delivers every whole record
// and then returns a *TruncatedError; a record that is not a valid Op is an
// error naming its line.
//
// Each record reaches fn as soon as its line is read, and fn's error
// returns at once: a caller may read the first records of a history that
// is still being written, or stops coming, and leave.
func ReadHistory(r io.Reader, fn func(*Op) error) error {
	return readHistory(r, false, false, func(op *Op, _ []byte) error { return fn(op) })
}

// ReadHistoryLines is ReadHistory that also hands fn each record's line as
// it was read (without its newline; valid only until fn returns), for a
// caller that copies records elsewhere without encoding them again.
//
// It reads a batch of records ahead of fn, on a goroutine of its own: it is
// for a history on disk read whole (a check), not one that may stall.
func ReadHistoryLines(r io.Reader, fn func(op *Op, line []byte) error) error {
	return readHistory(r, false, true, fn)
}

// RouteHistoryLines is ReadHistoryLines for a caller that only routes the
// records by workload and key: each op it gets has those two fields set
// and no other (a line whose fields it cannot find at once is decoded
// whole, and a line that is not a record is an error as in
// ReadHistoryLines; a damaged field elsewhere in a line is not looked at).
// It reads a history in half the time ReadHistoryLines does.
func RouteHistoryLines(r io.Reader, fn func(op *Op, line []byte) error) error {
	return readHistory(r, true, true, fn)
}

func readHistory(r io.Reader, route, ahead bool, fn func(op *Op, line []byte) error) error {
	src, done, err := historySource(r)
	if err != nil {
		return err
	}
	defer done()
	return readLines(src, route, ahead, fn)
}

// historySource is the lines of a history, plain or zstd compressed (the
// first bytes tell); done releases the decompressor.
func historySource(r io.Reader) (src io.Reader, done func(), err error) {
	br := bufio.NewReaderSize(r, 64*1024)
	head, _ := br.Peek(len(zstdMagic))
	if !bytes.Equal(head, zstdMagic) {
		return br, func() {}, nil
	}
	d, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(maxHistoryWindow))
	if err != nil {
		return nil, nil, fmt.Errorf("history: %w", err)
	}
	return d, d.Close, nil
}

// ReadHistoryFile opens path and reads it with ReadHistory; errors name the
// file.
func ReadHistoryFile(path string, fn func(*Op) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := ReadHistory(f, fn); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// readLines decodes one Op per line and hands each to fn in order; fn's
// own error stops the reading and is returned, and fn sees every record
// and the error after the last whole one as a sequential reader gives
// them.
//
// With ahead, the reading and decoding run on a goroutine of their own, a
// batch of records ahead of fn (a check spends about as long in its
// checkers as in reading the history: on two cores the two overlap). That
// is for a source that never stalls, a file on disk read whole: a record
// reaches fn only once its batch is full or the source ends, and a caller
// that stops early waits for the reader's current read. Without ahead,
// each record reaches fn as soon as its line is read, and fn's error
// returns at once (a caller that reads the first record of a history that
// stops coming, as merge does, gets it and leaves).
func readLines(src io.Reader, route, ahead bool, fn func(*Op, []byte) error) error {
	if !ahead {
		var fnErr error
		decodeLines(src, route, 1, func(b *lineBatch) bool {
			for i := range b.ops {
				if fnErr = fn(&b.ops[i], b.line(i)); fnErr != nil {
					return false
				}
			}
			if b.err != nil {
				fnErr = b.err
				return false
			}
			return true
		})
		return fnErr
	}
	return readBatches(src, route, func(b *lineBatch) error {
		for i := range b.ops {
			if err := fn(&b.ops[i], b.line(i)); err != nil {
				return err
			}
		}
		return nil
	})
}

// readBatches reads and decodes on a goroutine of its own, a batch of
// records ahead of fn, and hands fn each batch in order (each a new one,
// fn's to keep); it returns fn's error, or the error the reading stopped
// at once fn has had the records before it.
func readBatches(src io.Reader, route bool, fn func(*lineBatch) error) error {
	batches := make(chan *lineBatch, 4)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(batches)
		decodeLines(src, route, batchRecords, func(b *lineBatch) bool {
			select {
			case batches <- b:
				return true
			case <-stop:
				return false
			}
		})
	}()
	defer func() {
		close(stop)
		for range batches { // unblock the reader, then wait for it to end
		}
		<-done
	}()
	for b := range batches {
		if err := fn(b); err != nil {
			return err
		}
		if b.err != nil {
			return b.err
		}
	}
	return nil
}

// lineBatch is records decoded ahead of fn, their lines, and the error the
// reading stopped at after them (nil: more follow, or the end).
type lineBatch struct {
	ops  []Op
	buf  []byte
	ends []int // line i is buf[ends[i-1]:ends[i]]
	err  error
}

const batchRecords = 256

func (b *lineBatch) line(i int) []byte {
	from := 0
	if i > 0 {
		from = b.ends[i-1]
	}
	return b.buf[from:b.ends[i]:b.ends[i]]
}

// decodeLines reads and decodes lines (with route, only their workload
// and key when it can) into batches of up to size records, handing each to
// emit, until the end, an error (in the last batch) or emit says stop. A
// batch of several belongs to emit (the next one is new); a batch of one is
// emit's only until it returns (its buffers are reused), except its op.
func decodeLines(src io.Reader, route bool, size int, emit func(*lineBatch) bool) {
	rd := bufio.NewReaderSize(src, 256*1024)
	line, records := 0, 0
	var long []byte // a line longer than the reader's buffer, assembled
	var dec opDecoder
	b := &lineBatch{ops: make([]Op, 0, size)}
	send := func(err error) bool {
		b.err = err
		if !emit(b) {
			return false
		}
		if size == 1 {
			// emit is done with the batch (a synchronous reader): its line
			// buffers are reused; the op is new, as a caller may keep it.
			b.ops, b.buf, b.ends, b.err = make([]Op, 0, 1), b.buf[:0], b.ends[:0], nil
			return true
		}
		b = &lineBatch{ops: make([]Op, 0, size), buf: make([]byte, 0, len(b.buf))}
		return true
	}
	for {
		rb, err := rd.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			long = append(long, rb...)
			if len(long) > MaxRecordBytes {
				send(&boundedread.Error{Line: line + 1, What: "a record (one line) of a history", Size: -1, Bound: MaxRecordBytes})
				return
			}
			continue
		}
		if long != nil {
			rb = append(long, rb...)
			long = nil
		}
		if err != nil {
			send(endError(err, rb, line, records))
			return
		}
		line++
		rb = bytes.TrimRight(rb, "\r\n")
		if len(rb) == 0 {
			continue
		}
		b.ops = append(b.ops, Op{})
		op := &b.ops[len(b.ops)-1]
		if route && dec.route(rb, op) {
			// routed: workload and key only
		} else if err := dec.DecodeLine(rb, op); err != nil {
			b.ops = b.ops[:len(b.ops)-1]
			if records == 0 {
				err = notAHistory(err)
			}
			send(fmt.Errorf("history line %d: %w", line, err))
			return
		}
		records++
		b.buf = append(b.buf, rb...)
		b.ends = append(b.ends, len(b.buf))
		if len(b.ops) == size && !send(nil) {
			return
		}
	}
}

// endError is what reading a history ends with when the reader stopped
// with err after records whole records, rest being what it read of the
// next line: nil at a clean end. The decompressor's own error at the end
// (a frame cut short) is a truncation once the whole records before it
// have been delivered.
func endError(err error, rest []byte, line, records int) error {
	if errors.Is(err, zstd.ErrWindowSizeExceeded) {
		return fmt.Errorf("history: compressed with a window over %d MiB (stormcheck writes 1 MiB): not a stormcheck history, or damaged: %w",
			maxHistoryWindow>>20, err)
	}
	cut := err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, zstd.ErrMagicMismatch)
	if !cut {
		// A block that does not decompress: what was read before
		// it is judged, as for a cut file. It was said as a cut
		// ("line N has no end: the run was interrupted or its
		// disk filled up") when the decoder stopped inside a line,
		// and failed the whole check with only the decoder's words
		// ("match offset (990985) bigger than current history")
		// when it stopped between two.
		if records > 0 {
			return &TruncatedError{Records: records, Why: "the compressed stream does not decode: " + err.Error(), Damaged: true}
		}
		return notAHistory(err)
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		// The last line has no newline: the writer was stopped
		// in the middle of it (a whole record always ends in one).
		return &TruncatedError{Records: records, Why: fmt.Sprintf("line %d has no end", line+1)}
	}
	if err == io.EOF {
		return nil
	}
	return &TruncatedError{Records: records, Why: "the compressed stream ends inside a frame: " + err.Error()}
}

// Run feeds ops to fresh checkers and returns their results in order.
func Run(ops []Op, cs ...Checker) []Result {
	for i := range ops {
		for _, c := range cs {
			c.Observe(&ops[i])
		}
	}
	out := make([]Result, len(cs))
	for i, c := range cs {
		out[i] = c.Finish()
	}
	return out
}
