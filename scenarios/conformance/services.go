package conformance

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The step fields of the table and queue ops.

var (
	// tableAliasSyn: table names allow only letters and digits, so their
	// aliases do too (the runner appends them to the rule's table name).
	tableAliasSyn = regexp.MustCompile(`^[a-z0-9]+$`)
	// queueAliasSyn: queue names allow single hyphens between letters and
	// digits.
	queueAliasSyn = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	// propNameSyn is the syntax of a property name stormcheck writes.
	propNameSyn = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,254}$`)
)

// PadPrefix starts the names of the padding properties the runner adds
// for BatchAction.Pad; rules may not use it.
const PadPrefix = "scpad"

// Limits on what a rule may ask for, so a typo cannot make the runner
// build gigabytes.
const (
	// MaxBatchActions is the most actions a table.batch may have after
	// counts are expanded (the service allows 100; rules test 101).
	MaxBatchActions = 1000
	// MaxPad is the most padding bytes one action may have (an entity
	// holds at most 1 MiB).
	MaxPad = 1 << 20
)

// reservedProps are system properties a rule may not write.
var reservedProps = []string{"PartitionKey", "RowKey", "Timestamp", "ETag"}

// actionFields are the fields of a table.batch action.
var actionFields = []string{"kind", "row", "partition", "count", "pad", "properties", "if_match"}

// serviceField decodes one table or queue step field into s.
func (d *decoder) serviceField(s *Step, name string, v *yaml.Node, path string, vars scope) {
	switch name {
	case "table":
		if a, ok := d.str(v, path); ok {
			if !tableAliasSyn.MatchString(a) {
				d.errorf(v, path, "must be a table alias of lower-case letters and digits ([a-z0-9]+: table names allow no hyphens), got %q", a)
			}
			s.Table = a
		}
	case "queue":
		if a, ok := d.str(v, path); ok {
			if !queueAliasSyn.MatchString(a) {
				d.errorf(v, path, "must be a queue alias of lower-case letters and digits with single hyphens between them, got %q", a)
			}
			s.Queue = a
		}
	case "partition":
		if k, ok := d.key(v, path); ok {
			s.Partition = &k
		}
	case "row":
		s.Row, _ = d.key(v, path)
	case "properties":
		s.Properties = d.properties(v, path)
	case "actions":
		s.Actions = d.actions(v, path, vars)
	case "text":
		if t, ok := d.str(v, path); ok {
			s.Text = &t
		}
	case "count":
		if c := d.seconds(v, path, "how many messages to put (1..100)"); c != nil {
			if *c < 1 || *c > 100 {
				d.errorf(v, path, "must be 1..100, got %d", *c)
			} else {
				s.Count = *c
			}
		}
	case "num_messages":
		s.NumMessages = d.seconds(v, path, "the number of messages (numofmessages; 1..32 are valid, other values test that the service refuses them)")
	case "visibility":
		s.Visibility = d.seconds(v, path, "the visibility timeout in seconds")
	case "message_id":
		s.MessageID = d.value(v, path, vars, "message_id")
	case "pop_receipt":
		s.PopReceipt = d.value(v, path, vars, "pop_receipt")
	default:
		d.pageField(s, name, v, path, vars)
	}
}

// key reads a PartitionKey or RowKey: a non-empty string without the
// characters the Table service refuses in keys (/ \ # ? and control
// characters).
func (d *decoder) key(n *yaml.Node, path string) (string, bool) {
	k, ok := d.str(n, path)
	if !ok {
		return "", false
	}
	if strings.ContainsAny(k, `/\#?`) || strings.ContainsFunc(k, func(r rune) bool { return r < 0x20 || (r >= 0x7f && r <= 0x9f) }) {
		d.errorf(n, path, "a key may not hold /, \\, #, ? or control characters, got %q", k)
		return "", false
	}
	if k == "" {
		d.errorf(n, path, "must not be empty (the service allows empty keys, but the Go SDK cannot address such an entity)")
		return "", false
	}
	if len(k) > 1024 {
		d.errorf(n, path, "a key holds at most 1 KiB, got %d bytes", len(k))
		return "", false
	}
	return k, true
}

