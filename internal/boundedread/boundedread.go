// Package boundedread reads the files stormcheck is given with a bound on
// their size, so that no file (an oversized one, a device such as
// /dev/zero, a file that grows while it is read) makes a reader grow past
// it. Each bound is a constant beside what it bounds; this package holds the
// one way of applying it and the one error that says a file is past it.
//
// A file read whole (ReadFile, Read) is refused from its size on disk
// before any of it is read, and is read through an io.LimitReader as well:
// a device or a pipe says size 0 and never ends, a growing file says less
// than it holds. A file read as a stream (a history, a latency log) is
// bounded per line by its reader, which says so with the same Error.
package boundedread

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
)

// Error says a file, or one line of it, is larger than its bound.
type Error struct {
	// File names the file as it was given; "" when the caller names it.
	File string
	// Line is the line past its bound (1-based), for a bound per line; 0
	// for the file as a whole.
	Line int
	// What is what the bound is for, e.g. "a summary.json", "a line of a
	// history".
	What string
	// Size is what the file holds, from its size on disk; -1 when only
	// "more than Bound" is known (it was read up to the bound: a device, a
	// pipe, a growing file, or a line).
	Size int64
	// Bound is the most it may hold, in bytes.
	Bound int64
}

// Error is "FILE: the file holds N bytes; WHAT holds at most B bytes (B
// in MiB)", or "FILE: line L holds more than ...".
func (e *Error) Error() string {
	if e.File == "" {
		return e.Msg()
	}
	return e.File + ": " + e.Msg()
}

// Msg is Error without the file's name, for callers that place it
// themselves.
func (e *Error) Msg() string {
	subject := "the file"
	if e.Line > 0 {
		subject = "line " + strconv.Itoa(e.Line)
	}
	held := "more than " + Bytes(e.Bound)
	if e.Size >= 0 {
		held = strconv.FormatInt(e.Size, 10) + " bytes"
	}
	return fmt.Sprintf("%s holds %s; %s holds at most %d bytes (%s)", subject, held, e.What, e.Bound, Bytes(e.Bound))
}

// As returns the *Error in err's chain, or nil.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// Bytes writes n as a person reads it: "256 MiB", "8 KiB", "1500 bytes".
// Bounds are whole powers of two and print exactly.
func Bytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + " GiB"
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.FormatInt(n>>10, 10) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// ReadFile reads the file at path whole if it holds at most bound bytes;
// what names the kind of file in the error (e.g. "a summary.json"). A
// larger file is an *Error, from its size on disk before anything is read,
// or once bound+1 bytes were read.
func ReadFile(path string, bound int64, what string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path, bound, what)
}

// Read is ReadFile for a file already open (an *os.File, or a file of an
// fs.FS); name names it in the error.
func Read(f fs.File, name string, bound int64, what string) ([]byte, error) {
	size := int64(-1)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
		if size > bound {
			return nil, &Error{File: name, What: what, Size: size, Bound: bound}
		}
	}
	// One allocation when the size on disk is right (as os.ReadFile);
	// otherwise chunks, joined at the end, so that a device read up to the
	// bound holds the bound once, not a slice grown by copying.
	var chunks [][]byte
	var total int64
	r := io.LimitReader(f, bound+1)
	next := max(size, 0) + 1
	for total <= bound {
		chunk := make([]byte, min(next, bound+1-total))
		n, err := io.ReadFull(r, chunk)
		chunks = append(chunks, chunk[:n])
		total += int64(n)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, err
		}
		next = min(max(2*next, 64<<10), 16<<20)
	}
	if total > bound {
		held := int64(-1)
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > bound {
			held = fi.Size() // it grew while it was read
		}
		return nil, &Error{File: name, What: what, Size: held, Bound: bound}
	}
	if len(chunks) == 1 {
		return chunks[0], nil
	}
	return bytes.Join(chunks, nil), nil
}
