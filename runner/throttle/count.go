package throttle

import (
	"bytes"
	"io"
)

// counter counts items in a response body as it streams past, in constant
// memory: the proxy never buffers a response.
type counter interface {
	feed(p []byte)
	count() int64
}

// valueCounter counts the elements of the top-level "value" array of a
// JSON object (a table query's {"odata.metadata": ..., "value": [...]}).
type valueCounter struct {
	depth     int
	inStr     bool
	esc       bool
	expectKey bool   // at depth 1, the next string is a member name
	capturing bool   // reading a member name at depth 1
	key       []byte // the member name read so far (up to len("value")+1)
	curKey    string // the last complete member name at depth 1
	colon     bool   // a ':' followed curKey at depth 1
	inValue   bool   // inside the "value" array
	first     bool   // just after its '['
	n         int64
}

func (c *valueCounter) count() int64 { return c.n }

func (c *valueCounter) feed(p []byte) {
	for _, ch := range p {
		if c.inStr {
			switch {
			case c.esc:
				c.esc = false
				c.keep(ch)
			case ch == '\\':
				c.esc = true
				c.keep(ch)
			case ch == '"':
				c.inStr = false
				if c.capturing {
					c.capturing = false
					c.curKey, c.colon = string(c.key), false
					c.expectKey = false
				}
			default:
				c.keep(ch)
			}
			continue
		}
		if ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' {
			continue
		}
		if c.inValue && c.depth == 2 && c.first {
			c.first = false
			if ch != ']' {
				c.n++
			}
		}
		switch ch {
		case '"':
			c.inStr = true
			if c.depth == 1 && c.expectKey {
				c.capturing, c.key = true, c.key[:0]
			}
		case ':':
			if c.depth == 1 {
				c.colon = true
			}
		case ',':
			if c.depth == 1 {
				c.expectKey, c.curKey, c.colon = true, "", false
			}
			if c.inValue && c.depth == 2 {
				c.n++
			}
		case '{', '[':
			if ch == '[' && c.depth == 1 && c.colon && c.curKey == "value" {
				c.inValue, c.first = true, true
			}
			c.depth++
			if c.depth == 1 {
				c.expectKey = true
			}
		case '}', ']':
			c.depth--
			if c.inValue && c.depth == 1 {
				c.inValue = false
			}
		}
	}
}

// keep collects a member name's bytes, bounded: only "value" matters.
func (c *valueCounter) keep(ch byte) {
	if c.capturing && len(c.key) <= len("value") {
		c.key = append(c.key, ch)
	}
}

// substrCounter counts occurrences of a fixed pattern across chunks.
type substrCounter struct {
	pat  []byte
	tail []byte // the last len(pat)-1 bytes seen
	n    int64
	buf  []byte
}

func newSubstrCounter(pat string) *substrCounter { return &substrCounter{pat: []byte(pat)} }

func (c *substrCounter) count() int64 { return c.n }

func (c *substrCounter) feed(p []byte) {
	k := len(c.pat) - 1
	// Search the seam (tail + the head of p) and then p itself.
	if len(c.tail) > 0 {
		c.buf = append(append(c.buf[:0], c.tail...), p[:min(len(p), k)]...)
		c.n += int64(bytes.Count(c.buf, c.pat))
	}
	c.n += int64(bytes.Count(p, c.pat))
	// Keep the last k bytes of tail+p for the next seam.
	if len(p) >= k {
		c.tail = append(c.tail[:0], p[len(p)-k:]...)
	} else {
		c.tail = append(c.tail, p...)
		if len(c.tail) > k {
			c.tail = c.tail[len(c.tail)-k:]
		}
	}
}

// countingBody feeds a response body to a counter as it is read.
type countingBody struct {
	io.ReadCloser
	c counter
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.c.feed(p[:n])
	}
	return n, err
}
