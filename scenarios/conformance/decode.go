package conformance

import (
	"fmt"
	"github.com/stormcheck/stormcheck/scenarios/internal/yamlx"
	"math"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// decoder walks a rule file's yaml.Node tree, collecting every error.
type decoder struct {
	file string
	errs ErrorList
}

// pair is one key and its value (aliases resolved) in a mapping.
type pair struct {
	key, val *yaml.Node
}

// errorf records an error located at n.
func (d *decoder) errorf(n *yaml.Node, field, format string, args ...any) {
	d.errs = append(d.errs, yamlx.At(d.file, n, field, fmt.Sprintf(format, args...)))
}

// mapping checks that n is a mapping and returns its fields by name,
// reporting duplicate keys and keys that are not plain names (merge keys
// included: rule files spell every field out).
func (d *decoder) mapping(n *yaml.Node, path, what string) (map[string]pair, bool) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "must be a mapping of %s, got %s", what, describe(n))
		return nil, false
	}
	out := map[string]pair{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" {
			d.errorf(k, path, "keys must be plain field names, got %s", describe(k))
			continue
		}
		if first, dup := out[k.Value]; dup {
			d.errorf(k, join(path, k.Value), "duplicate key %q (first at line %d); a field may appear once", k.Value, first.key.Line)
			continue
		}
		out[k.Value] = pair{k, v}
	}
	return out, true
}

// allow reports every field of fs not in allowed, naming the closest
// allowed field and listing them all.
func (d *decoder) allow(fs map[string]pair, path string, allowed []string) {
	for _, name := range sortedByPosition(fs) {
		if !slices.Contains(allowed, name) {
			d.errorf(fs[name].key, join(path, name), "unknown field %q%s; allowed fields: %s",
				name, didYouMean(name, allowed), strings.Join(allowed, ", "))
		}
	}
}

// require reports each of names missing from fs, at n.
func (d *decoder) require(fs map[string]pair, n *yaml.Node, path string, names ...string) {
	for _, name := range names {
		if _, ok := fs[name]; !ok {
			d.errorf(n, join(path, name), "missing; it is required")
		}
	}
}

// sortedByPosition returns the names of fs in file order.
func sortedByPosition(fs map[string]pair) []string {
	return yamlx.SortedByPosition(fs, func(p pair) *yaml.Node { return p.key })
}

// str reads a string. A number or boolean is refused with a hint to quote
// it.
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

// strList reads a list of strings; what names its items for the error.
func (d *decoder) strList(n *yaml.Node, path, what string) ([]string, bool) {
	if n.Kind != yaml.SequenceNode {
		d.errorf(n, path, "must be a list of %s, got %s", what, describe(n))
		return nil, false
	}
	out := []string{}
	ok := true
	for i, item := range n.Content {
		s, good := d.str(resolve(item), index(path, i))
		ok = ok && good
		out = append(out, s)
	}
	return out, ok
}

// integer reads a YAML integer that fits in an int.
func integer(n *yaml.Node) (int, bool) {
	var v int64
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&v) != nil ||
		v < math.MinInt32 || v > math.MaxInt32 {
		return 0, false
	}
	return int(v), true
}
