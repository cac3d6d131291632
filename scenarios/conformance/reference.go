package conformance

// The REST reference as a checklist: for every operation that takes part in
// concurrency, the request headers (and query parameters) that take part,
// with the classes of value the reference distinguishes, the resource
// states it distinguishes, the error codes it documents for them, and the
// pairs of preconditions that can fail together. A rule says which of these
// points it covers (Rule.Covers); the coverage map (Coverage) shows, per
// operation, the points no rule covers.

// OpRef is one operation's checklist.
type OpRef struct {
	// Op is the step op that runs the operation (a key of Ops).
	Op string
	// Name is the operation as the REST reference names it.
	Name string
	// Page is the REST reference page.
	Page string
	// Params are the headers and query parameters that take part in
	// concurrency, in the page's order.
	Params []ParamRef
	// States are the resource states the page distinguishes for this
	// operation (see the State* constants).
	States []string
	// Errors are the error codes the reference documents for the
	// operation's concurrency paths.
	Errors []string
	// Precedence are the pairs of preconditions that can fail together,
	// written A+B (e.g. missing+if-match: the blob does not exist and an
	// If-Match is sent).
	Precedence []string
}

// ParamRef is one header or query parameter and its classes of value.
type ParamRef struct {
	// Name is the header or parameter, lower case (if-match,
	// x-ms-lease-id, numofmessages).
	Name string
	// Classes are the value classes to cover (see the Class* constants).
	Classes []string
	// Field is the step field that sends it; "" when the runner cannot send
	// it yet, so its points are holes no rule can fill.
	Field string
}

// Value classes of a parameter.
const (
	// ClassTrue and ClassFalse: a condition that holds, one that fails.
	ClassTrue  = "true"
	ClassFalse = "false"
	// ClassStar: the wildcard * of If-Match / If-None-Match.
	ClassStar = "star"
	// ClassList: several comma-separated ETags (reads, 2013-08-15 and
	// later).
	ClassList = "list"
	// ClassEqual: a date condition equal to the resource's Last-Modified
	// (the boundary of the comparison).
	ClassEqual = "equal"
	// ClassValid, ClassBoundary and ClassInvalid: a value inside the
	// documented range or format, at its edge, outside it.
	ClassValid    = "valid"
	ClassBoundary = "boundary"
	ClassInvalid  = "invalid"
	// ClassMatch and ClassMismatch: a lease id (or pop receipt) that is the
	// current one, one that is not.
	ClassMatch    = "match"
	ClassMismatch = "mismatch"
	// ClassAbsent: the header not sent, where its absence means something
	// (Update Entity without If-Match is an upsert).
	ClassAbsent = "absent"
)

// Resource states.
const (
	StateExists      = "exists"       // the resource exists, unleased
	StateMissing     = "missing"      // it never existed
	StateDeleted     = "deleted"      // it existed and was deleted
	StateLeased      = "leased"       // leased, the request carries the lease id
	StateLeasedOther = "leased-other" // leased, the request carries another id or none
	StateSnapshot    = "snapshot"     // the request addresses a snapshot of the blob
	StateExpired     = "expired"      // the lease has expired
	StateBreaking    = "breaking"     // the lease is breaking
	StateBroken      = "broken"       // the lease is broken
)

// DimState, DimError and DimPrecedence are the dimensions of a coverage
// point besides the parameters.
const (
	DimState      = "state"
	DimError      = "error"
	DimPrecedence = "precedence"
)

const restBase = "https://learn.microsoft.com/rest/api/storageservices/"

var (
	condClassesWrite = []string{ClassTrue, ClassFalse, ClassStar}
	dateClasses      = []string{ClassTrue, ClassFalse, ClassEqual, ClassInvalid}
	leaseIDClasses   = []string{ClassMatch, ClassMismatch, ClassInvalid}
)

// ifTags is the Blob Index condition (x-ms-if-tags, version 2019-12-12 and
// later).
var ifTags = ParamRef{Name: "x-ms-if-tags", Classes: []string{ClassTrue, ClassFalse, ClassInvalid}, Field: "if_tags"}

