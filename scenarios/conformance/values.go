package conformance

import (
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// captured is a variable some earlier step of the rule captures.
type captured struct {
	what string // the capturable: etag, lease_id, ...
	line int
}

// scope holds the variables captured so far in one rule.
type scope map[string]captured

// names lists the variables of s, sorted, for messages.
func (s scope) names() string {
	if len(s) == 0 {
		return "none"
	}
	var ns []string
	for n := range s {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return strings.Join(ns, ", ")
}

var (
	varName  = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
	refSyn   = regexp.MustCompile(`^\$([a-z_][a-z0-9_]*)$`)
	dateSyn  = regexp.MustCompile(`^\$([a-z_][a-z0-9_]*)(?:([+-])([0-9]+)([smhd]))?$`)
	dateUnit = map[string]time.Duration{"s": time.Second, "m": time.Minute, "h": time.Hour, "d": 24 * time.Hour}
)

// dateHelp explains what a date field takes.
const dateHelp = `an RFC 1123 date ("Mon, 02 Jan 2006 15:04:05 GMT"), $now, $now+1h, $now-1d ` +
	`(units s, m, h, d), a captured last_modified as $var or $var+1s, or raw:TEXT to send TEXT as it is ` +
	`(to test how the service treats a malformed date)`

// value reads a field that may be a literal or a whole-value reference
// $var to a variable captured as want (etag or lease_id).
//
// An ETag condition may also be a list of literals and references, sent
// comma-separated (If-Match: "a", "b").
func (d *decoder) value(n *yaml.Node, path string, vars scope, want string) *Value {
	if n.Kind == yaml.SequenceNode && want == "etag" {
		if len(n.Content) < 2 {
			d.errorf(n, path, "a list of ETags needs at least two, got %d", len(n.Content))
			return nil
		}
		v := &Value{}
		for i, item := range n.Content {
			part := d.value(resolve(item), index(path, i), vars, want)
			if part == nil {
				return nil
			}
			v.List = append(v.List, part)
		}
		return v
	}
	s, ok := d.str(n, path)
	if !ok {
		return nil
	}
	if !strings.HasPrefix(s, "$") {
		return &Value{Literal: s}
	}
	m := refSyn.FindStringSubmatch(s)
	if m == nil || m[1] == "now" {
		d.errorf(n, path, "must be a literal or a reference $name to a captured %s (the whole value, name [a-z_][a-z0-9_]*), got %q", want, s)
		return nil
	}
	if !d.ref(n, path, vars, m[1], want) {
		return nil
	}
	return &Value{Ref: m[1]}
}

// date reads a date field; see dateHelp.
func (d *decoder) date(n *yaml.Node, path string, vars scope) *Value {
	s, ok := d.str(n, path)
	if !ok {
		return nil
	}
	if raw, ok := strings.CutPrefix(s, "raw:"); ok {
		return &Value{Literal: raw}
	}
	if !strings.HasPrefix(s, "$") {
		if _, err := time.Parse(time.RFC1123, s); err != nil {
			d.errorf(n, path, "must be %s, got %q", dateHelp, s)
			return nil
		}
		return &Value{Literal: s}
	}
	m := dateSyn.FindStringSubmatch(s)
	if m == nil {
		d.errorf(n, path, "bad date expression %q; want %s", s, dateHelp)
		return nil
	}
	v := &Value{}
	if m[2] != "" {
		k, err := strconv.ParseInt(m[3], 10, 32)
		if err != nil {
			d.errorf(n, path, "bad date expression %q: offset too large", s)
			return nil
		}
		v.Offset = time.Duration(k) * dateUnit[m[4]]
		if m[2] == "-" {
			v.Offset = -v.Offset
		}
	}
	if m[1] == "now" {
		v.Now = true
		return v
	}
	if !d.ref(n, path, vars, m[1], "last_modified") {
		return nil
	}
	v.Ref = m[1]
	return v
}

// ref checks that name is captured by an earlier step as want.
func (d *decoder) ref(n *yaml.Node, path string, vars scope, name, want string) bool {
	c, ok := vars[name]
	if !ok {
		d.errorf(n, path, "$%s is not captured by an earlier step of this rule (captured so far: %s)", name, vars.names())
		return false
	}
	if c.what != want {
		d.errorf(n, path, "$%s holds a %s (captured at line %d); this field takes a captured %s", name, c.what, c.line, want)
		return false
	}
	return true
}
