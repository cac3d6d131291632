package scenarios

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"go.yaml.in/yaml/v3"
)

// durationUnits is how messages explain duration syntax.
const durationUnits = "such as 30s, 2m or 500ms (units ns, us, ms, s, m, h)"

// str reads a string. A number or boolean is refused with a hint to quote
// it, so that "3.10" never silently becomes 3.1.
func (d *decoder) str(n *yaml.Node, path string) (string, bool) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		return n.Value, true
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" {
		d.errorf(n, path, "must be a string, got %s; quote it if you mean text: \"%s\"", describe(n), n.Value)
		return "", false
	}
	d.errorf(n, path, "must be a string, got %s", describe(n))
	return "", false
}

// whole reads a whole number in [min, max].
func (d *decoder) whole(n *yaml.Node, path string, min, max int64) (int64, bool) {
	v, ok := wholeValue(n)
	if !ok || v < min || v > max {
		d.errorf(n, path, "must be %s, got %s", wholeRange(min, max), describe(n))
		return 0, false
	}
	return v, true
}

// wholeValue reads a YAML integer, or a float with no fractional part
// (1e3), that fits in an int64.
func wholeValue(n *yaml.Node) (int64, bool) {
	if n.Kind != yaml.ScalarNode {
		return 0, false
	}
	switch n.ShortTag() {
	case "!!int":
		var v int64
		if err := n.Decode(&v); err != nil {
			return 0, false // beyond int64
		}
		return v, true
	case "!!float":
		var f float64
		if err := n.Decode(&f); err != nil || f != math.Trunc(f) || math.IsInf(f, 0) ||
			f < math.MinInt64 || f >= math.MaxInt64 {
			return 0, false
		}
		return int64(f), true
	}
	return 0, false
}

// wholeRange describes the whole numbers from min to max.
func wholeRange(min, max int64) string {
	switch {
	case min == math.MinInt64 && max == math.MaxInt64:
		return "a whole number from -9223372036854775808 to 9223372036854775807"
	case max == math.MaxInt64:
		return fmt.Sprintf("a whole number ≥ %d (at most 9223372036854775807)", min)
	}
	return fmt.Sprintf("a whole number ≥ %d and ≤ %d", min, max)
}

// number reads a finite number ≥ min (> min when exclusive).
func (d *decoder) number(n *yaml.Node, path string, min float64, exclusive bool) (float64, bool) {
	want := fmt.Sprintf("a number ≥ %g", min)
	if exclusive {
		want = fmt.Sprintf("a number > %g", min)
	}
	var f float64
	tag := n.ShortTag()
	if n.Kind != yaml.ScalarNode || (tag != "!!int" && tag != "!!float") || n.Decode(&f) != nil {
		d.errorf(n, path, "must be %s, got %s", want, describe(n))
		return 0, false
	}
	if math.IsNaN(f) || math.IsInf(f, 0) || f < min || (exclusive && f == min) {
		d.errorf(n, path, "must be %s, got %s", want, describe(n))
		return 0, false
	}
	return f, true
}

// duration reads a Go duration string ≥ min (> min when exclusive). A bare
// number is refused: durations need a unit.
func (d *decoder) duration(n *yaml.Node, path string, min time.Duration, exclusive bool) (time.Duration, bool) {
	op := "≥"
	if exclusive {
		op = ">"
	}
	v, msg := durationValue(n)
	if msg != "" {
		d.errorf(n, path, "%s", msg)
		return 0, false
	}
	if v < min || (exclusive && v == min) {
		d.errorf(n, path, "must be a duration %s %v, %s, got %s", op, min, durationUnits, n.Value)
		return 0, false
	}
	return v, true
}

// durationValue parses a duration scalar; msg is the error, or "".
func durationValue(n *yaml.Node) (v time.Duration, msg string) {
	tag := n.ShortTag()
	if n.Kind == yaml.ScalarNode && (tag == "!!int" || tag == "!!float") {
		return 0, "durations need a unit, e.g. 30s, got " + n.Value
	}
	if n.Kind != yaml.ScalarNode || tag != "!!str" {
		return 0, "must be a duration " + durationUnits + ", got " + describe(n)
	}
	if _, err := strconv.ParseFloat(n.Value, 64); err == nil {
		return 0, "durations need a unit, e.g. 30s, got " + strconv.Quote(n.Value)
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		return 0, "must be a duration " + durationUnits + ", got " + describe(n)
	}
	return v, ""
}

// strItem is one string of a list, with its node and field path.
type strItem struct {
	s    string
	n    *yaml.Node
	path string
}

// strList reads a list of strings; what names its items for the error.
// Items that are not strings are reported and left out.
func (d *decoder) strList(n *yaml.Node, path, what string) ([]strItem, bool) {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "must be a list of %s, got %s", what, describe(n))
		return nil, false
	}
	var items []strItem
	for i, item := range n.Content {
		item = resolve(item)
		if s, ok := d.str(item, index(path, i)); ok {
			items = append(items, strItem{s, item, index(path, i)})
		}
	}
	return items, true
}
