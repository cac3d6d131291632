package conformance

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Cover is one point of the REST reference a rule covers: an operation
// and one of its parameters with a class of value (if-match=false), a
// resource state (state=leased-other), an error path (error=LeaseIdMissing)
// or a pair of preconditions failing together
// (precedence=missing+if-match). Rule files write it as
// "OP DIMENSION=VALUE", e.g. "blob.put if-match=false".
type Cover struct {
	Op, Dim, Value string
}

// String is the form rule files write.
func (c Cover) String() string { return c.Op + " " + c.Dim + "=" + c.Value }

// covers decodes a rule's covers list against Reference and the rule's
// steps: the op must be one the rule runs (a raw step runs the operation
// its request is, RawRefOp), the dimension one the op's checklist has, and
// a parameter point needs a step of that op that sends the parameter (a
// raw step: whose request carries it, or leaves it out for the class
// absent).
func (d *decoder) covers(n *yaml.Node, path string, steps []Step) []Cover {
	items, ok := d.strList(n, path, `coverage points ("OP DIMENSION=VALUE", e.g. "blob.put if-match=false")`)
	if !ok {
		return nil
	}
	var out []Cover
	for i, s := range items {
		item, p := resolve(n.Content[i]), index(path, i)
		op, rest, ok1 := strings.Cut(strings.TrimSpace(s), " ")
		dim, val, ok2 := strings.Cut(strings.TrimSpace(rest), "=")
		if !ok1 || !ok2 || dim == "" || val == "" {
			d.errorf(item, p, `must be "OP DIMENSION=VALUE" (e.g. "blob.put if-match=false", "blob.put state=leased-other", "blob.put error=LeaseIdMissing", "blob.put precedence=missing+if-match"), got %q`, s)
			continue
		}
		ref := RefFor(op)
		if ref == nil {
			d.errorf(item, p, "op %q has no checklist in the reference; ops with one: %s", op, strings.Join(refOps(), ", "))
			continue
		}
		ran := false
		for j := range steps {
			ran = ran || steps[j].RefOp() == op
		}
		if !ran {
			d.errorf(item, p, "the rule covers %s but has no %s step (nor a raw step whose request is %s)", op, op, ref.Name)
			continue
		}
		c := Cover{Op: op, Dim: dim, Value: val}
		var allowed []string
		switch dim {
		case DimState:
			allowed = ref.States
		case DimError:
			allowed = ref.Errors
		case DimPrecedence:
			allowed = ref.Precedence
		default:
			var pr *ParamRef
			var names []string
			for j := range ref.Params {
				names = append(names, ref.Params[j].Name)
				if ref.Params[j].Name == dim {
					pr = &ref.Params[j]
				}
			}
			if pr == nil {
				dims := append([]string{DimState, DimError, DimPrecedence}, names...)
				d.errorf(item, p, "%s has no dimension %q%s; it has: %s", op, dim, didYouMean(dim, dims), strings.Join(dims, ", "))
				continue
			}
			allowed = pr.Classes
			// A parameter point needs a step of op that sends it; the
			// class absent needs one that does not.
			absent := val == ClassAbsent
			found, raw := false, false
			for j := range steps {
				st := &steps[j]
				if st.Op == RawOp {
					raw = raw || st.RefOp() == op
					found = found || st.RefOp() == op && rawSendsClass(st.Raw, dim, val)
				} else {
					found = found || pr.Field != "" && st.Op == op && stepSends(st, pr.Field) != absent
				}
			}
			switch {
			case !found && pr.Field == "" && !raw:
				d.errorf(item, p, "%s %s: no step field sends %s, so only a raw step whose request is %s can cover it", op, dim, dim, ref.Name)
				continue
			case !found && raw && (val == ClassStar || val == ClassList):
				d.errorf(item, p, "the rule covers %s %s=%s but no step sends %s with that value (a raw request: %s)", op, dim, val, dim, map[string]string{ClassStar: "*", ClassList: "a comma-separated list"}[val])
				continue
			case !found && absent:
				d.errorf(item, p, "the rule covers %s %s=absent but every %s step sends %s (field %s)", op, dim, op, dim, pr.Field)
				continue
			case !found:
				d.errorf(item, p, "the rule covers %s %s but no %s step sends %s (field %s)", op, dim, op, dim, pr.Field)
				continue
			}
		}
		if !slices.Contains(allowed, val) {
			if len(allowed) == 0 {
				d.errorf(item, p, "%s lists no %s in the reference checklist", op, dim)
			} else {
				d.errorf(item, p, "%s %s: %q is not in the checklist%s; allowed: %s", op, dim, val, didYouMean(val, allowed), strings.Join(allowed, ", "))
			}
			continue
		}
		if slices.Contains(out, c) {
			d.errorf(item, p, "%q is listed twice", s)
			continue
		}
		out = append(out, c)
	}
	return out
}

// stepSends reports whether st sends the parameter its field names.
func stepSends(st *Step, field string) bool {
	switch field {
	case "if_match":
		return st.IfMatch != nil || slices.ContainsFunc(st.Actions, func(a BatchAction) bool { return a.IfMatch != nil })
	case "if_none_match":
		return st.IfNoneMatch != nil
	case "if_modified_since":
		return st.IfModifiedSince != nil
	case "if_unmodified_since":
		return st.IfUnmodifiedSince != nil
	case "source_if_match":
		return st.SourceIfMatch != nil
	case "source_if_none_match":
		return st.SourceIfNoneMatch != nil
	case "source_if_modified_since":
		return st.SourceIfModifiedSince != nil
	case "source_if_unmodified_since":
		return st.SourceIfUnmodifiedSince != nil
	case "lease_id":
		return st.LeaseID != nil
	case "proposed_lease_id":
		return st.ProposedLeaseID != nil
	case "duration":
		return st.Duration != nil
	case "break_period":
		return st.BreakPeriod != nil
	case "num_messages":
		return st.NumMessages != nil
	case "visibility":
		return st.Visibility != nil
	case "pop_receipt":
		return st.PopReceipt != nil
	case "actions":
		return len(st.Actions) > 0
	case "if_tags":
		return st.IfTags != nil
	case "source_if_tags":
		return st.SourceIfTags != nil
	case "source_lease_id":
		return st.SourceLeaseID != nil
	case "delete_snapshots":
		return st.DeleteSnapshots != nil
	case "ttl":
		return st.TTL != nil
	case "text_repeat":
		return st.TextRepeat > 0
	case "append_pos":
		return st.AppendPos != nil
	case "max_size":
		return st.MaxSize != nil
	case "body_bytes":
		return st.BodyBytes > 0
	case "size":
		return st.Page.Size != nil
	case "offset":
		return st.Page.Offset != nil
	case "sequence_number":
		return st.Page.SequenceNumber != nil
	case "sequence_number_action":
		return st.Page.SequenceNumberAction != nil
	case "if_sequence_number_le":
		return st.Page.IfSeqLE != nil
	case "if_sequence_number_lt":
		return st.Page.IfSeqLT != nil
	case "if_sequence_number_eq":
		return st.Page.IfSeqEQ != nil
	case "prev_snapshot":
		return st.Page.PrevSnapshot != nil
	}
	return false
}

// refOps lists the ops Reference has a checklist for.
func refOps() []string {
	out := make([]string, len(Reference))
	for i, r := range Reference {
		out[i] = r.Op
	}
	return out
}