// blobConds are the four conditional headers of a blob operation and its
// Blob Index condition.
func blobConds(read bool) []ParamRef {
	im := condClassesWrite
	if read {
		im = []string{ClassTrue, ClassFalse, ClassStar, ClassList}
	}
	return []ParamRef{
		{Name: "if-match", Classes: im, Field: "if_match"},
		{Name: "if-none-match", Classes: im, Field: "if_none_match"},
		{Name: "if-modified-since", Classes: dateClasses, Field: "if_modified_since"},
		{Name: "if-unmodified-since", Classes: dateClasses, Field: "if_unmodified_since"},
		ifTags,
	}
}

func leaseIDParam() ParamRef {
	return ParamRef{Name: "x-ms-lease-id", Classes: leaseIDClasses, Field: "lease_id"}
}

func containerDates(names ...string) []ParamRef {
	var out []ParamRef
	for _, n := range names {
		f := map[string]string{"if-modified-since": "if_modified_since", "if-unmodified-since": "if_unmodified_since"}[n]
		out = append(out, ParamRef{Name: n, Classes: []string{ClassTrue, ClassFalse, ClassInvalid}, Field: f})
	}
	return out
}

func params(groups ...[]ParamRef) []ParamRef {
	var out []ParamRef
	for _, g := range groups {
		out = append(out, g...)
	}
	return out
}

func one(p ParamRef) []ParamRef { return []ParamRef{p} }

// The error codes the blob pages name for concurrency paths.
var (
	blobWriteErrors = []string{"ConditionNotMet", "LeaseIdMissing", "LeaseIdMismatchWithBlobOperation", "LeaseNotPresentWithBlobOperation", "LeaseLost", "InvalidHeaderValue"}
	blobReadErrors  = []string{"ConditionNotMet", "BlobNotFound", "LeaseIdMismatchWithBlobOperation", "LeaseNotPresentWithBlobOperation", "InvalidHeaderValue"}
	blobPrecedence  = []string{"missing+if-match", "leased-other+if-match", "missing+x-ms-lease-id"}
	blobStates      = []string{StateExists, StateMissing, StateDeleted, StateLeased, StateLeasedOther, StateSnapshot}
)

