package conformance

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// expectFields are the fields of a step's expect.
var expectFields = []string{"status", "error_code", "etag", "headers_present", "headers_absent", "headers", "body",
	"messages", "dequeue_count", "text", "message_id", "pop_receipt", "next_visible_in",
	"properties", "entities", "failed_index", "parts"}

// expectOnly names the ops whose response an expectation applies to; the
// expectations not listed apply to every op.
var expectOnly = map[string][]string{
	"messages":        {"queue.get", "queue.peek"},
	"dequeue_count":   {"queue.get", "queue.peek"},
	"text":            {"queue.get", "queue.peek"},
	"message_id":      {"queue.get", "queue.peek"},
	"pop_receipt":     {"queue.get", "queue.update"},
	"next_visible_in": messageOps,
	"properties":      {"table.get"},
	"entities":        {"table.query"},
	"failed_index":    {"table.batch", TableRawOp},
	"parts":           {RawOp, TableRawOp},
}

// statusHelp says what expect.status takes.
const statusHelp = "an HTTP status code (a whole number from 100 to 599, unquoted) or a list of them"

// expect decodes the expect of a step running op.
func (d *decoder) expect(n *yaml.Node, path string, vars scope, op string) Expect {
	var e Expect
	fs, ok := d.mapping(n, path, "expectations ("+strings.Join(expectFields, ", ")+")")
	if !ok {
		return e
	}
	d.allow(fs, path, expectFields)
	d.require(fs, n, path, "status")
	for _, name := range sortedByPosition(fs) {
		if ops, only := expectOnly[name]; only && !slices.Contains(ops, op) {
			d.errorf(fs[name].key, join(path, name), "op %s returns nothing %s checks; it applies to %s", op, name, strings.Join(ops, ", "))
			delete(fs, name)
		}
	}
	count := func(name, what string) *int {
		p, ok := fs[name]
		if !ok {
			return nil
		}
		v, ok := integer(p.val)
		if !ok || v < 0 {
			d.errorf(p.val, join(path, name), "must be %s (a whole number, 0 or more), got %s", what, describe(p.val))
			return nil
		}
		return &v
	}
	e.Messages = count("messages", "the number of messages returned")
	e.DequeueCount = count("dequeue_count", "the first message's dequeue count")
	e.NextVisibleIn = count("next_visible_in", "seconds from the response's Date to the time-next-visible")
	e.Entities = count("entities", "the number of entities returned")
	e.FailedIndex = count("failed_index", "the index from 0 of the batch's failed operation")
	if p, ok := fs["text"]; ok {
		if t, ok := d.str(p.val, join(path, "text")); ok {
			e.Text = &t
		}
	}
	if p, ok := fs["message_id"]; ok {
		e.MessageID = d.refExpect(p.val, join(path, "message_id"), vars, "message_id")
	}
	if p, ok := fs["pop_receipt"]; ok {
		e.PopReceipt = d.refExpect(p.val, join(path, "pop_receipt"), vars, "pop_receipt")
	}
	if p, ok := fs["properties"]; ok {
		e.Properties = d.properties(p.val, join(path, "properties"))
	}
	if p, ok := fs["status"]; ok {
		e.Status = d.status(p.val, join(path, "status"))
	}
	if p, ok := fs["parts"]; ok {
		e.Parts = d.partStatuses(p.val, join(path, "parts"))
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
	if p, ok := fs["headers"]; ok {
		e.Headers = d.rawParams(p.val, join(path, "headers"), vars, responseHeaders)
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

// refExpect reads {equals: $var} or {differs: $var} comparing a response value
// with a captured want.
func (d *decoder) refExpect(n *yaml.Node, path string, vars scope, want string) RefExpect {
	const help = "{equals: $var} or {differs: $var}"
	fs, ok := d.mapping(n, path, "one of equals or differs to a captured "+want+" $var")
	if !ok {
		return RefExpect{}
	}
	d.allow(fs, path, []string{ETagEquals, ETagDiffers})
	if len(fs) != 1 {
		d.errorf(n, path, "must be %s: exactly one of equals or differs", help)
		return RefExpect{}
	}
	for kind, p := range fs {
		if kind != ETagEquals && kind != ETagDiffers {
			return RefExpect{}
		}
		v := d.value(p.val, join(path, kind), vars, want)
		if v == nil {
			return RefExpect{}
		}
		if v.Ref == "" {
			d.errorf(p.val, join(path, kind), "must be a captured %s $var, got %q", want, v.Literal)
			return RefExpect{}
		}
		return RefExpect{Kind: kind, Var: v.Ref}
	}
	return RefExpect{}
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
