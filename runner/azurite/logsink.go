package azurite

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

const tailLines = 30

// logSink copies Azurite's combined output from a pipe into the log file in
// large chunks (the access log can run at thousands of lines a second),
// keeps the last lines in memory for error messages, and reports the
// "successfully listening" lines.
type logSink struct {
	r      *os.File
	f      *os.File
	listen chan listenAddr // Azurite's "listening" announcements
	eof    chan struct{}   // closed when the pipe is drained

	mu      sync.Mutex
	partial []byte   // incomplete last line
	tail    []string // ring of the last tailLines lines
	next    int
}

// newLogSink creates the log file at path and a pipe whose write end is
// for the child; the caller must close w after starting the child.
func newLogSink(path string) (s *logSink, w *os.File, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return &logSink{r: r, f: f, listen: make(chan listenAddr, 8), eof: make(chan struct{})}, w, nil
}

// run copies until the pipe's write ends are all closed.
func (s *logSink) run() {
	defer close(s.eof)
	buf := make([]byte, 64<<10)
	for {
		n, err := s.r.Read(buf)
		if n > 0 {
			s.mu.Lock()
			s.f.Write(buf[:n])
			s.scan(buf[:n])
			s.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// scan splits chunk into lines for the tail ring and the listen detector.
// Called with s.mu held.
func (s *logSink) scan(chunk []byte) {
	for {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			if len(s.partial) < 4096 {
				s.partial = append(s.partial, chunk...)
			}
			return
		}
		line := string(append(s.partial, chunk[:i]...))
		s.partial = s.partial[:0]
		chunk = chunk[i+1:]
		line = strings.TrimRight(line, "\r")
		if len(s.tail) < tailLines {
			s.tail = append(s.tail, line)
		} else {
			s.tail[s.next] = line
			s.next = (s.next + 1) % tailLines
		}
		if a, ok := parseListening(line); ok {
			select {
			case s.listen <- a:
			default:
			}
		}
	}
}

// note appends a stormcheck line to the log (not to the tail).
func (s *logSink) note(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.f, "stormcheck: "+format+"\n", args...)
}

// lastLines returns the recent output, oldest first, secrets redacted.
func (s *logSink) lastLines() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	lines := append(append([]string(nil), s.tail[s.next:]...), s.tail[:s.next]...)
	if len(s.partial) > 0 {
		lines = append(lines, string(s.partial))
	}
	if len(lines) == 0 {
		return "(no output)"
	}
	for i, l := range lines {
		lines[i] = "  " + redact(l)
	}
	return strings.Join(lines, "\n")
}

// close waits up to wait for the pipe to drain, then closes both files.
func (s *logSink) close(wait time.Duration) error {
	select {
	case <-s.eof:
	case <-time.After(wait):
		s.r.Close() // a leftover writer holds the pipe open; stop reading
		<-s.eof
	}
	s.r.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.f.Close()
}
