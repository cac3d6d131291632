// Package yamlx holds what the strict YAML loaders of stormcheck share:
// located errors and the small helpers that name fields and suggest
// spellings. Only packages under scenarios/ use it.
package yamlx

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Error is one problem in a scenario or rule file, located to its line
// and column.
//
// Error() prints FILE:LINE:COL: FIELD: MSG, for example
//
//	scenarios/examples/x.yaml:12:14: workloads[0].actors: must be a whole number ≥ 1 and ≤ 10000, got -3
//
// Parts that are unknown are left out: Col is 0 for a YAML syntax error
// (the YAML parser reports lines only), Field is "" for a problem with the
// document as a whole, File is "" when the text came from bytes.
type Error struct {
	// File is the path of the file.
	File string
	// Line and Col are 1-based; 0 means unknown.
	Line, Col int
	// Field is the path of the field at fault, e.g. rules[0].steps[2].op;
	// "" for the file as a whole.
	Field string
	// Msg says what is wrong and what is allowed.
	Msg string
	// Err is the error behind Msg, when there is one to match with
	// errors.As (a file past its size bound: *boundedread.Error).
	Err error
}

// Unwrap returns Err.
func (e *Error) Unwrap() error { return e.Err }

// Error formats the error as FILE:LINE:COL: FIELD: MSG.
func (e *Error) Error() string {
	var pos []string
	if e.File != "" {
		pos = append(pos, e.File)
	}
	if e.Line > 0 {
		pos = append(pos, strconv.Itoa(e.Line))
		if e.Col > 0 {
			pos = append(pos, strconv.Itoa(e.Col))
		}
	}
	var b strings.Builder
	if len(pos) > 0 {
		b.WriteString(strings.Join(pos, ":"))
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// ErrorList is every problem found, in file order (by file, then
// position). The loaders return it as their error.
type ErrorList []*Error

// MaxPrinted is how many errors an ErrorList prints; a file with more
// problems gets a last line saying how many more there are (the list
// itself holds them all).
const MaxPrinted = 20

// Error prints one error per line, at most MaxPrinted, then how many more
// there are.
func (l ErrorList) Error() string {
	lines := make([]string, 0, min(len(l), MaxPrinted)+1)
	for _, e := range l[:min(len(l), MaxPrinted)] {
		lines = append(lines, e.Error())
	}
	if more := len(l) - MaxPrinted; more > 0 {
		lines = append(lines, fmt.Sprintf("... and %d more problems not shown (%d in all); fix these and load the file again", more, len(l)))
	}
	return strings.Join(lines, "\n")
}

// Unwrap exposes the errors to errors.Is and errors.As.
func (l ErrorList) Unwrap() []error {
	errs := make([]error, len(l))
	for i, e := range l {
		errs[i] = e
	}
	return errs
}

// SortByPosition puts the errors in file order, keeping the order in which
// they were found for errors at the same place.
func (l ErrorList) SortByPosition() {
	sort.SliceStable(l, func(i, j int) bool {
		if l[i].File != l[j].File {
			return l[i].File < l[j].File
		}
		if l[i].Line != l[j].Line {
			return l[i].Line < l[j].Line
		}
		return l[i].Col < l[j].Col
	})
}

// At makes the error about field located at node n, or at line 1, column 1
// of file when n is nil or carries no position.
func At(file string, n *yaml.Node, field, msg string) *Error {
	e := &Error{File: file, Line: 1, Col: 1, Field: field, Msg: msg}
	if n != nil && n.Line > 0 {
		e.Line, e.Col = n.Line, n.Column
	}
	return e
}
