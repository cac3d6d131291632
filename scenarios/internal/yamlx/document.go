package yamlx

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/stormcheck/stormcheck/internal/boundedread"
)

// MaxFileBytes bounds a scenario or rule file. The largest file shipped is a
// 117 KiB rule file, scenarios are a few KiB; a file many times larger is
// not written by hand, and refusing it before parsing bounds the loaders'
// time and memory.
const MaxFileBytes = 1 << 20

// ReadFile reads a YAML file of at most MaxFileBytes. A larger file is
// refused with an *Error, before it is read whole; a file that cannot be
// read gives the error from the operating system.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		// It said "read DIR: is a directory".
		return nil, fmt.Errorf("%s: a directory, not a YAML file: name the file (e.g. %s)", path, filepath.Join(path, "*.yaml"))
	}
	return readBounded(f, path)
}

// ReadFS is ReadFile for the file name of fsys; label names it in errors.
func ReadFS(fsys fs.FS, name, label string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readBounded(f, label)
}

func readBounded(f fs.File, label string) ([]byte, error) {
	data, err := boundedread.Read(f, label, MaxFileBytes, fileKind)
	if big := boundedread.As(err); big != nil {
		return nil, &Error{File: label, Msg: big.Msg(), Err: big}
	}
	return data, err
}

// fileKind names the files MaxFileBytes bounds, in the error.
const fileKind = "a scenario or rule file"

func tooLarge(file string, size int64) *Error {
	big := &boundedread.Error{File: file, What: fileKind, Size: size, Bound: MaxFileBytes}
	return &Error{File: file, Msg: big.Msg(), Err: big}
}

// ParseDocument parses data as exactly one YAML document and returns the
// document's content, or nil when data holds no document (or only
// comments). It refuses, each with one located *Error: more than
// MaxFileBytes, text that is not UTF-8, a YAML syntax error (at the line
// where the file stops making sense), a second document, and aliases or
// merge keys (<<) that would expand the document by more than MaxAliasNodes
// nodes (see CheckAliases). The returned tree holds aliases unexpanded.
func ParseDocument(file string, data []byte) (*yaml.Node, *Error) {
	root, err, _ := parseDocument(file, data)
	return root, err
}

// parseDocument is ParseDocument; passes counts how often data was parsed
// (once, and a few more times to place a syntax error: see locate).
func parseDocument(file string, data []byte) (root *yaml.Node, e *Error, passes int) {
	if len(data) > MaxFileBytes {
		return nil, tooLarge(file, int64(len(data))), 0
	}
	if !utf8.Valid(data) {
		line, col := invalidUTF8At(data)
		return nil, &Error{File: file, Line: line, Col: col, Msg: "not UTF-8 text; the file must be UTF-8 YAML"}, 0
	}
	in := &trickle{data: data}
	dec := yaml.NewDecoder(in)
	var doc yaml.Node
	passes = 1
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		e, n := syntaxError(file, data, err, in.pos)
		return nil, e, passes + n
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case err == nil:
		return nil, &Error{File: file, Line: next.Line, Col: next.Column,
			Msg: "a second YAML document starts here; the file must hold exactly one (remove the ---)"}, passes
	case !errors.Is(err, io.EOF):
		e, n := syntaxError(file, data, err, in.pos)
		return nil, e, passes + n
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil, passes
	}
	if _, e := CheckAliases(file, doc.Content[0]); e != nil {
		return nil, e, passes
	}
	return doc.Content[0], nil, passes
}

// trickle hands the YAML parser a few bytes per Read, so that when the
// parser fails, pos tells how far into the text it had to read: the problem
// is on that line or shortly before (the scanner looks ahead at most to the
// first token of the next line, and trickle gives it at most trickleChunk
// bytes more than it asked for).
const trickleChunk = 16

type trickle struct {
	data []byte
	pos  int
}

func (t *trickle) Read(p []byte) (int, error) {
	if t.pos >= len(t.data) {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	n := copy(p[:min(len(p), trickleChunk)], t.data[t.pos:])
	t.pos += n
	return n, nil
}

// invalidUTF8At returns the 1-based line and column (in characters) of the
// first byte that is not UTF-8.
func invalidUTF8At(data []byte) (line, col int) {
	line, col = 1, 1
	for len(data) > 0 {
		r, size := utf8.DecodeRune(data)
		if r == utf8.RuneError && size <= 1 {
			return line, col
		}
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
		data = data[size:]
	}
	return line, col
}

// lineAt returns the 1-based line of byte offset i of data.
func lineAt(data []byte, i int) int {
	i = max(0, min(i, len(data)))
	return 1 + bytes.Count(data[:i], []byte("\n"))
}
