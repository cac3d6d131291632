package workload

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/stormcheck/stormcheck/checks"
	"github.com/stormcheck/stormcheck/reports"
)

// Recorder streams every attempt to the history file, in Seq order,
// compressed (zstd, see checks.HistoryWriter), and to the live metrics. The
// history is never held in memory: a run of any length costs the buffers and
// the metrics' histograms.
type Recorder struct {
	start   time.Time // monotonic base of every recorded time
	Metrics *reports.Metrics

	mu  sync.Mutex
	seq uint64
	f   *os.File
	// cw counts the bytes the compressor handed to f; whole is that count
	// after the last complete block (see flush).
	cw    *countingWriter
	whole int64
	z     *checks.HistoryWriter
	w     *bufio.Writer
	enc   lineEncoder
	err   error
	// failed is closed at the first failed write (see fail).
	failed chan struct{}
	done   chan struct{}
	wg     sync.WaitGroup
}

// NewRecorder creates the history file at path; recorded times count from
// start.
func NewRecorder(path string, start time.Time, m *reports.Metrics) (*Recorder, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	cw := &countingWriter{w: f}
	z, err := checks.NewHistoryWriter(cw)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("history: %w", err)
	}
	w := bufio.NewWriterSize(z, 256*1024)
	r := &Recorder{start: start, Metrics: m, f: f, cw: cw, z: z, w: w, enc: lineEncoder{w},
		done: make(chan struct{}), failed: make(chan struct{})}
	r.wg.Add(1)
	go r.flushEvery(time.Second)
	return r, nil
}

// Now is the time since the recorder started, from the monotonic clock.
func (r *Recorder) Now() int64 { return int64(time.Since(r.start)) }

// Start is the wall-clock time the run's clock counts from.
func (r *Recorder) Start() time.Time { return r.start }

// Record assigns the op its sequence number and writes it out.
func (r *Recorder) Record(op *checks.Op) {
	r.mu.Lock()
	r.seq++
	op.Seq = r.seq
	if r.err == nil {
		r.fail(r.enc.Encode(RecordedPayloads(op))) // a payload's length, not its bytes
	}
	r.mu.Unlock()
	if r.Metrics != nil {
		r.Metrics.Record(op)
	}
}

// Count is how many ops were recorded so far.
func (r *Recorder) Count() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.seq
}

// flushEvery pushes buffered records to the file as a complete compressed
// block, so an interrupted run (or a full disk) loses at most the last
// second: the history stays readable up to its last whole record.
func (r *Recorder) flushEvery(d time.Duration) {
	defer r.wg.Done()
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-r.done:
			return
		case <-t.C:
			r.mu.Lock()
			if r.err == nil {
				r.fail(r.flush())
			}
			r.mu.Unlock()
		}
	}
}

// Close flushes, syncs and closes the history file. Safe to call twice.
func (r *Recorder) Close() error {
	r.mu.Lock()
	if r.f == nil {
		r.mu.Unlock()
		return r.err
	}
	close(r.done)
	r.mu.Unlock()
	r.wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.fail(r.w.Flush())
	}
	if r.err == nil {
		r.fail(r.z.Close())
	}
	if err := r.f.Sync(); err != nil && r.err == nil {
		r.fail(err)
	}
	if err := r.f.Close(); err != nil && r.err == nil {
		r.err = err
	}
	r.f = nil
	return r.err
}

// flush pushes the buffered records through the compressor to the file,
// as a complete block.
func (r *Recorder) flush() error {
	if err := r.w.Flush(); err != nil {
		return err
	}
	if err := r.z.Flush(); err != nil {
		return err
	}
	r.whole = r.cw.n
	return nil
}

// Failed is closed at the first write the history file refused (a full
// disk, a file size limit): the run stops its load there.
func (r *Recorder) Failed() <-chan struct{} { return r.failed }

// Err is the first write error, if any.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// fail keeps the first write error and cuts the file back to its last
// complete block: a write that failed half-way leaves no torn block, and
// the history reads back every record before it (then says it was cut
// short). Shrinking a file needs no space. r.mu is held.
func (r *Recorder) fail(err error) {
	if err == nil || r.err != nil {
		return
	}
	r.err = err
	if terr := r.f.Truncate(r.whole); terr != nil {
		r.err = fmt.Errorf("%w (and cutting the torn block failed: %v)", err, terr)
	}
	close(r.failed)
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// lineEncoder writes each op as one JSON line straight into the history's
// buffer (checks.Op.AppendJSONLine: the bytes encoding/json writes, with no
// reflection and no allocation).
type lineEncoder struct{ w *bufio.Writer }

// Encode writes op and a newline.
func (e lineEncoder) Encode(op *checks.Op) error {
	_, err := e.w.Write(op.AppendJSONLine(e.w.AvailableBuffer()))
	return err
}
