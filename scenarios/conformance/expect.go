package conformance

import (
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// expectFields are the fields of a step's expect.
var expectFields = []string{"status", "error_code", "etag", "headers_present", "headers_absent", "body"}

// statusHelp says what expect.status takes.
const statusHelp = "an HTTP status code (a whole number from 100 to 599, unquoted) or a list of them"

// expect decodes a step's expect.
func (d *decoder) expect(n *yaml.Node, path string, vars scope) Expect {
	var e Expect
	fs, ok := d.mapping(n, path, "expectations ("+strings.Join(expectFields, ", ")+")")
	if !ok {
		return e
	}
	d.allow(fs, path, expectFields)
	d.require(fs, n, path, "status")
	if p, ok := fs["status"]; ok {
		e.Status = d.status(p.val, join(path, "status"))
	}
	if p, ok := fs["error_code"]; ok {
		e.ErrorCode = d.strOrList(p.val, join(path, "error_code"), "error codes")
	}
	if p, ok := fs["etag"]; ok {
		e.ETag = d.etag(p.val, join(path, "etag"), vars)
	}
	if p, ok := fs["headers_absent"]; ok {
		e.HeadersAbsent, _ = d.strList(p.val, join(path, "headers_absent"), "header names")
	}
	if p, ok := fs["headers_present"]; ok {
		e.HeadersPresent, _ = d.strList(p.val, join(path, "headers_present"), "header names")
	}
	if p, ok := fs["body"]; ok {
		if b, ok := d.str(p.val, join(path, "body")); ok {
			e.Body = &b
		}
	}
	return e
}

// status reads one status code or a list of them.
func (d *decoder) status(n *yaml.Node, path string) []int {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode && len(n.Content) > 0 {
		items = n.Content
	}
	var out []int
	for _, item := range items {
		item = resolve(item)
		v, ok := integer(item)
		if !ok || v < 100 || v > 599 {
			d.errorf(item, path, "must be %s, got %s", statusHelp, describe(item))
			continue
		}
		out = append(out, v)
	}
	return out
}

// strOrList reads one string or a non-empty list of them.
func (d *decoder) strOrList(n *yaml.Node, path, what string) []string {
	if n.Kind == yaml.SequenceNode {
		l, _ := d.strList(n, path, what)
		if len(n.Content) == 0 {
			d.errorf(n, path, "must be a string or a non-empty list of %s", what)
		}
		return l
	}
	if s, ok := d.str(n, path); ok {
		return []string{s}
	}
	return nil
}

// etag reads changed, unchanged, {equals: $var} or {differs: $var}.
func (d *decoder) etag(n *yaml.Node, path string, vars scope) ETagExpect {
	const help = "changed, unchanged, {equals: $var} or {differs: $var}"
	if n.Kind == yaml.ScalarNode {
		if n.ShortTag() == "!!str" && slices.Contains([]string{ETagChanged, ETagUnchanged}, n.Value) {
			return ETagExpect{Kind: n.Value}
		}
		d.errorf(n, path, "must be %s, got %s", help, describe(n))
		return ETagExpect{}
	}
	fs, ok := d.mapping(n, path, "one of equals or differs to a captured etag $var")
	if !ok {
		return ETagExpect{}
	}
	d.allow(fs, path, []string{ETagEquals, ETagDiffers})
	if len(fs) != 1 {
		d.errorf(n, path, "must be %s: exactly one of equals or differs", help)
		return ETagExpect{}
	}
	for kind, p := range fs {
		if kind != ETagEquals && kind != ETagDiffers {
			return ETagExpect{}
		}
		v := d.value(p.val, join(path, kind), vars, "etag")
		if v == nil {
			return ETagExpect{}
		}
		if v.Ref == "" {
			d.errorf(p.val, join(path, kind), "must be a captured etag $var, got %q", v.Literal)
			return ETagExpect{}
		}
		return ETagExpect{Kind: kind, Var: v.Ref}
	}
	return ETagExpect{}
}
