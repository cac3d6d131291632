package conformance

import "slices"

// The checklists of the append-blob and page-blob operations: their own
// concurrency headers (the append position and maximum size conditions,
// the sequence-number conditions and actions) besides the conditional
// headers and lease id every blob write takes. They follow the blob
// operations in the coverage map.

// StateSealed: the append blob is sealed (Append Blob Seal).
const StateSealed = "sealed"

var (
	appendPosParam = ParamRef{Name: "x-ms-blob-condition-appendpos", Classes: []string{ClassTrue, ClassFalse, ClassInvalid}, Field: "append_pos"}
	seqCondClasses = []string{ClassTrue, ClassFalse, ClassInvalid}
	pageStates     = []string{StateExists, StateMissing, StateLeased, StateLeasedOther}
	pageLeaseErrs  = []string{"ConditionNotMet", "BlobNotFound", "LeaseIdMissing", "LeaseIdMismatchWithBlobOperation", "LeaseNotPresentWithBlobOperation", "InvalidHeaderValue"}
)

func errs(extra ...string) []string { return append(append([]string{}, pageLeaseErrs...), extra...) }

// pageWrite is the checklist of Put Page with x-ms-page-write update or
// clear: the range, the three sequence-number conditions, the conditional
// headers and the lease id.
func pageWrite(op, name string) OpRef {
	return OpRef{Op: op, Name: name, Page: restBase + "put-page",
		Params: params([]ParamRef{
			{Name: "x-ms-range", Classes: []string{ClassValid, ClassBoundary, ClassInvalid}, Field: "offset"},
			{Name: "x-ms-if-sequence-number-le", Classes: seqCondClasses, Field: "if_sequence_number_le"},
			{Name: "x-ms-if-sequence-number-lt", Classes: seqCondClasses, Field: "if_sequence_number_lt"},
			{Name: "x-ms-if-sequence-number-eq", Classes: seqCondClasses, Field: "if_sequence_number_eq"},
		}, blobConds(false), one(leaseIDParam())),
		States:     pageStates,
		Errors:     errs("InvalidPageRange", "SequenceNumberConditionNotMet", "InvalidBlobType"),
		Precedence: []string{"missing+if-match", "x-ms-if-sequence-number-eq+if-match"}}
}

// blobTypeRefs are the append- and page-blob checklists.
var blobTypeRefs = []OpRef{
	{Op: "blob.append.create", Name: "Put Blob (append blob)", Page: restBase + "put-blob",
		Params: params(blobConds(false), one(leaseIDParam())), States: pageStates,
		Errors: errs("BlobAlreadyExists"), Precedence: blobPrecedence},
	{Op: "blob.append", Name: "Append Block", Page: restBase + "append-block",
		Params: params([]ParamRef{appendPosParam,
			{Name: "x-ms-blob-condition-maxsize", Classes: []string{ClassTrue, ClassFalse, ClassBoundary, ClassInvalid}, Field: "max_size"},
			{Name: "content-length", Classes: []string{ClassValid, ClassBoundary, ClassInvalid}, Field: "body_bytes"},
		}, blobConds(false), one(leaseIDParam())),
		States: append(append([]string{}, pageStates...), StateSealed),
		Errors: errs("AppendPositionConditionNotMet", "MaxBlobSizeConditionNotMet", "BlobIsSealed", "InvalidBlobType", "BlockCountExceedsLimit", "RequestBodyTooLarge"),
		Precedence: []string{"x-ms-blob-condition-appendpos+x-ms-blob-condition-maxsize", "x-ms-blob-condition-appendpos+if-match",
			"sealed+x-ms-blob-condition-appendpos", "missing+if-match"}},
	{Op: "blob.append.seal", Name: "Append Blob Seal", Page: restBase + "append-blob-seal",
		Params: params(one(appendPosParam), blobConds(false), one(leaseIDParam())),
		States: append(append([]string{}, pageStates...), StateSealed),
		Errors: errs("AppendPositionConditionNotMet", "InvalidBlobType")},

	{Op: "blob.page.create", Name: "Put Blob (page blob)", Page: restBase + "put-blob",
		Params: params([]ParamRef{
			{Name: "x-ms-blob-content-length", Classes: []string{ClassValid, ClassBoundary, ClassInvalid}, Field: "size"},
			{Name: "x-ms-blob-sequence-number", Classes: []string{ClassValid, ClassBoundary, ClassInvalid}, Field: "sequence_number"},
		}, blobConds(false), one(leaseIDParam())),
		States: pageStates, Errors: errs("BlobAlreadyExists"), Precedence: blobPrecedence},
	pageWrite("blob.page.put", "Put Page (update)"),
	pageWrite("blob.page.clear", "Put Page (clear)"),
	{Op: "blob.page.ranges", Name: "Get Page Ranges", Page: restBase + "get-page-ranges",
		Params: params(one(ParamRef{Name: "prevsnapshot", Classes: []string{ClassValid, ClassInvalid}, Field: "prev_snapshot"}),
			blobConds(false), one(leaseIDParam())),
		States: []string{StateExists, StateMissing, StateSnapshot, StateLeased, StateLeasedOther},
		Errors: []string{"BlobNotFound", "PreviousSnapshotNotFound", "InvalidBlobType", "ConditionNotMet", "LeaseIdMismatchWithBlobOperation", "LeaseNotPresentWithBlobOperation"}},
	{Op: "blob.page.seqnum", Name: "Set Blob Properties (sequence number)", Page: restBase + "set-blob-properties",
		Params: params([]ParamRef{
			{Name: "x-ms-sequence-number-action", Classes: []string{ClassValid, ClassInvalid}, Field: "sequence_number_action"},
			{Name: "x-ms-blob-sequence-number", Classes: []string{ClassValid, ClassBoundary, ClassInvalid}, Field: "sequence_number"},
		}, blobConds(false), one(leaseIDParam())),
		States: pageStates, Errors: errs("SequenceNumberIncrementTooLarge", "InvalidBlobType", "InvalidInput"),
		Precedence: []string{"missing+if-match"}},
	{Op: "blob.page.resize", Name: "Set Blob Properties (page blob size)", Page: restBase + "set-blob-properties",
		Params: params(one(ParamRef{Name: "x-ms-blob-content-length", Classes: []string{ClassValid, ClassInvalid}, Field: "size"}),
			blobConds(false), one(leaseIDParam())),
		States: pageStates, Errors: errs("InvalidBlobType")},
}

// The append- and page-blob checklists go after the last blob operation.
func init() {
	at := 0
	for i, r := range Reference {
		if len(r.Op) > 5 && r.Op[:5] == "blob." {
			at = i + 1
		}
	}
	Reference = slices.Insert(Reference, at, blobTypeRefs...)
}
