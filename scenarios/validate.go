package scenarios

import (
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The checks here span more than one field: bounds, unique names, and
// checks that must match the workloads' kinds.

// bound notes a workload with neither a time nor an iteration bound: it
// runs for the top-level duration, DefaultDuration when the file sets none
// (applyDefaults applies it, and the scenario's Notes say so).
func (d *decoder) bound(n *yaml.Node, path string) {
	if d.has(join(path, "duration")) || d.has(join(path, "stages")) ||
		d.has(join(path, "iterations")) || d.has("duration") {
		return
	}
	d.unbounded = append(d.unbounded, path)
}

// uniqueNames reports workloads that reuse a name.
func (d *decoder) uniqueNames(s *Scenario) {
	first := map[string]int{}
	for i, w := range s.Workloads {
		if w.Name == "" {
			continue
		}
		path := join(index("workloads", i), "name")
		if j, dup := first[w.Name]; dup {
			d.errorf(d.at[path], path, "duplicate workload name %q (first at line %d); names must be unique", w.Name, d.at[join(index("workloads", j), "name")].Line)
			continue
		}
		first[w.Name] = i
	}
}

// checks decodes the checks list: known, distinct, and each applying to
// the kind of at least one workload.
func (d *decoder) checks(n *yaml.Node, s *Scenario) {
	items, ok := d.strList(n, "checks", "check names")
	if !ok {
		return
	}
	known := checkKinds()
	kinds, allKnown := scenarioKinds(s)
	seen := map[string]*yaml.Node{}
	s.Checks = []string{}
	for _, it := range items {
		applies, isCheck := known[it.s]
		first, dup := seen[it.s]
		switch {
		case !isCheck:
			d.errorf(it.n, it.path, "unknown check %q%s; known checks: %s", it.s, didYouMean(it.s, checkNames()), describeChecks())
			continue
		case dup:
			d.errorf(it.n, it.path, "duplicate check %q (first at line %d); list each once", it.s, first.Line)
			continue
		case allKnown && !overlaps(applies, kinds):
			d.errorf(it.n, it.path, "check %q applies to kind %s, and no workload here has that kind (this scenario's kinds: %s)",
				it.s, strings.Join(applies, ", "), strings.Join(kinds, ", "))
		}
		seen[it.s] = it.n
		s.Checks = append(s.Checks, it.s)
	}
}

// scenarioKinds returns the workloads' kinds, sorted and distinct, and
// whether every workload has a valid kind (so that "applies to no
// workload" is a sound conclusion).
func scenarioKinds(s *Scenario) (kinds []string, allKnown bool) {
	allKnown = len(s.Workloads) > 0
	for _, w := range s.Workloads {
		if w.Kind == "" {
			allKnown = false
			continue
		}
		if !contains(kinds, w.Kind) {
			kinds = append(kinds, w.Kind)
		}
	}
	sort.Strings(kinds)
	return kinds, allKnown
}

func overlaps(a, b []string) bool {
	for _, x := range a {
		if contains(b, x) {
			return true
		}
	}
	return false
}