// Reference is the checklist of every operation the suite covers, in the
// order the coverage map prints them.
var Reference = []OpRef{
	{Op: "blob.put", Name: "Put Blob", Page: restBase + "put-blob",
		Params: params(blobConds(false), one(leaseIDParam())), States: blobStates,
		Errors: append(append([]string{}, blobWriteErrors...), "BlobAlreadyExists"), Precedence: blobPrecedence},
	{Op: "blob.get", Name: "Get Blob", Page: restBase + "get-blob",
		Params: params(blobConds(true), one(leaseIDParam())), States: blobStates,
		Errors: blobReadErrors, Precedence: []string{"missing+if-match", "if-match+if-none-match", "if-none-match+if-modified-since", "leased-other+if-match"}},
	{Op: "blob.getprops", Name: "Get Blob Properties", Page: restBase + "get-blob-properties",
		Params: params(blobConds(true), one(leaseIDParam())), States: blobStates,
		Errors: blobReadErrors, Precedence: []string{"missing+if-match", "if-match+if-none-match", "if-none-match+if-modified-since", "leased-other+if-match"}},
	{Op: "blob.setmeta", Name: "Set Blob Metadata", Page: restBase + "set-blob-metadata",
		Params: params(blobConds(false), one(leaseIDParam())), States: blobStates,
		Errors: append(append([]string{}, blobWriteErrors...), "BlobNotFound"), Precedence: blobPrecedence},
	{Op: "blob.setprops", Name: "Set Blob Properties", Page: restBase + "set-blob-properties",
		Params: params(blobConds(false), one(leaseIDParam())), States: blobStates,
		Errors: append(append([]string{}, blobWriteErrors...), "BlobNotFound"), Precedence: blobPrecedence},
	{Op: "blob.delete", Name: "Delete Blob", Page: restBase + "delete-blob",
		Params: params(blobConds(false), one(leaseIDParam()), one(ParamRef{Name: "x-ms-delete-snapshots", Classes: []string{ClassValid, ClassInvalid}, Field: "delete_snapshots"})), States: blobStates,
		Errors: append(append([]string{}, blobWriteErrors...), "BlobNotFound", "SnapshotsPresent"), Precedence: blobPrecedence},
	{Op: "blob.snapshot", Name: "Snapshot Blob", Page: restBase + "snapshot-blob",
		Params: params(blobConds(false), one(leaseIDParam())), States: []string{StateExists, StateMissing, StateDeleted, StateLeased, StateLeasedOther},
		Errors: []string{"ConditionNotMet", "BlobNotFound", "LeaseIdMismatchWithBlobOperation", "LeaseNotPresentWithBlobOperation", "InvalidHeaderValue"}, Precedence: []string{"missing+if-match"}},
	{Op: "blob.copy", Name: "Copy Blob", Page: restBase + "copy-blob",
		Params: params(blobConds(false), one(leaseIDParam()), []ParamRef{
			{Name: "x-ms-source-if-match", Classes: []string{ClassTrue, ClassFalse}, Field: "source_if_match"},
			{Name: "x-ms-source-if-none-match", Classes: []string{ClassTrue, ClassFalse}, Field: "source_if_none_match"},
			{Name: "x-ms-source-if-modified-since", Classes: []string{ClassTrue, ClassFalse}, Field: "source_if_modified_since"},
			{Name: "x-ms-source-if-unmodified-since", Classes: []string{ClassTrue, ClassFalse}, Field: "source_if_unmodified_since"},
			{Name: "x-ms-source-if-tags", Classes: []string{ClassTrue, ClassFalse}, Field: "source_if_tags"},
			{Name: "x-ms-source-lease-id", Classes: []string{ClassMatch, ClassMismatch}, Field: "source_lease_id"},
		}),
		States:     []string{StateExists, StateMissing, StateDeleted, StateLeased, StateLeasedOther},
		Errors:     []string{"ConditionNotMet", "SourceConditionNotMet", "CannotVerifyCopySource", "LeaseIdMissing", "LeaseIdMismatchWithBlobOperation", "LeaseNotPresentWithBlobOperation", "InvalidHeaderValue"},
		Precedence: []string{"x-ms-source-if-match+if-match", "missing+if-match", "leased-other+if-match", "missing+x-ms-lease-id"}},
	{Op: "blob.abortcopy", Name: "Abort Copy Blob", Page: restBase + "abort-copy-blob",
		Params: one(leaseIDParam()), States: []string{StateExists, StateMissing, StateLeased, StateLeasedOther},
		Errors: []string{"NoPendingCopyOperation", "CopyIdMismatch", "BlobNotFound", "LeaseIdMissing", "LeaseIdMismatchWithBlobOperation", "InvalidHeaderValue"}, Precedence: []string{"leased-other+no-pending-copy"}},
	{Op: "blob.stage", Name: "Put Block", Page: restBase + "put-block",
		Params: one(leaseIDParam()), States: []string{StateExists, StateMissing, StateLeased, StateLeasedOther},
		Errors: []string{"LeaseIdMissing", "LeaseIdMismatchWithBlobOperation", "LeaseNotPresentWithBlobOperation", "InvalidBlockId", "InvalidHeaderValue"}},
	{Op: "blob.commit", Name: "Put Block List", Page: restBase + "put-block-list",
		Params: params(blobConds(false), one(leaseIDParam())), States: []string{StateExists, StateMissing, StateDeleted, StateLeased, StateLeasedOther},
		Errors: append(append([]string{}, blobWriteErrors...), "InvalidBlockList"), Precedence: blobPrecedence},
	{Op: "blob.lease.acquire", Name: "Lease Blob (acquire)", Page: restBase + "lease-blob",
		Params: params([]ParamRef{{Name: "x-ms-lease-duration", Classes: []string{ClassValid, ClassBoundary, ClassInvalid}, Field: "duration"},
			{Name: "x-ms-proposed-lease-id", Classes: []string{ClassValid, ClassInvalid}, Field: "proposed_lease_id"}}, blobConds(false)),
		States:     []string{StateExists, StateMissing, StateLeased, StateLeasedOther, StateExpired, StateBreaking, StateBroken, StateSnapshot},
		Errors:     []string{"LeaseAlreadyPresent", "LeaseIsBreakingAndCannotBeAcquired", "ConditionNotMet", "BlobNotFound", "InvalidHeaderValue"},
		Precedence: []string{"leased-other+if-match", "missing+if-match"}},
	{Op: "blob.lease.renew", Name: "Lease Blob (renew)", Page: restBase + "lease-blob",
		Params: params(one(leaseIDParam()), blobConds(false)),
		States: []string{StateExists, StateMissing, StateLeased, StateLeasedOther, StateExpired, StateBreaking, StateBroken},
		Errors: []string{"LeaseIdMismatchWithLeaseOperation", "LeaseIsBrokenAndCannotBeRenewed", "ConditionNotMet", "BlobNotFound", "InvalidHeaderValue"}},
	{Op: "blob.lease.change", Name: "Lease Blob (change)", Page: restBase + "lease-blob",
		Params: params(one(leaseIDParam()), []ParamRef{{Name: "x-ms-proposed-lease-id", Classes: []string{ClassValid, ClassInvalid}, Field: "proposed_lease_id"}}, blobConds(false)),
		States: []string{StateExists, StateMissing, StateLeased, StateLeasedOther, StateExpired, StateBreaking, StateBroken},
		Errors: []string{"LeaseIdMismatchWithLeaseOperation", "LeaseIsBreakingAndCannotBeChanged", "LeaseNotPresentWithLeaseOperation", "ConditionNotMet", "BlobNotFound", "InvalidHeaderValue"}},
	{Op: "blob.lease.release", Name: "Lease Blob (release)", Page: restBase + "lease-blob",
		Params: params(one(leaseIDParam()), blobConds(false)),
		States: []string{StateExists, StateMissing, StateLeased, StateLeasedOther, StateExpired, StateBreaking, StateBroken},
		Errors: []string{"LeaseIdMismatchWithLeaseOperation", "ConditionNotMet", "BlobNotFound", "InvalidHeaderValue"}},
	{Op: "blob.lease.break", Name: "Lease Blob (break)", Page: restBase + "lease-blob",
		Params: params([]ParamRef{{Name: "x-ms-lease-break-period", Classes: []string{ClassValid, ClassBoundary, ClassInvalid}, Field: "break_period"}}, blobConds(false)),
		States: []string{StateExists, StateMissing, StateLeased, StateExpired, StateBreaking, StateBroken},
		Errors: []string{"LeaseNotPresentWithLeaseOperation", "ConditionNotMet", "BlobNotFound", "InvalidHeaderValue"}},

	{Op: "container.create", Name: "Create Container", Page: restBase + "create-container",
		States: []string{StateExists, StateMissing, StateDeleted}, Errors: []string{"ContainerAlreadyExists"}},
	{Op: "container.delete", Name: "Delete Container", Page: restBase + "delete-container",
		Params:     params(one(leaseIDParam()), containerDates("if-modified-since", "if-unmodified-since")),
		States:     []string{StateExists, StateMissing, StateLeased, StateLeasedOther},
		Errors:     []string{"ContainerNotFound", "ConditionNotMet", "LeaseIdMissing", "LeaseIdMismatchWithContainerOperation", "LeaseNotPresentWithContainerOperation"},
		Precedence: []string{"leased-other+if-unmodified-since", "missing+x-ms-lease-id"}},
	{Op: "container.setmeta", Name: "Set Container Metadata", Page: restBase + "set-container-metadata",
		Params: params(one(leaseIDParam()), containerDates("if-modified-since")), States: []string{StateExists, StateMissing, StateLeased, StateLeasedOther},
		Errors: []string{"ContainerNotFound", "ConditionNotMet", "LeaseIdMismatchWithContainerOperation", "LeaseNotPresentWithContainerOperation"}},
	{Op: "container.setacl", Name: "Set Container ACL", Page: restBase + "set-container-acl",
		Params: params(one(leaseIDParam()), containerDates("if-modified-since", "if-unmodified-since")), States: []string{StateExists, StateMissing, StateLeased, StateLeasedOther},
		Errors: []string{"ContainerNotFound", "ConditionNotMet", "LeaseIdMismatchWithContainerOperation", "LeaseNotPresentWithContainerOperation"}},
	{Op: "container.lease.acquire", Name: "Lease Container (acquire)", Page: restBase + "lease-container",
		Params: params([]ParamRef{{Name: "x-ms-lease-duration", Classes: []string{ClassValid, ClassBoundary, ClassInvalid}, Field: "duration"},
			{Name: "x-ms-proposed-lease-id", Classes: []string{ClassValid, ClassInvalid}, Field: "proposed_lease_id"}}, containerDates("if-modified-since", "if-unmodified-since")),
		States: []string{StateExists, StateMissing, StateLeased, StateLeasedOther, StateBreaking, StateBroken},
		Errors: []string{"ContainerNotFound", "LeaseAlreadyPresent", "LeaseIsBreakingAndCannotBeAcquired", "ConditionNotMet", "InvalidHeaderValue"}},
	{Op: "container.lease.renew", Name: "Lease Container (renew)", Page: restBase + "lease-container",
		Params: params(one(leaseIDParam()), containerDates("if-modified-since", "if-unmodified-since")),
		States: []string{StateLeased, StateLeasedOther, StateExists, StateBroken}, Errors: []string{"LeaseIdMismatchWithLeaseOperation", "LeaseIsBrokenAndCannotBeRenewed"}},
	{Op: "container.lease.change", Name: "Lease Container (change)", Page: restBase + "lease-container",
		Params: params(one(leaseIDParam()), []ParamRef{{Name: "x-ms-proposed-lease-id", Classes: []string{ClassValid, ClassInvalid}, Field: "proposed_lease_id"}}),
		States: []string{StateLeased, StateLeasedOther, StateExists}, Errors: []string{"LeaseIdMismatchWithLeaseOperation", "LeaseNotPresentWithLeaseOperation"}},
	{Op: "container.lease.release", Name: "Lease Container (release)", Page: restBase + "lease-container",
		Params: one(leaseIDParam()), States: []string{StateLeased, StateLeasedOther, StateExists}, Errors: []string{"LeaseIdMismatchWithLeaseOperation"}},
	{Op: "container.lease.break", Name: "Lease Container (break)", Page: restBase + "lease-container",
		Params: []ParamRef{{Name: "x-ms-lease-break-period", Classes: []string{ClassValid, ClassBoundary, ClassInvalid}, Field: "break_period"}},
		States: []string{StateLeased, StateExists, StateBroken}, Errors: []string{"LeaseNotPresentWithLeaseOperation"}},

	{Op: "table.insert", Name: "Insert Entity", Page: restBase + "insert-entity",
		States: []string{StateExists, StateMissing, StateDeleted}, Errors: []string{"EntityAlreadyExists", "TableNotFound"}},
	{Op: "table.update", Name: "Update Entity", Page: restBase + "update-entity2",
		Params:     []ParamRef{{Name: "if-match", Classes: []string{ClassTrue, ClassFalse, ClassStar, ClassAbsent, ClassInvalid}, Field: "if_match"}},
		States:     []string{StateExists, StateMissing, StateDeleted},
		Errors:     []string{"UpdateConditionNotSatisfied", "ResourceNotFound", "TableNotFound"},
		Precedence: []string{"missing+if-match"}},
	{Op: "table.merge", Name: "Merge Entity", Page: restBase + "merge-entity",
		Params:     []ParamRef{{Name: "if-match", Classes: []string{ClassTrue, ClassFalse, ClassStar, ClassAbsent, ClassInvalid}, Field: "if_match"}},
		States:     []string{StateExists, StateMissing, StateDeleted},
		Errors:     []string{"UpdateConditionNotSatisfied", "ResourceNotFound", "TableNotFound"},
		Precedence: []string{"missing+if-match"}},
	{Op: "table.delete", Name: "Delete Entity", Page: restBase + "delete-entity1",
		Params:     []ParamRef{{Name: "if-match", Classes: []string{ClassTrue, ClassFalse, ClassStar, ClassInvalid}, Field: "if_match"}},
		States:     []string{StateExists, StateMissing, StateDeleted},
		Errors:     []string{"UpdateConditionNotSatisfied", "ResourceNotFound", "TableNotFound"},
		Precedence: []string{"missing+if-match"}},
	{Op: "table.upsert", Name: "Insert Or Replace Entity", Page: restBase + "insert-or-replace-entity",
		States: []string{StateExists, StateMissing}, Errors: []string{"TableNotFound"}},
	{Op: "table.upsert-merge", Name: "Insert Or Merge Entity", Page: restBase + "insert-or-merge-entity",
		States: []string{StateExists, StateMissing}, Errors: []string{"TableNotFound"}},
	{Op: "table.batch", Name: "Performing entity group transactions", Page: restBase + "performing-entity-group-transactions",
		Params: []ParamRef{{Name: "operations", Classes: []string{ClassValid, ClassBoundary, ClassInvalid}, Field: "actions"},
			{Name: "payload", Classes: []string{ClassBoundary, ClassInvalid}, Field: "actions"},
			{Name: "if-match", Classes: []string{ClassTrue, ClassFalse, ClassStar}, Field: "actions"}},
		States:     []string{StateExists, StateMissing},
		Errors:     []string{"InvalidInput", "CommandsInBatchActOnDifferentPartitions", "InvalidDuplicateRow", "RequestBodyTooLarge", "EntityAlreadyExists", "UpdateConditionNotSatisfied", "ResourceNotFound"},
		Precedence: []string{"two-failing-operations"}},

	{Op: "queue.put", Name: "Put Message", Page: restBase + "put-message",
		Params: []ParamRef{{Name: "visibilitytimeout", Classes: []string{ClassValid, ClassBoundary, ClassInvalid}, Field: "visibility"},
			{Name: "messagettl", Classes: []string{ClassValid, ClassBoundary, ClassInvalid}, Field: "ttl"},
			{Name: "message-size", Classes: []string{ClassBoundary, ClassInvalid}, Field: "text_repeat"}},
		States: []string{StateExists, StateMissing}, Errors: []string{"QueueNotFound", "OutOfRangeQueryParameterValue"}},
	{Op: "queue.get", Name: "Get Messages", Page: restBase + "get-messages",
		Params: []ParamRef{{Name: "numofmessages", Classes: []string{ClassValid, ClassBoundary, ClassInvalid}, Field: "num_messages"},
			{Name: "visibilitytimeout", Classes: []string{ClassValid, ClassBoundary, ClassInvalid}, Field: "visibility"}},
		States: []string{StateExists, StateMissing}, Errors: []string{"QueueNotFound", "OutOfRangeQueryParameterValue"}},
	{Op: "queue.peek", Name: "Peek Messages", Page: restBase + "peek-messages",
		Params: []ParamRef{{Name: "numofmessages", Classes: []string{ClassValid, ClassBoundary, ClassInvalid}, Field: "num_messages"}},
		States: []string{StateExists, StateMissing}, Errors: []string{"QueueNotFound", "OutOfRangeQueryParameterValue"}},
	{Op: "queue.update", Name: "Update Message", Page: restBase + "update-message",
		Params: []ParamRef{{Name: "popreceipt", Classes: []string{ClassMatch, ClassMismatch, ClassInvalid}, Field: "pop_receipt"},
			{Name: "visibilitytimeout", Classes: []string{ClassValid, ClassBoundary, ClassInvalid}, Field: "visibility"}},
		States: []string{StateExists, StateMissing, StateDeleted}, Errors: []string{"MessageNotFound", "QueueNotFound", "OutOfRangeQueryParameterValue", "InvalidQueryParameterValue", "PopReceiptMismatch"},
		Precedence: []string{"deleted+popreceipt"}},
	{Op: "queue.delete", Name: "Delete Message", Page: restBase + "delete-message2",
		Params: []ParamRef{{Name: "popreceipt", Classes: []string{ClassMatch, ClassMismatch, ClassInvalid}, Field: "pop_receipt"}},
		States: []string{StateExists, StateMissing, StateDeleted}, Errors: []string{"MessageNotFound", "QueueNotFound", "InvalidQueryParameterValue", "PopReceiptMismatch"}},
}

// RefFor returns the checklist of op, nil if the reference has none.
func RefFor(op string) *OpRef {
	for i := range Reference {
		if Reference[i].Op == op {
			return &Reference[i]
		}
	}
	return nil
}
