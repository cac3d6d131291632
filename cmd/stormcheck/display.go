package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// display shows a run's progress: mpb bars on a terminal, a plain line every
// few seconds otherwise (CI logs, pipes), or nothing.
type display struct {
	mode string // bars, lines, none
	w    io.Writer

	mu       sync.Mutex
	p        *mpb.Progress
	bars     map[string]*bar
	finished bool
	lastLine string // lines mode: the line printed last
}

// bar is one workload's bar. mpb renders from its own goroutine and calls
// the decorator while a SetCurrent may wait for it, so the decorator reads
// its text lock-free and never takes display.mu.
type bar struct {
	b    *mpb.Bar
	text atomic.Pointer[string]
}

func newDisplay(mode string, w io.Writer) *display {
	if mode == "auto" || mode == "" {
		mode = "lines"
		if isTerminal(w) {
			mode = "bars"
		}
	}
	return &display{mode: mode, w: w, bars: map[string]*bar{}}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0 && os.Getenv("TERM") != "dumb"
}

func (d *display) every() time.Duration {
	if d.mode == "bars" {
		return 200 * time.Millisecond
	}
	return 5 * time.Second
}

// logWriter is where phase lines go; while bars are drawn they go above them.
func (d *display) logWriter() io.Writer { return logSink{d} }

type logSink struct{ d *display }

func (l logSink) Write(b []byte) (int, error) {
	l.d.mu.Lock()
	defer l.d.mu.Unlock()
	if l.d.mode == "none" {
		return len(b), nil
	}
	if l.d.p != nil && !l.d.finished {
		return l.d.p.Write(b)
	}
	return fmt.Fprintf(l.d.w, "stormcheck: %s", b)
}

func (d *display) update(p runner.Progress) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch d.mode {
	case "lines":
		wp := make([]reports.WorkloadProgress, len(p.Workloads))
		for i, w := range p.Workloads {
			wp[i] = w.WorkloadProgress
		}
		// The final snapshot follows the last tick at once when the load
		// ends on a tick: the same line twice says nothing new.
		if line := reports.FormatProgressLine(p.Elapsed, wp); line != d.lastLine {
			fmt.Fprintln(d.w, line)
			d.lastLine = line
		}
	case "bars":
		d.drawBars(p)
	}
}

func (d *display) drawBars(p runner.Progress) {
	if d.finished {
		return
	}
	if d.p == nil {
		d.p = mpb.New(mpb.WithOutput(d.w), mpb.WithWidth(24), mpb.WithRefreshRate(150*time.Millisecond), mpb.WithAutoRefresh())
	}
	allDone := true
	for _, w := range p.Workloads {
		b := d.bars[w.Workload]
		if b == nil {
			b = &bar{}
			b.text.Store(new(string))
			b.b = d.p.New(barTotal(w), mpb.BarStyle().Lbound("[").Rbound("]"),
				mpb.PrependDecorators(decor.Name(w.Workload, decor.WCSyncSpaceR)),
				mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return *b.text.Load() })))
			d.bars[w.Workload] = b
		}
		text := barText(w, p.Elapsed)
		b.text.Store(&text)
		if w.Done {
			// A bar made with a positive total completes only when its
			// current reaches that total (mpb ignores SetTotal on it).
			b.b.SetCurrent(barTotal(w))
		} else {
			b.b.SetCurrent(barCurrent(w, p.Elapsed))
			allDone = false
		}
	}
	if allDone {
		d.finished = true
		pp := d.p
		d.mu.Unlock()
		pp.Wait()
		d.mu.Lock()
	}
}

// barTotal is the bar's length: the load phase in milliseconds, or the
// iteration bound when there is no time limit.
func barTotal(w runner.WorkloadProgress) int64 {
	if w.Limit > 0 {
		return w.Limit.Milliseconds()
	}
	return max(w.Bound, 1)
}

func barCurrent(w runner.WorkloadProgress, elapsed time.Duration) int64 {
	if w.Limit > 0 {
		return min(elapsed.Milliseconds(), w.Limit.Milliseconds())
	}
	return w.Iterations
}

func barText(w runner.WorkloadProgress, elapsed time.Duration) string {
	s := reports.ProgressText(w.WorkloadProgress)
	if w.Limit > 0 && !w.Done {
		left := max(w.Limit-elapsed, 0).Round(time.Second)
		s += fmt.Sprintf(" %s left", left)
	}
	return s
}

func (d *display) close() {
	d.mu.Lock()
	pp, fin := d.p, d.finished
	d.finished = true
	d.mu.Unlock()
	if pp != nil && !fin {
		for _, b := range d.bars {
			b.b.Abort(false)
		}
		pp.Wait()
	}
}
