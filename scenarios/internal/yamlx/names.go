package yamlx

import (
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Join makes the path of a field inside the mapping at path.
func Join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// Index makes the path of item i of the list at path.
func Index(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

// Resolve follows aliases to the node they name.
func Resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// DidYouMean suggests the allowed name closest to a misspelt one (at most
// two edits away), as ` (did you mean "actors"?)`, or "".
func DidYouMean(name string, allowed []string) string {
	best, bestDist := "", 3
	for _, a := range allowed {
		if dist := editDistance(name, a); dist < bestDist {
			best, bestDist = a, dist
		}
	}
	if best == "" {
		return ""
	}
	return ` (did you mean "` + best + `"?)`
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Describe says what a node holds, for the "got ..." part of a message: "a
// mapping", "a list", "nothing (the value is empty)", "the boolean true", a
// number as written, or a quoted (and shortened) string.
func Describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
	default:
		return "an unexpected YAML node"
	}
	v := n.Value
	switch n.ShortTag() {
	case "!!null":
		return "nothing (the value is empty)"
	case "!!bool":
		return "the boolean " + v
	case "!!int", "!!float":
		return v
	case "!!str":
		if _, err := strconv.ParseFloat(v, 64); err != nil && isRangeErr(err) {
			return v + ", which is out of range"
		}
		if len(v) > 40 {
			v = v[:37] + "..."
		}
		return strconv.Quote(v)
	}
	return "a value tagged " + n.ShortTag() + " (" + v + ")"
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// SortedByPosition returns the keys of a mapping's fields in file order
// (line, then column, then name); key gives a field's key node.
func SortedByPosition[F any](fs map[string]F, key func(F) *yaml.Node) []string {
	names := make([]string, 0, len(fs))
	for name := range fs {
		names = append(names, name)
	}
	sort.Slice(names, func(i, j int) bool {
		a, b := key(fs[names[i]]), key(fs[names[j]])
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return names[i] < names[j]
	})
	return names
}

// Nearest returns up to n names of allowed closest to name, closest first:
// those containing it or contained in it (a part of a dotted name counts,
// so "etag-counter" finds "blob.etag-counter"), then those few edits away.
func Nearest(name string, allowed []string, n int) []string {
	type cand struct {
		name string
		dist int
	}
	var cs []cand
	limit := max(2, len(name)/3)
	for _, a := range allowed {
		d := editDistance(name, a)
		if i := strings.LastIndexByte(a, '.'); i >= 0 {
			d = min(d, editDistance(name, a[i+1:]))
		}
		if name != "" && (strings.Contains(a, name) || strings.Contains(name, a)) {
			d = 0
		}
		if d <= limit {
			cs = append(cs, cand{a, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].dist < cs[j].dist })
	var out []string
	for _, c := range cs {
		if len(out) == n {
			break
		}
		out = append(out, c.name)
	}
	return out
}
