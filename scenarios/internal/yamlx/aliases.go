package yamlx

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// MaxAliasNodes bounds how many nodes aliases (*name) may add to a
// document when expanded; a merge key (<<: *name) is an alias too. The
// YAML library builds the tree with aliases as pointers, so a few hundred
// bytes of nested aliases can stand for billions of nodes, and the loaders,
// which follow aliases and merge keys, would visit every one. No scenario
// or rule file needs more than a few hundred nodes from aliases;
// 100,000 is far beyond any real use and still visited in milliseconds.
const MaxAliasNodes = 100_000

// CheckAliases refuses a document whose aliases would, expanded, add more
// than MaxAliasNodes nodes, with an error at the alias that crosses the
// bound; and an alias inside the very node it names (&a [*a]), which would
// expand forever. It visits each node of the tree once, however often
// aliases name it, and returns how many it visited.
func CheckAliases(file string, root *yaml.Node) (visited int, err *Error) {
	c := &aliasCheck{file: file, size: map[*yaml.Node]int{}, open: map[*yaml.Node]bool{}}
	c.walk(root, false)
	return c.visited, c.err
}

type aliasCheck struct {
	file    string
	size    map[*yaml.Node]int  // expanded size of each node walked, at most MaxAliasNodes+1
	open    map[*yaml.Node]bool // nodes being walked: an alias to one is a cycle
	added   int                 // nodes the aliases seen so far add
	visited int
	err     *Error
}

// walk returns the expanded size of n; merge is true under a merge key.
func (c *aliasCheck) walk(n *yaml.Node, merge bool) int {
	if c.err != nil || n == nil {
		return 0
	}
	c.visited++
	if n.Kind == yaml.AliasNode {
		t := n.Alias
		if t == nil {
			return 1
		}
		if c.open[t] {
			msg := fmt.Sprintf("alias *%s is inside the value &%s it names; a value cannot contain itself", n.Value, n.Value)
			if merge {
				msg = fmt.Sprintf("a merge (<<) cannot take the mapping it is part of (*%s names the mapping this merge is in)", n.Value)
			}
			c.err = At(c.file, n, "", msg)
			return 0
		}
		s, done := c.size[t]
		if !done { // an anchor is always defined before its aliases; be safe
			s = c.walk(t, merge)
		}
		c.added += s
		if c.added > MaxAliasNodes {
			c.err = At(c.file, n, "", fmt.Sprintf("aliases expand this file beyond %d nodes (*%s alone stands for %s); "+
				"write the values out, or nest fewer aliases and merge keys (<<)", MaxAliasNodes, n.Value, nodes(s)))
		}
		return s
	}
	c.open[n] = true
	total := 1
	for i, ch := range n.Content {
		m := merge && n.Kind == yaml.SequenceNode
		if n.Kind == yaml.MappingNode && i%2 == 1 {
			m = n.Content[i-1].Kind == yaml.ScalarNode && n.Content[i-1].ShortTag() == "!!merge"
		}
		total = min(total+c.walk(ch, m), MaxAliasNodes+1)
	}
	delete(c.open, n)
	c.size[n] = total
	return total
}

func nodes(s int) string {
	if s > MaxAliasNodes {
		return fmt.Sprintf("more than %d nodes", MaxAliasNodes)
	}
	return fmt.Sprintf("%d nodes", s)
}