// properties reads an entity's string properties.
func (d *decoder) properties(n *yaml.Node, path string) map[string]string {
	fs, ok := d.mapping(n, path, "property names to string values")
	if !ok {
		return nil
	}
	out := map[string]string{}
	for _, name := range sortedByPosition(fs) {
		p := join(path, name)
		switch {
		case slices.Contains(reservedProps, name):
			d.errorf(fs[name].key, p, "%s is a system property; write the keys with partition and row", name)
		case !propNameSyn.MatchString(name):
			d.errorf(fs[name].key, p, "a property name is a letter or _ then letters, digits or _ (at most 255), got %q", name)
		case strings.HasPrefix(strings.ToLower(name), PadPrefix):
			d.errorf(fs[name].key, p, "property names starting with %q are the runner's padding", PadPrefix)
		default:
			if v, ok := d.str(fs[name].val, p); ok {
				out[name] = v
			}
		}
	}
	return out
}

// actions reads a table.batch's actions, expanding counts: an action with
// count n stands for n actions on rows ROW000, ROW001, ...
func (d *decoder) actions(n *yaml.Node, path string, vars scope) []BatchAction {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		d.errorf(n, path, "must be a list of at least one action ({kind, row, ...}), got %s", describe(n))
		return nil
	}
	var out []BatchAction
	for i, item := range n.Content {
		item = resolve(item)
		p := index(path, i)
		fs, ok := d.mapping(item, p, "action fields ("+strings.Join(actionFields, ", ")+")")
		if !ok {
			continue
		}
		d.allow(fs, p, actionFields)
		d.require(fs, item, p, "kind", "row")
		a := BatchAction{}
		count := 1
		for _, name := range sortedByPosition(fs) {
			v, fp := fs[name].val, join(p, name)
			switch name {
			case "kind":
				if k, ok := d.str(v, fp); ok {
					if !slices.Contains(ActionKinds, k) {
						d.errorf(v, fp, "unknown action kind %q%s; kinds: %s", k, didYouMean(k, ActionKinds), strings.Join(ActionKinds, ", "))
					}
					a.Kind = k
				}
			case "row":
				a.Row, _ = d.key(v, fp)
			case "partition":
				if k, ok := d.key(v, fp); ok {
					a.Partition = &k
				}
			case "count":
				if c := d.seconds(v, fp, "how many actions this one stands for (1 or more)"); c != nil {
					if *c < 1 {
						d.errorf(v, fp, "must be at least 1, got %d", *c)
					} else {
						count = *c
					}
				}
			case "pad":
				if b := d.seconds(v, fp, "padding bytes"); b != nil {
					if *b < 0 || *b > MaxPad {
						d.errorf(v, fp, "must be 0..%d bytes (an entity holds at most 1 MiB), got %d", MaxPad, *b)
					} else {
						a.Pad = *b
					}
				}
			case "properties":
				a.Properties = d.properties(v, fp)
			case "if_match":
				a.IfMatch = d.value(v, fp, vars, "etag")
			}
		}
		if p, ok := fs["if_match"]; ok && a.Kind != "" && !slices.Contains([]string{"update", "merge", "delete"}, a.Kind) {
			d.errorf(p.key, join(index(path, i), "if_match"), "%s actions take no if_match (only update, merge and delete do)", a.Kind)
		}
		if _, ok := fs["if_match"]; !ok && a.Kind == "delete" {
			d.errorf(item, join(index(path, i), "if_match"), "missing; a delete action requires it (Delete Entity requires If-Match; use \"*\" for any)")
		}
		if len(out)+count > MaxBatchActions {
			d.errorf(item, p, "the batch would have more than %d actions", MaxBatchActions)
			return out
		}
		if count == 1 {
			out = append(out, a)
			continue
		}
		for j := 0; j < count; j++ {
			b := a
			b.Row = fmt.Sprintf("%s%03d", a.Row, j)
			out = append(out, b)
		}
	}
	return out
}
