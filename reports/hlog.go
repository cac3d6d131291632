package reports

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stormcheck/stormcheck/internal/boundedread"
)

// This file streams one HdrHistogram log (.hlog) per (workload, op): an
// interval histogram of uncorrected latency in microseconds for every
// second of the run that saw operations of that series; and the same of
// corrected latency (from the intended start) in CorrectedHlogDir inside
// the log directory, which the HTML report draws over time.
//
// An interval is complete once an operation two seconds later arrives: one
// second of grace, because ops are recorded by many goroutines after they
// return, so an op that returned at 4.999s may be recorded after one that
// returned at 5.001s. An op whose interval was already completed is logged
// in the oldest open interval instead (counted, and noted at the end of
// the file), so the log's total count always equals the summary's. Seconds
// without operations have no interval line. Completed intervals go to a
// background writer; Close writes the rest.

// interval is one second's histogram.
type interval struct {
	sec int64
	h   *hdrhistogram.Histogram
}

// histPool recycles interval histograms (about 190 KB each). It is a plain
// free list, not a sync.Pool: a run's heap is small, so the collector runs
// several times a second and would empty a sync.Pool each time, and every
// new interval would allocate (and zero) its histogram again.
var histPool freeHists

// freeHists is a bounded list of reset histograms.
type freeHists struct {
	mu   sync.Mutex
	free []*hdrhistogram.Histogram
}

// maxFreeHists bounds what the free list keeps (about 3 MB): a run's
// series each hold two open intervals per log, and the writer hands
// completed ones back within a second.
const maxFreeHists = 16

// Get returns a reset histogram.
func (p *freeHists) Get() *hdrhistogram.Histogram {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		h := p.free[n-1]
		p.free[n-1] = nil
		p.free = p.free[:n-1]
		return h
	}
	return NewHistogram()
}

// Put hands back a histogram its user reset.
func (p *freeHists) Put(h *hdrhistogram.Histogram) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) < maxFreeHists {
		p.free = append(p.free, h)
	}
}

// intervals is one series' log state. The fields above the line are
// guarded by the series mutex; the ones below by hlogs.wmu.
type intervals struct {
	open    []interval // ascending by second, at most two between records
	pending []interval // completed, waiting for the writer, ascending
	flushed int64      // highest completed second, -1 before any
	moved   int64      // ops logged in a later interval than their own
	closed  bool

	workload, kind string
	corrected      bool
	name           string // file name inside the log directory
	f              *os.File
	bw             *bufio.Writer
	lw             *hdrhistogram.HistogramLogWriter
	failed         bool
}

// record adds one latency to the interval of second sec and completes the
// intervals older than the newest minus one. It reports whether some
// interval was completed (the writer should be woken).
func (iv *intervals) record(sec, us int64) bool {
	if iv.closed {
		return false
	}
	if sec <= iv.flushed {
		iv.moved++
		if len(iv.open) > 0 {
			sec = iv.open[0].sec
		} else {
			sec = iv.flushed + 1
		}
	}
	i := 0
	for i < len(iv.open) && iv.open[i].sec < sec {
		i++
	}
	if i == len(iv.open) || iv.open[i].sec != sec {
		h := histPool.Get()
		h.SetStartTimeMs(sec * 1000)
		h.SetEndTimeMs((sec + 1) * 1000)
		iv.open = slices.Insert(iv.open, i, interval{sec: sec, h: h})
	}
	_ = iv.open[i].h.RecordValue(us)

	newest := iv.open[len(iv.open)-1].sec
	n := 0
	for n < len(iv.open) && iv.open[n].sec < newest-1 {
		n++
	}
	if n == 0 {
		return false
	}
	iv.pending = append(iv.pending, iv.open[:n]...)
	iv.flushed = iv.open[n-1].sec
	iv.open = append(iv.open[:0], iv.open[n:]...)
	return true
}

// hlogs is the log side of a Metrics: naming, the background writer, errors.
type hlogs struct {
	dir     string
	startMs int64 // the run's start, Unix milliseconds, for StartTime
	wakeCh  chan struct{}
	done    chan struct{}
	exited  chan struct{}
	names   map[string]bool // file names taken; guarded by Metrics.mu
	closed  bool            // guarded by Metrics.mu

	wmu       sync.Mutex // serialises writing (writer goroutine, Close)
	enc       intervalEncoder
	dirMade   bool
	err       error
	closeOnce sync.Once
}

func newHlogs(dir string, start time.Time) *hlogs {
	return &hlogs{
		dir:     dir,
		startMs: start.UnixMilli(),
		wakeCh:  make(chan struct{}, 1),
		done:    make(chan struct{}),
		exited:  make(chan struct{}),
		names:   map[string]bool{},
	}
}

// wake tells the writer there is work, without ever blocking.
func (h *hlogs) wake() {
	select {
	case h.wakeCh <- struct{}{}:
	default:
	}
}

