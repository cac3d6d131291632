package scenarios

import (
	"fmt"
	"github.com/stormcheck/stormcheck/scenarios/internal/yamlx"
	"strings"

	"go.yaml.in/yaml/v3"
)

// decoder walks a scenario's yaml.Node tree, filling a Scenario and
// collecting every error it meets.
type decoder struct {
	file string
	errs ErrorList
	// at holds the value node of every field present, by field path
	// (e.g. "seed", "workloads[0].rate"), for presence and positions.
	at map[string]*yaml.Node
	// origin names the command-line flag behind a node an override wrote
	// (see LoadWithOverrides): its errors name the flag, not a line.
	origin map[*yaml.Node]string
	// unbounded are the workloads (by path) with no duration, stages or
	// iterations of their own and no top-level duration.
	unbounded []string
}

// pair is one key and its value (aliases resolved) in a mapping.
type pair struct {
	key, val *yaml.Node
}

// errorf records an error located at n.
func (d *decoder) errorf(n *yaml.Node, field, format string, args ...any) {
	if flag, ok := d.origin[n]; ok {
		d.errs = append(d.errs, &Error{File: flag, Field: field, Msg: fmt.Sprintf(format, args...)})
		return
	}
	d.errs = append(d.errs, yamlx.At(d.file, n, field, fmt.Sprintf(format, args...)))
}

// has reports whether the field at path was written in the file.
func (d *decoder) has(path string) bool {
	_, ok := d.at[path]
	return ok
}

// mapping checks that n is a mapping and returns its fields by name,
// reporting duplicate keys and keys that are not plain names. Merge keys
// (<<: *anchor) are honoured: a field written in the mapping itself wins
// over a merged one. what describes the expected content for the error.
func (d *decoder) mapping(n *yaml.Node, path, what string) (map[string]pair, bool) {
	if n.Kind != yaml.MappingNode {
		d.errorf(n, path, "must be a mapping of %s, got %s", what, describe(n))
		return nil, false
	}
	return d.pairs(n, path), true
}

// pairs returns the fields of mapping n by name; see mapping.
func (d *decoder) pairs(n *yaml.Node, path string) map[string]pair {
	return d.mergePairs(n, path, map[*yaml.Node]bool{})
}

// mergePairs is pairs; open holds the mappings being expanded, so that a
// mapping merging itself (&a {<<: *a}) is an error, not endless recursion.
func (d *decoder) mergePairs(n *yaml.Node, path string, open map[*yaml.Node]bool) map[string]pair {
	open[n] = true
	defer delete(open, n)
	out := map[string]pair{}
	var merged []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			d.errorf(k, path, "keys must be plain field names, got %s", describe(k))
			continue
		}
		if k.ShortTag() == "!!merge" {
			merged = append(merged, v)
			continue
		}
		if first, dup := out[k.Value]; dup {
			d.errorf(k, join(path, k.Value), "duplicate key %q (first at line %d); a field may appear once", k.Value, first.key.Line)
			continue
		}
		out[k.Value] = pair{k, v}
	}
	for _, m := range merged {
		srcs := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			srcs = srcs[:0]
			for _, s := range m.Content {
				srcs = append(srcs, resolve(s))
			}
		}
		for _, s := range srcs {
			if s.Kind != yaml.MappingNode {
				d.errorf(s, path, "a merge (<<) takes a mapping or a list of mappings, got %s", describe(s))
				continue
			}
			if open[s] {
				d.errorf(m, path, "a merge (<<) cannot take the mapping it is part of")
				continue
			}
			for name, p := range d.mergePairs(s, path, open) {
				if _, ok := out[name]; !ok {
					out[name] = p
				}
			}
		}
	}
	return out
}

// allow reports every field of fs not in allowed. hint, if not nil, may
// return a specific message for a field name; otherwise the message names
// the closest allowed field and lists them all.
func (d *decoder) allow(fs map[string]pair, path string, allowed []string, hint func(name string) string) {
	for _, name := range sortedByPosition(fs) {
		if contains(allowed, name) {
			d.at[join(path, name)] = fs[name].val
			continue
		}
		if hint != nil {
			if msg := hint(name); msg != "" {
				d.errorf(fs[name].key, join(path, name), "%s", msg)
				continue
			}
		}
		d.errorf(fs[name].key, join(path, name), "unknown field %q%s; allowed fields: %s",
			name, didYouMean(name, allowed), strings.Join(allowed, ", "))
	}
}

// sortedByPosition returns the names of fs in file order.
func sortedByPosition(fs map[string]pair) []string {
	return yamlx.SortedByPosition(fs, func(p pair) *yaml.Node { return p.key })
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
