package checks

import (
	"strconv"
	"strings"
)

// MinDotRun is the shortest run of padding dots the history keeps as its
// length ("[1048569 dots]") rather than byte for byte.
const MinDotRun = 16

// dotRun is the shortest run DotRuns rewrites.
const dotRun = "................"

// DotRuns returns s with every run of at least MinDotRun dots written as
// "[N dots]": exact (ExpandedLen gives s's length back) and the form the
// history keeps padded values in.
func DotRuns(s string) string {
	if !strings.Contains(s, dotRun) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '.' {
			j := strings.IndexByte(s[i:], '.')
			if j < 0 {
				j = len(s) - i
			}
			b.WriteString(s[i : i+j])
			i += j
			continue
		}
		j := i
		for j < len(s) && s[j] == '.' {
			j++
		}
		if j-i >= MinDotRun {
			b.WriteString("[" + strconv.Itoa(j-i) + " dots]")
		} else {
			b.WriteString(s[i:j])
		}
		i = j
	}
	return b.String()
}

// ExpandedLen is the length of the value DotRuns(v) was made from: each
// "[N dots]" counts N bytes.
func ExpandedLen(s string) int64 {
	var n int64
	for {
		i := strings.Index(s, "[")
		if i < 0 {
			return n + int64(len(s))
		}
		n += int64(i)
		s = s[i:]
		end := strings.Index(s, " dots]")
		if end < 0 {
			return n + int64(len(s))
		}
		d, err := strconv.Atoi(s[1:end])
		if err != nil || d < MinDotRun {
			n++
			s = s[1:]
			continue
		}
		n += int64(d)
		s = s[end+len(" dots]"):]
	}
}