// newIntervals sets up a series' log state with a unique file name. The
// caller holds Metrics.mu.
func (h *hlogs) newIntervals(k seriesKey, corrected bool) *intervals {
	base := SafeName(k.workload) + "." + SafeName(k.kind)
	if corrected {
		base = CorrectedHlogDir + "/" + base
	}
	name := base + ".hlog"
	for i := 2; h.names[name]; i++ {
		name = base + "-" + strconv.Itoa(i) + ".hlog"
	}
	h.names[name] = true
	return &intervals{flushed: -1, workload: k.workload, kind: k.kind, name: name, corrected: corrected}
}

// CorrectedHlogDir is the directory, inside the log directory, of the logs
// of corrected latency.
const CorrectedHlogDir = "corrected"

// each calls f with a series' logs (uncorrected, corrected) that exist.
func (s *series) eachLog(f func(iv *intervals)) {
	for _, iv := range []*intervals{s.iv, s.civ} {
		if iv != nil {
			f(iv)
		}
	}
}

// safeName keeps letters, digits, '.', '-' and '_' and replaces the rest.
func SafeName(s string) string {
	if s == "" {
		return "_"
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			return r
		}
		return '_'
	}, s)
}

func (m *Metrics) hlogLoop() {
	defer close(m.hl.exited)
	for {
		select {
		case <-m.hl.wakeCh:
			m.drainHlogs()
		case <-m.hl.done:
			return
		}
	}
}

// drainHlogs writes every completed interval, series by series, in order.
func (m *Metrics) drainHlogs() {
	h := m.hl
	h.wmu.Lock()
	defer h.wmu.Unlock()
	for _, s := range m.allSeries() {
		s.eachLog(func(iv *intervals) {
			s.mu.Lock()
			batch := iv.pending
			iv.pending = nil
			s.mu.Unlock()
			if len(batch) == 0 {
				return
			}
			for _, it := range batch {
				h.write(iv, it.h)
				it.h.Reset()
				histPool.Put(it.h)
			}
			if iv.bw != nil && !iv.failed {
				if err := iv.bw.Flush(); err != nil {
					h.fail(iv, err)
				}
			}
		})
	}
}

// fail records the first error and stops writing this series' log.
func (h *hlogs) fail(iv *intervals, err error) {
	iv.failed = true
	h.err = errors.Join(h.err, fmt.Errorf("hlog %s: %w", filepath.Join(h.dir, iv.name), err))
}

// write logs one interval, opening the file and writing its header first
// if needed. The caller holds wmu.
func (h *hlogs) write(iv *intervals, hist *hdrhistogram.Histogram) {
	if iv.failed {
		return
	}
	if iv.lw == nil {
		if err := h.open(iv); err != nil {
			h.fail(iv, err)
			return
		}
	}
	if err := h.enc.write(iv.bw, hist); err != nil {
		h.fail(iv, err)
	}
}

func (h *hlogs) open(iv *intervals) error {
	if !h.dirMade {
		if err := os.MkdirAll(h.dir, 0o755); err != nil {
			return err
		}
		h.dirMade = true
	}
	if iv.corrected {
		if err := os.MkdirAll(filepath.Join(h.dir, CorrectedHlogDir), 0o755); err != nil {
			return err
		}
	}
	f, err := os.Create(filepath.Join(h.dir, iv.name))
	if err != nil {
		return err
	}
	iv.f = f
	iv.bw = bufio.NewWriter(f)
	lw, err := NewLatencyLogWriter(iv.bw, iv.workload, iv.kind, iv.corrected, h.startMs)
	if err != nil {
		return err
	}
	iv.lw = lw
	return nil
}

// newLatencyLogWriter starts a latency log on w: the stormcheck header
// (workload, op, what the values are), the format version, the start time
// (Unix ms) and the legend.
func NewLatencyLogWriter(w io.Writer, workload, kind string, corrected bool, startMs int64) (*hdrhistogram.HistogramLogWriter, error) {
	what := "[values: uncorrected latency (call to return) in microseconds; one interval per second of the run, timestamps relative to StartTime]"
	if corrected {
		what = "[values: corrected latency (intended start to return) in microseconds; one interval per second of the run, timestamps relative to StartTime]"
	}
	lw := hdrhistogram.NewHistogramLogWriter(w)
	for _, c := range []string{
		fmt.Sprintf("[stormcheck latency log: workload %q, op %q]", workload, kind),
		what,
		"[the Interval_Max column is microseconds / 1e6 (the writer's fixed ratio): read it as seconds]",
	} {
		if err := lw.OutputComment(c); err != nil {
			return nil, err
		}
	}
	if err := lw.OutputLogFormatVersion(); err != nil {
		return nil, err
	}
	if err := lw.OutputStartTime(startMs); err != nil {
		return nil, err
	}
	if err := lw.OutputLegend(); err != nil {
		return nil, err
	}
	return lw, nil
}

