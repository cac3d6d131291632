package scenarios

import (
	"bytes"
	"errors"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Load reads the scenario file at path and returns it validated, with every
// default applied (see Parse). A file that cannot be read gives the error
// from os.ReadFile; an invalid one gives an ErrorList.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse loads a scenario from data strictly: unknown fields, duplicate
// keys, wrong types and out-of-range values are errors, as are fields that
// do not apply (a rate on a closed executor, an account on an azurite
// target) and secrets written into the file. file names the source in
// errors and in Scenario.File.
//
// On failure Parse returns a nil Scenario and an ErrorList holding every
// problem it found, in file order, each located by line, column and field
// path and saying what is allowed. On success every default is applied.
func Parse(file string, data []byte) (*Scenario, error) {
	root, err := parseYAML(file, data)
	if err != nil {
		return nil, ErrorList{err}
	}
	d := &decoder{file: file, at: map[string]*yaml.Node{}}
	s := &Scenario{File: file, Source: append([]byte(nil), data...)}
	d.scenario(root, s)
	if len(d.errs) > 0 {
		d.errs.SortByPosition()
		return nil, d.errs
	}
	applyDefaults(s, d.has("seed"))
	return s, nil
}

// parseYAML parses data as exactly one YAML document holding a mapping and
// returns that mapping.
func parseYAML(file string, data []byte) (*yaml.Node, *Error) {
	if !utf8.Valid(data) {
		line, col := invalidUTF8At(data)
		return nil, &Error{File: file, Line: line, Col: col, Msg: "not UTF-8 text; a scenario file is UTF-8 YAML"}
	}
	if err := firstSyntaxError(data); err != nil {
		return nil, syntaxError(file, data, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	_ = dec.Decode(&doc) // checked above; io.EOF leaves doc empty
	empty := &Error{File: file, Line: 1, Col: 1, Msg: "empty scenario: a scenario file is a YAML mapping with at least name and workloads"}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, empty
	}
	root := resolve(doc.Content[0])
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, empty
	}
	if root.Kind != yaml.MappingNode {
		return nil, &Error{File: file, Line: root.Line, Col: root.Column,
			Msg: "a scenario file is a YAML mapping of fields (" + strings.Join(topFields, ", ") + "), got " + describe(root)}
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil {
		return nil, &Error{File: file, Line: next.Line, Col: next.Column,
			Msg: "a second YAML document starts here; a scenario file holds exactly one (remove the ---)"}
	}
	return root, nil
}

// firstSyntaxError returns the syntax error of the first two documents of
// data, if any (a second document is an error of its own, found later).
func firstSyntaxError(data []byte) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for range 2 {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
	return nil
}

// yamlLine matches the position yaml.v3 puts in its syntax errors.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// parserProblems are the yaml.v3 messages raised by its parser rather than
// its scanner. yaml.v3 reports the parser's line 0-based (the scanner's
// 1-based) and leaves the line out when it is 0, so these need one added.
var parserProblems = []string{
	"did not find expected key",
	"did not find expected '-' indicator",
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"did not find expected node content",
	"did not find expected <document start>",
	"did not find expected <stream-start>",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found duplicate %TAG directive",
	"found undefined tag handle",
}

// unknownAnchor matches yaml.v3's message for an alias with no anchor.
var unknownAnchor = regexp.MustCompile(`^yaml: unknown anchor '(.*)' referenced$`)

// syntaxError turns a yaml.v3 syntax error into an Error with its line.
// yaml.v3 gives no column, so Col stays 0; and the line it gives is often
// that of the enclosing construct (the list, the quoted string), so
// syntaxError looks for the line at which the file, cut there, starts to
// fail with the same message.
func syntaxError(file string, data []byte, err error) *Error {
	msg := err.Error()
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	} else if m := unknownAnchor.FindStringSubmatch(msg); m != nil {
		return &Error{File: file, Line: lineOf(data, "*"+m[1]), Msg: "YAML: alias *" + m[1] + " names no anchor (&" + m[1] + ") defined before it"}
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	if line == 0 || contains(parserProblems, msg) {
		line++
	}
	// yaml.v3's line is where the enclosing construct starts, so the
	// problem is never before it.
	if l := failingLine(data, msg); l >= line {
		line = l
	}
	msg = "YAML syntax: " + msg
	if lineHasTab(data, line) {
		msg += " (this line holds a tab; YAML indents with spaces only)"
	}
	return &Error{File: file, Line: line, Msg: msg}
}

// failingLine returns a line n such that the first n lines of data fail
// to parse with the YAML problem msg (without its "line N:" part) and the
// first n-1 lines do not, found by bisection; 0 if the whole file does not
// fail that way.
func failingLine(data []byte, msg string) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	fails := func(n int) bool {
		err := firstSyntaxError(bytes.Join(lines[:n], nil))
		if err == nil {
			return false
		}
		got := err.Error()
		if m := yamlLine.FindStringSubmatch(got); m != nil {
			return got[len(m[0]):] == msg
		}
		return strings.TrimPrefix(got, "yaml: ") == msg
	}
	lo, hi := 0, len(lines) // fails(lo) is false: no lines parse fine
	if !fails(hi) {
		return 0
	}
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; fails(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// lineOf returns the 1-based line of the first occurrence of s, or 1.
func lineOf(data []byte, s string) int {
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		return 1
	}
	return 1 + bytes.Count(data[:i], []byte("\n"))
}

// lineHasTab reports whether 1-based line n of data holds a tab.
func lineHasTab(data []byte, n int) bool {
	lines := bytes.Split(data, []byte("\n"))
	return n >= 1 && n <= len(lines) && bytes.IndexByte(lines[n-1], '\t') >= 0
}

// invalidUTF8At returns the 1-based line and column (in characters) of the first byte
// that is not UTF-8.
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
