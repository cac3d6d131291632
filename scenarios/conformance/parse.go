package conformance

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/stormcheck/stormcheck/scenarios/internal/yamlx"
)

// The fields of a rule file and of a rule.
var (
	topFields  = []string{"rules"}
	ruleFields = []string{"id", "title", "source", "tags", "steps"}
)

// Services are the tags a rule's first tag must be one of.
var Services = []string{"blob", "container", "table", "queue", "file"}

// SlowTag is the tag a rule with a wait longer than MaxQuickWait carries.
const SlowTag = "slow"

// MaxQuickWait is the longest wait a rule without SlowTag may have.
const MaxQuickWait = 5 * time.Second

var (
	idSyn  = regexp.MustCompile(`^[a-z0-9][a-z0-9.-]*$`)
	tagSyn = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
)

// Parse reads the rules of one rule file strictly; file names the source
// in errors and in Rule.File. On failure it returns nil and an ErrorList
// of every problem, in file order.
func Parse(file string, data []byte) ([]Rule, error) {
	root, perr := yamlx.ParseDocument(file, data) // bounded: size, aliases
	if perr != nil {
		return nil, ErrorList{perr}
	}
	d := &decoder{file: file}
	if root == nil {
		d.errorf(nil, "", "empty rule file: a rule file is a YAML mapping with a list of rules")
		return nil, d.errs
	}
	rules := d.rulesFile(resolve(root))
	if len(d.errs) > 0 {
		d.errs.SortByPosition()
		return nil, d.errs
	}
	return rules, nil
}

// rulesFile decodes the top-level mapping of a rule file.
func (d *decoder) rulesFile(root *yaml.Node) []Rule {
	fs, ok := d.mapping(root, "", "fields (rules)")
	if !ok {
		return nil
	}
	d.allow(fs, "", topFields)
	d.require(fs, root, "", "rules")
	p, ok := fs["rules"]
	if !ok {
		return nil
	}
	if p.val.Kind != yaml.SequenceNode || len(p.val.Content) == 0 {
		d.errorf(p.val, "rules", "must be a list of at least one rule, got %s", describe(p.val))
		return nil
	}
	var rules []Rule
	seen := map[string]int{}
	for i, n := range p.val.Content {
		r, ok := d.rule(resolve(n), index("rules", i))
		if !ok {
			continue
		}
		if line, dup := seen[r.ID]; dup {
			d.errorf(&yaml.Node{Line: r.Line, Column: r.Col}, index("rules", i)+".id",
				"duplicate rule id %q (first at line %d); ids are unique across all rule files", r.ID, line)
			continue
		}
		seen[r.ID] = r.Line
		rules = append(rules, r)
	}
	return rules
}

// rule decodes one rule; ok is false when it has errors.
func (d *decoder) rule(n *yaml.Node, path string) (Rule, bool) {
	before := len(d.errs)
	r := Rule{File: d.file, Line: n.Line, Col: n.Column}
	fs, ok := d.mapping(n, path, "rule fields ("+strings.Join(ruleFields, ", ")+")")
	if !ok {
		return r, false
	}
	d.allow(fs, path, append(slices.Clone(ruleFields), "covers"))
	d.require(fs, n, path, ruleFields...)
	if p, ok := fs["id"]; ok {
		r.Line, r.Col = p.val.Line, p.val.Column
		if s, ok := d.str(p.val, join(path, "id")); ok {
			if !idSyn.MatchString(s) {
				d.errorf(p.val, join(path, "id"), "must match [a-z0-9][a-z0-9.-]* (e.g. blob.lease.etag-unchanged), got %q", s)
			}
			r.ID = s
		}
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"title", &r.Title}} {
		if p, ok := fs[f.name]; ok {
			if s, ok := d.str(p.val, join(path, f.name)); ok && strings.TrimSpace(s) == "" {
				d.errorf(p.val, join(path, f.name), "must not be empty")
			} else {
				*f.dst = s
			}
		}
	}
	if p, ok := fs["source"]; ok {
		r.Evidence = d.source(p.val, join(path, "source"))
		r.Source = r.Evidence.String()
	}
	if p, ok := fs["tags"]; ok {
		r.Tags = d.tags(p.val, join(path, "tags"))
	}
	if p, ok := fs["steps"]; ok {
		r.Steps = d.steps(p.val, join(path, "steps"), fs, path)
	}
	if p, ok := fs["covers"]; ok {
		r.Covers = d.covers(p.val, join(path, "covers"), r.Steps)
	}
	return r, len(d.errs) == before
}

// tags decodes a rule's tags: the service first, no repeats.
func (d *decoder) tags(n *yaml.Node, path string) []string {
	tags, ok := d.strList(n, path, "tags")
	if !ok {
		return tags
	}
	if len(tags) == 0 {
		d.errorf(n, path, "must name at least the service (%s)", strings.Join(Services, ", "))
		return tags
	}
	for i, t := range tags {
		item := resolve(n.Content[i])
		switch {
		case !tagSyn.MatchString(t):
			d.errorf(item, index(path, i), "must match [a-z0-9][a-z0-9-]*, got %q", t)
		case i == 0 && !slices.Contains(Services, t):
			d.errorf(item, index(path, i), "the first tag is the service, one of %s; got %q", strings.Join(Services, ", "), t)
		case slices.Index(tags, t) < i:
			d.errorf(item, index(path, i), "tag %q is given twice", t)
		}
	}
	return tags
}

// steps decodes a rule's steps, tracking captured variables, and checks
// that long waits are tagged slow (fs and path are the rule's).
func (d *decoder) steps(n *yaml.Node, path string, rule map[string]pair, rulePath string) []Step {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		d.errorf(n, path, "must be a list of at least one step, got %s", describe(n))
		return nil
	}
	slow := false
	if p, ok := rule["tags"]; ok && p.val.Kind == yaml.SequenceNode {
		for _, t := range p.val.Content {
			slow = slow || resolve(t).Value == SlowTag
		}
	}
	vars := scope{}
	var steps []Step
	for i, item := range n.Content {
		item = resolve(item)
		s := d.step(item, index(path, i), vars)
		if s.Op == "wait" && s.Wait > MaxQuickWait && !slow {
			d.errorf(valueOf(item, "duration"), index(path, i)+".duration",
				"waits longer than %v need the tag %q in %s.tags, got %v", MaxQuickWait, SlowTag, rulePath, s.Wait)
		}
		steps = append(steps, s)
	}
	return steps
}

// valueOf returns the value of field name in mapping n, or n.
func valueOf(n *yaml.Node, name string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == name {
			return resolve(n.Content[i+1])
		}
	}
	return n
}