// Close completes every open interval, writes them, ends each log with a
// note of ops logged in a later interval than their own (if any), syncs
// and closes the files. It returns the errors met while writing the logs
// (a failed log stops, the others go on). Operations recorded after Close
// still count in the summary but not in the logs. Close is idempotent and
// a no-op without HlogDir.
func (m *Metrics) Close() error {
	h := m.hl
	if h == nil {
		return nil
	}
	h.closeOnce.Do(func() {
		m.mu.Lock()
		h.closed = true
		m.mu.Unlock()
		close(h.done)
		<-h.exited
		for _, s := range m.allSeries() {
			s.eachLog(func(iv *intervals) {
				s.mu.Lock()
				iv.pending = append(iv.pending, iv.open...)
				iv.open = nil
				iv.closed = true
				s.mu.Unlock()
			})
		}
		m.drainHlogs()
		h.wmu.Lock()
		defer h.wmu.Unlock()
		for _, s := range m.allSeries() {
			s.eachLog(func(iv *intervals) {
				if iv.f == nil {
					return
				}
				if !iv.failed {
					s.mu.Lock()
					moved := iv.moved
					s.mu.Unlock()
					var err error
					if moved > 0 {
						err = iv.lw.OutputComment(fmt.Sprintf("[%d ops returned in a second whose interval was already written; they are logged in a later interval]", moved))
					}
					if err == nil {
						err = iv.bw.Flush()
					}
					if err == nil {
						err = iv.f.Sync()
					}
					if err != nil {
						h.fail(iv, err)
					}
				}
				if err := iv.f.Close(); err != nil && !iv.failed {
					h.fail(iv, err)
				}
			})
		}
	})
	h.wmu.Lock()
	defer h.wmu.Unlock()
	return h.err
}

// HlogFiles maps a label ("hlog WORKLOAD OP") to each log file written, as
// a name inside HlogDir; for Summary.Files. Call it after Close.
func (m *Metrics) HlogFiles() map[string]string {
	out := map[string]string{}
	if m.hl == nil {
		return out
	}
	m.hl.wmu.Lock()
	defer m.hl.wmu.Unlock()
	for _, s := range m.allSeries() {
		if s.iv != nil && s.iv.f != nil {
			out["hlog "+s.iv.workload+" "+s.iv.kind] = s.iv.name
		}
	}
	return out
}

// latencyLogHeader is the comment Metrics writes first in each log.
var latencyLogHeader = regexp.MustCompile(`^#\[stormcheck latency log: workload ("(?:[^"\\]|\\.)*"), op ("(?:[^"\\]|\\.)*")\]`)

// scanLatencyLog reads an HdrHistogram log as Metrics writes it: header
// gets the stormcheck header's workload and op (if the log has one),
// interval each interval's start (seconds since the log's StartTime) and
// histogram, in file order.
func ScanLatencyLog(r io.Reader, header func(workload, op string), interval func(ts float64, h *hdrhistogram.Histogram) error) error {
	var startSec float64 // the log's StartTime, to make absolute stamps relative
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), MaxHlogLineBytes)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		switch {
		case text == "":
			continue
		case strings.HasPrefix(text, "#"):
			if m := latencyLogHeader.FindStringSubmatch(text); m != nil {
				w, _ := strconv.Unquote(m[1])
				o, _ := strconv.Unquote(m[2])
				header(w, o)
			} else if v, ok := strings.CutPrefix(text, "#[StartTime: "); ok {
				if f, err := strconv.ParseFloat(strings.Fields(v)[0], 64); err == nil {
					startSec = f
				}
			}
			continue
		case strings.HasPrefix(text, `"`): // the column legend
			continue
		}
		text, _ = strings.CutPrefix(text, "Tag=")
		if i := strings.IndexByte(text, ','); i >= 0 && !hlogIsNumber(text[:i]) { // a tag
			text = text[i+1:]
		}
		parts := strings.SplitN(text, ",", 4)
		if len(parts) != 4 {
			return fmt.Errorf("line %d: not an interval line", line)
		}
		ts, err := strconv.ParseFloat(parts[0], 64)
		if err != nil {
			return fmt.Errorf("line %d: start timestamp: %v", line, err)
		}
		h, err := hdrhistogram.Decode([]byte(parts[3]))
		if err != nil {
			return fmt.Errorf("line %d: histogram: %v", line, err)
		}
		if startSec > 0 && ts >= startSec-365*24*3600 { // absolute stamps
			ts -= startSec
		}
		if err := interval(ts, h); err != nil {
			return fmt.Errorf("line %d: %w", line, err)
		}
	}
	if errors.Is(sc.Err(), bufio.ErrTooLong) {
		return &boundedread.Error{Line: line + 1, What: "a line of a latency log", Size: -1, Bound: MaxHlogLineBytes}
	}
	return sc.Err()
}

// MaxHlogLineBytes bounds a line of a latency log (hlog/*.hlog) as report,
// compare and merge read it; the log itself may be any length (one line a
// second) and is streamed. An interval line holds one encoded histogram:
// about 400 bytes in a quickstart run, and under 300 KiB for a histogram
// with every one of its 23,552 counters set.
const MaxHlogLineBytes = 16 << 20

func hlogIsNumber(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}
