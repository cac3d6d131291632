package yamlx

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// yamlLine matches the position the YAML parser puts in its syntax errors.
var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// parserProblems are the parser's messages (as opposed to the scanner's).
// The parser reports its line 0-based (the scanner 1-based) and leaves the
// line out when it is 0, so these need one added.
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

// openedHere are the problems whose reported line is where the unfinished
// construct began (the [ or { not closed, the quote not ended, the key
// with no colon): that line is the one to look at, whatever came after.
var openedHere = map[string]string{
	"did not find expected ',' or ']'": " (the list opened with [ here is not closed where expected)",
	"did not find expected ',' or '}'": " (the mapping opened with { here is not closed where expected)",
	"found unexpected end of stream":   " (a quoted string or a list or mapping started here is never closed)",
	"could not find expected ':'":      " (a key starts here with no colon after it on its line)",
}

// openers are the characters that open the constructs of openedHere.
var openers = map[string]string{
	"did not find expected ',' or ']'": "[",
	"did not find expected ',' or '}'": "{",
	"found unexpected end of stream":   "'\"[{",
}

// unknownAnchor matches the message for an alias with no anchor.
var unknownAnchor = regexp.MustCompile(`^yaml: unknown anchor '(.*)' referenced$`)

// maxLookBack is how many lines before the furthest one the parser read
// locate considers; the scanner's look-ahead is shorter than that.
const maxLookBack = 16

// syntaxError turns a YAML syntax error into an Error at its line. The
// parser gives no column (Col stays 0), and its line is often that of the
// enclosing construct (the list, the mapping) rather than of the problem;
// pos, how far the parser read before failing, bounds the problem from
// below and above. extra counts the additional parses it needed (at most
// 1+log2(maxLookBack+1), whatever the length of data).
func syntaxError(file string, data []byte, err error, pos int) (e *Error, extra int) {
	msg := err.Error()
	line := 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	} else if m := unknownAnchor.FindStringSubmatch(msg); m != nil {
		l := lineOf(data, "*"+m[1])
		return &Error{File: file, Line: l, Col: bytes.Index(lineText(data, l), []byte("*"+m[1])) + 1, Msg: "YAML: alias *" + m[1] + " names no anchor (&" + m[1] + ") defined before it"}, 0
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	if line == 0 || slices.Contains(parserProblems, msg) {
		line++
	}
	hint, opened := openedHere[msg]
	if o := openers[msg]; o != "" && line > 1 && !bytes.ContainsAny(lineText(data, line), o) && bytes.ContainsAny(lineText(data, 1), o) {
		// The parser reports a construct opened on the first line (its
		// line 0) as if it had no start, at the problem instead.
		line = 1
	}
	if !opened {
		line, extra = locate(data, msg, line, lineAt(data, pos-1))
	}
	// A problem found at the end of the text is on its last line that
	// holds anything, not on the empty line after the last newline.
	if last := lineAt(data, len(bytes.TrimRight(data, " \t\r\n"))-1); line > last {
		line = last
	}
	text := "YAML syntax: " + msg + hint
	if lineHasTab(data, line) {
		text += " (this line holds a tab; YAML indents with spaces only)"
	}
	return &Error{File: file, Line: line, Col: columnOf(lineText(data, line), msg), Msg: text}, extra
}

// columnOf points at the problem msg on its line (the parser gives no
// column): a tab, a colon where no mapping may start, a character that
// cannot start a token, the bracket or quote that is never closed; else
// the line's first character, which is where the indentation or the
// unexpected entry is. 1-based; 1 for an empty line.
func columnOf(line []byte, msg string) int {
	first := len(line) - len(bytes.TrimLeft(line, " "))
	at := func(i int) int {
		if i < 0 {
			return first + 1
		}
		return i + 1
	}
	switch {
	case strings.Contains(msg, "tab") || first < len(line) && line[first] == '\t':
		return at(bytes.IndexByte(line, '\t'))
	case msg == "mapping values are not allowed in this context":
		// The key's own colon, then the next one that ends a token.
		if k := bytes.Index(line, []byte(": ")); k >= 0 {
			rest := line[k+2:]
			for i := 0; i < len(rest); i++ {
				if rest[i] == ':' && (i+1 == len(rest) || rest[i+1] == ' ') {
					return k + 2 + i + 1
				}
			}
		}
		return at(bytes.IndexByte(line, ':'))
	case strings.HasPrefix(msg, "found character that cannot start any token"):
		return at(bytes.IndexAny(line[first:], "@`%")) + first
	}
	if o := openers[msg]; o != "" {
		return at(bytes.LastIndexAny(line, o))
	}
	return first + 1
}

// locate returns the first line n in [from, read] such that the file cut
// after line n fails to parse with msg, by bisection over at most the
// maxLookBack lines before read, the furthest line the parser read: the
// problem is there, not before the parser's own line from (which is where
// the enclosing construct starts). It returns the line and how many
// parses it took.
func locate(data []byte, msg string, from, read int) (line, passes int) {
	lo := max(from, read-maxLookBack) - 1 // the file cut after lo is taken to parse
	hi := read                            // ... and cut after hi to fail (it failed reading no further)
	if hi <= lo {
		return max(from, 1), 0
	}
	fails := func(n int) bool {
		passes++
		return failsWith(data[:lineEnd(data, n)], msg)
	}
	for hi-lo > 1 {
		if mid := (lo + hi) / 2; fails(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, passes
}

// failsWith reports whether the first two documents of data fail to parse
// with the YAML problem msg (without its "line N:" part).
func failsWith(data []byte, msg string) bool {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for range 2 {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			return false
		}
		if err != nil {
			got := err.Error()
			if m := yamlLine.FindStringSubmatch(got); m != nil {
				return got[len(m[0]):] == msg
			}
			return strings.TrimPrefix(got, "yaml: ") == msg
		}
	}
	return false
}

// lineEnd returns the offset just after 1-based line n of data (its
// newline included), or len(data).
func lineEnd(data []byte, n int) int {
	end := 0
	for range n {
		j := bytes.IndexByte(data[end:], '\n')
		if j < 0 {
			return len(data)
		}
		end += j + 1
	}
	return end
}

// lineOf returns the 1-based line of the first occurrence of s, or 1.
func lineOf(data []byte, s string) int {
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		return 1
	}
	return lineAt(data, i)
}

// lineHasTab reports whether 1-based line n of data holds a tab.
func lineHasTab(data []byte, n int) bool {
	return bytes.IndexByte(lineText(data, n), '\t') >= 0
}

// lineText returns 1-based line n of data without its newline; nil if
// there is no such line.
func lineText(data []byte, n int) []byte {
	if n < 1 {
		return nil
	}
	start := lineEnd(data, n-1)
	if start >= len(data) {
		return nil
	}
	line := data[start:]
	if j := bytes.IndexByte(line, '\n'); j >= 0 {
		line = line[:j]
	}
	return line
}
