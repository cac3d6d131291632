package conformance

import (
	"strconv"

	"go.yaml.in/yaml/v3"
)

// PageFields are the fields of the page-blob ops (blob.page.*).
type PageFields struct {
	// Size is the page blob's size in bytes: Put Blob's
	// x-ms-blob-content-length (blob.page.create) or the new size
	// (blob.page.resize). Not checked for alignment: rules test that the
	// service refuses a size that is not a multiple of 512.
	Size *int64
	// Offset and Length are the range of blob.page.put and
	// blob.page.clear (x-ms-range bytes=Offset-(Offset+Length-1)); Length
	// defaults to 512. A Put Page body is Body padded with zeros to Length.
	Offset, Length *int64
	// SequenceNumber is x-ms-blob-sequence-number: the initial number of
	// blob.page.create, the number of a max or update action (and, sent
	// with increment, a request the reference says to refuse).
	SequenceNumber *int64
	// SequenceNumberAction is x-ms-sequence-number-action (max, update,
	// increment; other values test that the service refuses them).
	SequenceNumberAction *string
	// IfSeqLE, IfSeqLT, IfSeqEQ are x-ms-if-sequence-number-le, -lt, -eq.
	IfSeqLE, IfSeqLT, IfSeqEQ *int64
	// PrevSnapshot is Get Page Ranges' prevsnapshot: the ranges changed
	// since that snapshot (a captured snapshot).
	PrevSnapshot *Value
}

// pageFieldNames are the page-blob step fields, in documentation order.
var pageFieldNames = []string{"size", "offset", "length", "sequence_number", "sequence_number_action",
	"if_sequence_number_le", "if_sequence_number_lt", "if_sequence_number_eq", "prev_snapshot"}

// seqConds are the sequence-number conditions Put Page and Clear Pages take.
const seqConds = "<sequence-number conditions>"

// pageOp is the spec of a page-blob op.
func pageOp(fields ...string) OpSpec {
	var fs []string
	for _, f := range fields {
		if f == seqConds {
			fs = append(fs, "if_sequence_number_le", "if_sequence_number_lt", "if_sequence_number_eq")
		} else {
			fs = append(fs, f)
		}
	}
	return blobOp(fs...)
}

// pageField decodes a page-blob field into s; false if name is not one.
func (d *decoder) pageField(s *Step, name string, v *yaml.Node, path string, vars scope) bool {
	p := &s.Page
	switch name {
	case "size":
		p.Size = d.int64(v, path, "the blob's size in bytes (a multiple of 512; other values test that the service refuses them)")
	case "offset":
		p.Offset = d.int64(v, path, "the range's first byte (a multiple of 512; other values test that the service refuses them)")
	case "length":
		p.Length = d.int64(v, path, "the range's length in bytes (a multiple of 512; other values test that the service refuses them)")
	case "sequence_number":
		p.SequenceNumber = d.int64(v, path, "the sequence number (0 to 2^63-1)")
	case "if_sequence_number_le":
		p.IfSeqLE = d.int64(v, path, "the sequence number the blob's must be at most")
	case "if_sequence_number_lt":
		p.IfSeqLT = d.int64(v, path, "the sequence number the blob's must be below")
	case "if_sequence_number_eq":
		p.IfSeqEQ = d.int64(v, path, "the sequence number the blob's must equal")
	case "sequence_number_action":
		if a, ok := d.str(v, path); ok {
			p.SequenceNumberAction = &a
		}
	case "prev_snapshot":
		p.PrevSnapshot = d.value(v, path, vars, "snapshot")
	default:
		return false
	}
	return true
}

// int64 reads a whole number of any size; what explains the field.
func (d *decoder) int64(n *yaml.Node, path, what string) *int64 {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" {
		if v, err := strconv.ParseInt(n.Value, 0, 64); err == nil {
			return &v
		}
	}
	d.errorf(n, path, "must be a whole number: %s, got %s", what, describe(n))
	return nil
}
