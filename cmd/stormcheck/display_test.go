package main

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/reports"
	"github.com/stormcheck/stormcheck/runner"
)

// syncBuffer is a bytes.Buffer safe for mpb's render goroutine and ours.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func progressAt(elapsed time.Duration, done bool) runner.Progress {
	return runner.Progress{Elapsed: elapsed, Workloads: []runner.WorkloadProgress{
		{WorkloadProgress: reports.WorkloadProgress{Workload: "counter", Ops: int64(elapsed / time.Millisecond), OK: 10, Conflicts: 5, Rate: 100}, Limit: 2 * time.Second, Done: done},
		{WorkloadProgress: reports.WorkloadProgress{Workload: "create", Ops: 3}, Bound: 100, Iterations: 3, Done: done},
	}}
}

// TestBarsNeverBlockTheRun drives the bars as a run does, at a high rate and
// with log lines in between: mpb renders from its own goroutine, and a
// display that blocks would stall the whole load.
func TestBarsNeverBlockTheRun(t *testing.T) {
	out := &syncBuffer{}
	d := newDisplay("bars", out)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for i := 0; i < 200; i++ {
			d.update(progressAt(time.Duration(i)*10*time.Millisecond, false))
			if i%50 == 0 {
				fmt.Fprintf(d.logWriter(), "phase %d\n", i)
			}
			time.Sleep(time.Millisecond)
		}
		d.update(progressAt(2*time.Second, true))
		fmt.Fprintln(d.logWriter(), "final reads")
		d.close()
	}()
	select {
	case <-finished:
	case <-time.After(2 * time.Minute): // a deadline for a blocked display, not a speed
		t.Fatal("the progress display blocked")
	}
	s := out.String()
	for _, want := range []string{"counter", "create", "2000 calls", "phase 0", "phase 150", "final reads"} {
		if !strings.Contains(s, want) {
			t.Errorf("bars output lacks %q:\n%s", want, s)
		}
	}
}

func TestLinesModePrintsPlainLines(t *testing.T) {
	var out bytes.Buffer
	d := newDisplay("auto", &out) // a buffer is not a terminal: lines
	d.update(progressAt(5*time.Second, false))
	d.close()
	if !strings.Contains(out.String(), "counter: 5000 calls") || strings.Contains(out.String(), "\x1b[") {
		t.Errorf("lines mode: %q", out.String())
	}
}

// TestLinesModePrintsTheLastLineOnce: the final snapshot, identical to the
// tick just before it (the load ended on a tick), is not printed again.
func TestLinesModePrintsTheLastLineOnce(t *testing.T) {
	var out bytes.Buffer
	d := newDisplay("lines", &out)
	d.update(progressAt(5*time.Second, false))
	d.update(progressAt(10*time.Second, true))
	d.update(progressAt(10*time.Second, true))
	d.close()
	if lines := strings.Split(strings.TrimSpace(out.String()), "\n"); len(lines) != 2 {
		t.Errorf("%d lines, want 2 (the last once):\n%s", len(lines), out.String())
	}
}
