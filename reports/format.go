package reports

// Numbers, percentages and durations as every rendering writes them, and
// the writer that keeps the first write error.

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// errWriter keeps the first write error so the report code stays linear.
type ErrWriter struct {
	W   io.Writer
	Err error
}

func (e *ErrWriter) Write(p []byte) (int, error) {
	if e.Err != nil {
		return 0, e.Err
	}
	n, err := e.W.Write(p)
	e.Err = err
	return n, err
}

func (e *ErrWriter) Printf(format string, a ...any) { fmt.Fprintf(e, format, a...) }

// ms formats milliseconds with about three significant digits.
func Ms(v float64) string {
	switch {
	case v < 1:
		return strconv.FormatFloat(v, 'f', 3, 64)
	case v < 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case v < 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
}

func Itoa(n int64) string { return strconv.FormatInt(n, 10) }

func Pct(f float64) string { return strconv.FormatFloat(100*f, 'f', 1, 64) + "%" }

// number formats a measured value compactly: 0.83, 12.5, 2000.
func Number(v float64) string {
	switch {
	case v == float64(int64(v)) && v < 1e15 && v > -1e15:
		return strconv.FormatInt(int64(v), 10)
	case v >= 100 || v <= -100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

func Percent(part, whole int64) string {
	if whole == 0 {
		return "-"
	}
	return strconv.FormatFloat(100*float64(part)/float64(whole), 'f', 1, 64) + "%"
}

// thousands writes n with comma separators: 20,000.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// shortSource is a target's source up to its first comma: "checklist".
func shortSource(s string) string {
	if i := strings.IndexByte(s, ','); i > 0 {
		return s[:i]
	}
	return s
}

// TextWidth is the width the text report is laid out for: every line fits
// in 80 columns except the ones DESIGN of the report leaves long on purpose
// (a violation's recorded operations and the files' paths, which are
// copied, not read).
const TextWidth = 80

func Width(s string) int { return utf8.RuneCountInString(s) }
