package conformance

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// aliasSyn is the syntax of blob and container aliases.
var aliasSyn = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// opNames lists the ops, sorted, for messages.
func opNames() []string {
	names := make([]string, 0, len(Ops))
	for name := range Ops {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// step decodes one step; variables it captures are added to vars after
// its own fields are read, so a step cannot use its own captures.
func (d *decoder) step(n *yaml.Node, path string, vars scope) Step {
	s := Step{Line: n.Line}
	fs, ok := d.mapping(n, path, "step fields (op, ...)")
	if !ok {
		return s
	}
	p, ok := fs["op"]
	if !ok {
		d.errorf(n, join(path, "op"), "missing; it is required: one of %s", strings.Join(opNames(), ", "))
		d.allow(fs, path, stepFields)
		return s
	}
	op, ok := d.str(p.val, join(path, "op"))
	if !ok {
		return s
	}
	spec, known := Ops[op]
	if !known {
		d.errorf(p.val, join(path, "op"), "unknown op %q%s; ops: %s", op, didYouMean(op, opNames()), strings.Join(opNames(), ", "))
		d.allow(fs, path, stepFields)
		return s
	}
	s.Op = op
	takes := append([]string{"op"}, spec.Fields...)
	for _, name := range sortedByPosition(fs) {
		switch {
		case slices.Contains(takes, name):
		case slices.Contains(stepFields, name):
			d.errorf(fs[name].key, join(path, name), "op %s does not take %q; it takes: %s", op, name, strings.Join(spec.Fields, ", "))
		default:
			d.errorf(fs[name].key, join(path, name), "unknown field %q%s; op %s takes: %s",
				name, didYouMean(name, takes), op, strings.Join(takes, ", "))
		}
	}
	required := spec.Required
	if slices.Contains(spec.Fields, "expect") {
		required = append(slices.Clone(required), "expect")
	}
	d.require(fs, n, path, required...)
	for _, name := range sortedByPosition(fs) {
		if slices.Contains(spec.Fields, name) {
			d.field(&s, name, fs[name].val, join(path, name), vars)
		}
	}
	if p, ok := fs["capture"]; ok && slices.Contains(spec.Fields, "capture") {
		s.Capture = d.capture(p.val, join(path, "capture"), vars, op)
	}
	if p, ok := fs["blob"]; ok && op == RawOp && s.Raw != nil && len(s.Raw.Parts) > 0 {
		d.errorf(p.key, join(path, "blob"), "a Blob Batch is sent to its container (a step without blob; query restype=container, comp=batch); its parts name the blobs")
	}
	return s
}

// field decodes one step field other than op and capture into s.
func (d *decoder) field(s *Step, name string, v *yaml.Node, path string, vars scope) {
	switch name {
	case "blob", "container", "source":
		a, ok := d.str(v, path)
		if ok && !aliasSyn.MatchString(a) {
			d.errorf(v, path, "must be an alias matching [a-z0-9][a-z0-9-]* (the runner maps aliases to real names), got %q", a)
		}
		switch name {
		case "blob":
			s.Blob = a
		case "container":
			s.Container = a
		default:
			s.Source = a
		}
	case "file":
		a, ok := d.str(v, path)
		if ok && !aliasSyn.MatchString(a) {
			d.errorf(v, path, "must be an alias matching [a-z0-9][a-z0-9-]* (the runner maps aliases to real names), got %q", a)
		}
		s.File = a
	case "snapshot":
		s.Snapshot = d.value(v, path, vars, "snapshot")
	case "if_tags", "source_if_tags":
		// A tag expression is sent as written ($ is not a reference here).
		if e, ok := d.str(v, path); ok {
			if name == "if_tags" {
				s.IfTags = &Value{Literal: e}
			} else {
				s.SourceIfTags = &Value{Literal: e}
			}
		}
	case "source_lease_id":
		s.SourceLeaseID = d.value(v, path, vars, "lease_id")
	case "blob_tags", "delete_snapshots":
		if b, ok := d.str(v, path); ok {
			if name == "blob_tags" {
				s.BlobTags = &b
			} else {
				s.DeleteSnapshots = &b
			}
		}
	case "ttl":
		s.TTL = d.seconds(v, path, "the message time-to-live in seconds (-1 for never; other values test that the service refuses them)")
	case "text_repeat":
		if n := d.seconds(v, path, "how many times the text is repeated (1..1,000,000)"); n != nil {
			if *n < 1 || *n > 1_000_000 {
				d.errorf(v, path, "must be 1..1,000,000 (the message is the text repeated this many times), got %d", *n)
			} else {
				s.TextRepeat = *n
			}
		}
	case "body":
		if b, ok := d.str(v, path); ok {
			s.Body = &b
		}
	case "metadata":
		s.Metadata = d.metadata(v, path)
	case "if_match", "if_none_match":
		val := d.value(v, path, vars, "etag")
		if name == "if_match" {
			s.IfMatch = val
		} else {
			s.IfNoneMatch = val
		}
	case "if_modified_since":
		s.IfModifiedSince = d.date(v, path, vars)
	case "if_unmodified_since":
		s.IfUnmodifiedSince = d.date(v, path, vars)
	case "source_if_match":
		s.SourceIfMatch = d.value(v, path, vars, "etag")
	case "source_if_none_match":
		s.SourceIfNoneMatch = d.value(v, path, vars, "etag")
	case "source_if_modified_since":
		s.SourceIfModifiedSince = d.date(v, path, vars)
	case "source_if_unmodified_since":
		s.SourceIfUnmodifiedSince = d.date(v, path, vars)
	case "copy_id":
		s.CopyID = d.value(v, path, vars, "copy_id")
	case "lease_id":
		s.LeaseID = d.value(v, path, vars, "lease_id")
	case "proposed_lease_id":
		s.ProposedLeaseID = d.value(v, path, vars, "lease_id")
	case "duration":
		if s.Op == "wait" {
			s.Wait = d.wait(v, path)
		} else {
			s.Duration = d.seconds(v, path, "the lease duration in seconds (15..60, or -1 for infinite; other values test that the service refuses them)")
		}
	case "break_period":
		s.BreakPeriod = d.seconds(v, path, "the break period in seconds (0..60)")
	case "block_id":
		s.BlockID, _ = d.str(v, path)
	case "blocks":
		s.Blocks, _ = d.strList(v, path, "block ids")
	case "append_pos", "max_size", "body_bytes":
		d.appendField(s, name, v, path)
	case "request":
		s.Raw = d.request(v, path, vars, s.Op)
	case "evidence":
		src := d.source(v, path)
		s.Evidence = &src
	case "expect":
		s.Expect = d.expect(v, path, vars, s.Op)
	default:
		d.serviceField(s, name, v, path, vars)
	}
}

// seconds reads a whole number of seconds; what explains the field.
func (d *decoder) seconds(n *yaml.Node, path, what string) *int {
	v, ok := integer(n)
	if !ok {
		d.errorf(n, path, "must be a whole number: %s, got %s", what, describe(n))
		return nil
	}
	return &v
}

// wait reads the Go duration of a wait step (> 0).
func (d *decoder) wait(n *yaml.Node, path string) time.Duration {
	const want = "a Go duration > 0 such as 500ms, 2s or 1m"
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		d.errorf(n, path, "must be %s, got %s (durations need a unit)", want, describe(n))
		return 0
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil || v <= 0 {
		d.errorf(n, path, "must be %s, got %q", want, n.Value)
		return 0
	}
	return v
}

// metadata reads a mapping of strings to strings.
func (d *decoder) metadata(n *yaml.Node, path string) map[string]string {
	fs, ok := d.mapping(n, path, "metadata names to string values")
	if !ok {
		return nil
	}
	out := map[string]string{}
	for _, name := range sortedByPosition(fs) {
		if v, ok := d.str(fs[name].val, join(path, name)); ok {
			out[name] = v
		}
	}
	return out
}

// capture reads a mapping of capturable to variable name and adds the
// variables to vars. What op's response cannot hold (a message id on a
// table op, an ETag on a queue op) is refused.
func (d *decoder) capture(n *yaml.Node, path string, vars scope, op string) map[string]string {
	fs, ok := d.mapping(n, path, "capturable ("+strings.Join(Capturable, ", ")+") to variable names")
	if !ok {
		return nil
	}
	d.allow(fs, path, Capturable)
	can := capturableBy(op)
	out := map[string]string{}
	for _, what := range sortedByPosition(fs) {
		if !slices.Contains(Capturable, what) {
			continue
		}
		if !slices.Contains(can, what) {
			d.errorf(fs[what].key, join(path, what), "op %s returns no %s to capture; it can capture: %s", op, what, strings.Join(can, ", "))
			continue
		}
		v := fs[what].val
		name, ok := d.str(v, join(path, what))
		switch {
		case !ok:
			continue
		case !varName.MatchString(name) || name == "now":
			d.errorf(v, join(path, what), "must be a variable name matching [a-z_][a-z0-9_]* other than now (written without $), got %q", name)
			continue
		}
		out[what] = name
		vars[name] = captured{what: what, line: v.Line}
	}
	return out
}
