package checks

import (
	"fmt"
	"strconv"
	"strings"
)

// CounterValue is what counter workloads store in a blob: the counter and
// the tag of the write attempt that stored it ("a3-17": actor 3, its 17th
// write attempt). The tag makes every written value unique, so a read maps
// to exactly one write. Padding after the tag is ignored.
type CounterValue struct {
	N   int64
	Tag string
}

// Format renders the value, padded with dots to at least pad bytes.
func (v CounterValue) Format(pad int) string {
	s := strconv.FormatInt(v.N, 10) + " " + v.Tag
	if len(s) < pad {
		s += " " + strings.Repeat(".", max(0, pad-len(s)-1))
	}
	return s
}

// ParseCounterValue reads a value written by Format.
func ParseCounterValue(s string) (CounterValue, error) {
	f := strings.Fields(s)
	if len(f) < 2 {
		return CounterValue{}, fmt.Errorf("counter value %q: want \"<n> <tag>\"", Trim(s))
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return CounterValue{}, fmt.Errorf("counter value %q: %v", Trim(s), err)
	}
	return CounterValue{N: n, Tag: f[1]}, nil
}

func Trim(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
