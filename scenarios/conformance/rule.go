package conformance

import "time"

// RuleSet is every rule of a directory of rule files, in file order.
type RuleSet struct {
	// Rules are in the order of their files (sorted by name), then of
	// their place in the file.
	Rules []Rule
}

// Rule is one conformance rule: a script of steps run in a fresh
// container, table or queue, each checked against the documented
// behaviour.
type Rule struct {
	// ID is unique across all files: [a-z0-9][a-z0-9.-]*.
	ID string
	// Title says in one line what the rule checks.
	Title string
	// Source is the one-line form of Evidence.
	Source string
	// Evidence names where the rule's expectations come from (a step's
	// own Evidence replaces it for that step).
	Evidence Source
	// Tags are the service (blob, container, table or queue) first, then
	// features; a rule that waits longer than 5s carries "slow".
	Tags []string
	// Steps run in order.
	Steps []Step
	// Covers are the points of the REST reference checklist (Reference)
	// the rule covers; the coverage map is made from them.
	Covers []Cover
	// File is the file the rule was read from.
	File string
	// Line and Col locate the rule's id in File.
	Line, Col int
}

// Step is one operation of a rule and what its response must be. Which
// fields an op takes is in Ops; a field not written is its zero value
// (nil for pointers).
type Step struct {
	// Op is one of the keys of Ops.
	Op string
	// Blob is the alias of the blob the op acts on.
	Blob string
	// File is the alias of the file a file op acts on (in the root of the
	// rule's own share).
	File string
	// IfTags and SourceIfTags are Blob Index conditions (x-ms-if-tags,
	// x-ms-source-if-tags: a SQL-like expression over the blob's tags).
	IfTags, SourceIfTags *Value
	// BlobTags are the tags Put Blob sets (x-ms-tags, "k=v&k2=v2").
	BlobTags *string
	// SourceLeaseID is Copy Blob's x-ms-source-lease-id.
	SourceLeaseID *Value
	// DeleteSnapshots is Delete Blob's x-ms-delete-snapshots (include,
	// only; other values test that the service refuses them).
	DeleteSnapshots *string
	// TTL is Put Message's messagettl in seconds (-1: never expires); nil
	// sends none. Not range-checked.
	TTL *int
	// TextRepeat repeats Text this many times in Put Message (to reach the
	// 64 KiB limit of a message); 0 sends Text once.
	TextRepeat int
	// Snapshot addresses a snapshot of the blob (a captured snapshot, or a
	// literal to test a malformed one); nil addresses the base blob.
	Snapshot *Value
	// Container is the alias of the container; "" means the rule's own.
	Container string
	// Source is the alias of the source blob of blob.copy.
	Source string
	// Body is the content written (blob.put, blob.stage, blob.append).
	Body *string
	// BodyBytes, when above 0, is the size of a generated body of Append
	// Block (to test its limit on a block's size) instead of Body.
	BodyBytes int64
	// AppendPos and MaxSize are Append Block's (and Seal's) conditions
	// x-ms-blob-condition-appendpos and -maxsize; nil sends none. Not
	// range-checked: rules test that the service refuses a negative one.
	AppendPos, MaxSize *int64
	// Metadata is the metadata written.
	Metadata map[string]string
	// Table is the alias of the table a table op acts on ([a-z0-9]+, table
	// names allow only letters and digits); "" means the rule's own table.
	Table string
	// Partition is the entity's PartitionKey (table entity ops), or the
	// partition table.query reads and every table.batch action writes
	// unless the action overrides it; nil means the default "p" (and, for
	// table.query, the whole table).
	Partition *string
	// Row is the entity's RowKey (table entity ops).
	Row string
	// Properties are the entity's string properties written by an insert,
	// update, merge or upsert (besides PartitionKey and RowKey).
	Properties map[string]string
	// Actions are the operations of a table.batch, in order, with Count
	// expanded (an action with Count n is n actions).
	Actions []BatchAction
	// Queue is the alias of the queue a queue op acts on; "" means the
	// rule's own queue.
	Queue string
	// Text is the message text of queue.put and queue.update.
	Text *string
	// Count is how many messages queue.put puts (default 1), one request
	// each, all with Text; the step is judged on the last answer, or the
	// first that is not 201.
	Count int
	// NumMessages is the numofmessages of queue.get and queue.peek; nil
	// sends none. Not range-checked: rules test that 0 and 33 are refused.
	NumMessages *int
	// Visibility is the visibilitytimeout in seconds of queue.put,
	// queue.get and queue.update; nil sends none. Not range-checked.
	Visibility *int
	// MessageID and PopReceipt name the message of queue.update and
	// queue.delete (literals or captured message_id / pop_receipt).
	MessageID, PopReceipt *Value
	// IfMatch and IfNoneMatch are ETag conditions (literal, "*" or $var).
	IfMatch, IfNoneMatch *Value
	// IfModifiedSince and IfUnmodifiedSince are date conditions.
	IfModifiedSince, IfUnmodifiedSince *Value
	// SourceIfMatch and SourceIfNoneMatch are the ETag conditions on the
	// source blob of blob.copy (x-ms-source-if-match, -none-match).
	SourceIfMatch, SourceIfNoneMatch *Value
	// SourceIfModifiedSince and SourceIfUnmodifiedSince are the date
	// conditions on the source blob of blob.copy.
	SourceIfModifiedSince, SourceIfUnmodifiedSince *Value
	// LeaseID is the x-ms-lease-id sent.
	LeaseID *Value
	// ProposedLeaseID is the x-ms-proposed-lease-id sent.
	ProposedLeaseID *Value
	// Duration is the lease duration in seconds of a lease acquire. It is
	// not range-checked: rules test that the service refuses bad ones.
	Duration *int
	// Wait is how long a wait step sleeps, at least: the runner may take
	// longer to resume the rule (it gives the rule's place to others while
	// it sleeps), so a rule can rely on a wait as a lower bound only.
	Wait time.Duration
	// BreakPeriod is the break period in seconds of a lease break.
	BreakPeriod *int
	// BlockID is the block id of blob.stage.
	BlockID string
	// Blocks are the block ids blob.commit commits, in order.
	Blocks []string
	// CopyID is the copy id blob.abortcopy aborts (literal or a captured
	// copy_id).
	CopyID *Value
	// Page holds the fields of the page-blob ops (blob.page.*).
	Page PageFields
	// Capture maps a capturable response value (see Capturable) to the
	// variable name later steps use as $name.
	Capture map[string]string
	// Evidence, when set, is where this step's expectation comes from,
	// in place of the rule's source.
	Evidence *Source
	// Raw is the request a raw step (op RawOp) sends; nil for other ops.
	Raw *RawRequest
	// Expect is what the response must be; zero for wait.
	Expect Expect
	// Line is the line of the step in the rule's file.
	Line int
}

// BatchAction is one operation of an entity group transaction
// (table.batch).
type BatchAction struct {
	// Kind is insert, update, merge, upsert, upsert-merge or delete.
	Kind string
	// Row is the entity's RowKey.
	Row string
	// Partition overrides the batch's partition for this action (to test
	// that a transaction spanning two partitions is refused); nil keeps it.
	Partition *string
	// Pad adds this many bytes of padding properties to the entity (to
	// test the 4 MiB limit on a transaction's payload).
	Pad int
	// Properties are the entity's string properties.
	Properties map[string]string
	// IfMatch is the action's If-Match (update, merge, delete); nil sends
	// none for update and merge (an upsert, as the REST reference says)
	// and is refused for delete, which requires it.
	IfMatch *Value
}

// ActionKinds are the kinds of a table.batch action.
var ActionKinds = []string{"insert", "update", "merge", "upsert", "upsert-merge", "delete"}

// Expect is what a step's response must be.
type Expect struct {
	// Status is the allowed HTTP status codes (at least one).
	Status []int
	// Parts are the statuses of a raw batch's response parts, in order
	// (table.raw with parts); nil means not checked.
	Parts []int
	// ErrorCode is the allowed x-ms-error-code values; empty means not
	// checked.
	ErrorCode []string
	// ETag is what the response ETag must be.
	ETag ETagExpect
	// HeadersPresent names headers the response must carry.
	HeadersPresent []string
	// HeadersAbsent names headers the response must not carry.
	HeadersAbsent []string
	// Headers are response headers that must have the given values
	// (names compare case-insensitively, values exactly).
	Headers []RawParam
	// Body is the expected response body; nil means not checked.
	Body *string
	// Messages is how many messages queue.get or queue.peek returns.
	Messages *int
	// DequeueCount is the dequeue count of the first message returned.
	DequeueCount *int
	// Text is the text of the first message returned.
	Text *string
	// MessageID compares the first message's id with a captured one.
	MessageID RefExpect
	// PopReceipt compares the pop receipt of the first message returned
	// (queue.get) or of the update (queue.update) with a captured one.
	PopReceipt RefExpect
	// NextVisibleIn is how many seconds after the response's Date the
	// message becomes visible (its time-next-visible), give or take a
	// second (both have one-second precision).
	NextVisibleIn *int
	// Properties are exactly the string properties the entity read by
	// table.get holds besides PartitionKey, RowKey and Timestamp; nil
	// means not checked.
	Properties map[string]string
	// Entities is how many entities table.query returns.
	Entities *int
	// FailedIndex is the index (from 0) of the failed operation of a
	// table.batch, which the error message begins with.
	FailedIndex *int
}

// RefExpect compares a response value with a captured one.
type RefExpect struct {
	// Kind is "" (not checked), ETagEquals or ETagDiffers.
	Kind string
	// Var names the captured variable.
	Var string
}

// ETagExpect is what a response ETag must be.
type ETagExpect struct {
	// Kind is ETagAny, ETagChanged, ETagUnchanged, ETagEquals or ETagDiffers.
	Kind string
	// Var names the captured etag for ETagEquals and ETagDiffers.
	Var string
}

// The kinds of ETagExpect.
const (
	// ETagAny means the ETag is not checked.
	ETagAny = ""
	// ETagChanged means the ETag differs from the previous observed ETag
	// of the same resource.
	ETagChanged = "changed"
	// ETagUnchanged means the ETag equals the previous observed ETag of
	// the same resource.
	ETagUnchanged = "unchanged"
	// ETagEquals means the ETag equals the captured variable Var.
	ETagEquals = "equals"
	// ETagDiffers means the ETag differs from the captured variable Var.
	ETagDiffers = "differs"
)

// Value is a step field that may reference a capture. Exactly one of
// Literal (with Ref == "" and !Now), Ref or Now is set; Offset applies to
// Ref and Now in date fields ($now+1h, $lm-1s).
type Value struct {
	// Literal is the value as written, when it is not a reference.
	Literal string
	// Ref is the captured variable referenced, without the $.
	Ref string
	// Offset is added to a date reference.
	Offset time.Duration
	// Now means the time the step runs ($now).
	Now bool
	// List holds the values of a comma-separated list of ETags (then the
	// other fields are zero).
	List []*Value
}
