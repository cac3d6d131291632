// Package checks holds the history types every part of stormcheck shares and
// the checkers that decide, from a recorded history alone, whether the service
// kept its documented promises. It is pure: no network, no clock, no SDK.
package checks

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Outcome classifies one attempt the way a checker needs it: a lost race is
// not an error, and a timed-out write may or may not have been applied.
type Outcome uint8

const (
	// OK: the service answered with success.
	OK Outcome = iota
	// Conflict: the race was lost as documented (412 on a stale If-Match,
	// 409 BlobAlreadyExists or a lease conflict, 404 on a stale pop receipt).
	Conflict
	// Throttled: 503 ServerBusy or 500 OperationTimeout.
	Throttled
	// Error: any other failure that certainly did not apply the operation
	// (a 4xx the workload did not expect, a refused connection).
	Error
	// Unknown: the request may have been applied (timeout or connection
	// lost after sending). Checkers must treat it as "maybe".
	Unknown
	numOutcomes
)

// Outcomes lists every outcome in display order.
var Outcomes = []Outcome{OK, Conflict, Throttled, Error, Unknown}

var outcomeNames = [...]string{"ok", "conflict", "throttled", "error", "unknown"}

// String returns the lower-case name used in files and reports.
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return fmt.Sprintf("outcome(%d)", uint8(o))
}

// ParseOutcome is the inverse of String.
func ParseOutcome(s string) (Outcome, error) {
	for i, n := range outcomeNames {
		if n == s {
			return Outcome(i), nil
		}
	}
	return 0, fmt.Errorf("unknown outcome %q (allowed: ok, conflict, throttled, error, unknown)", s)
}

// MarshalText writes the outcome's name.
func (o Outcome) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText reads an outcome's name.
func (o *Outcome) UnmarshalText(b []byte) error {
	v, err := ParseOutcome(string(b))
	if err != nil {
		return err
	}
	*o = v
	return nil
}

// Actor ids below zero are the harness itself, not a workload actor.
const (
	// ActorSetup marks operations that prepare keys before the load starts.
	ActorSetup = -1
	// ActorFinal marks the quiet read of every key after the load stops.
	ActorFinal = -2
)

// Input is what one attempt asked for. Fields that do not apply stay empty.
type Input struct {
	// IfMatch is the ETag condition sent ("*" for any), empty for none.
	IfMatch string `json:"if_match,omitempty"`
	// IfNoneMatch is the negative ETag condition ("*" means "must not exist").
	IfNoneMatch string `json:"if_none_match,omitempty"`
	// IfModifiedSince and IfUnmodifiedSince are the date conditions sent,
	// in HTTP date format (RFC 1123, second precision).
	IfModifiedSince   string `json:"if_modified_since,omitempty"`
	IfUnmodifiedSince string `json:"if_unmodified_since,omitempty"`
	// LeaseID is the lease id sent with the request (x-ms-lease-id); for a
	// lease acquire, the proposed id.
	LeaseID string `json:"lease_id,omitempty"`
	// ProposedLeaseID is the new id a lease change asks for.
	ProposedLeaseID string `json:"proposed_lease_id,omitempty"`
	// LeaseDuration is an acquire's duration in seconds (-1: infinite).
	LeaseDuration int `json:"lease_duration,omitempty"`
	// BreakPeriod is a break's period in seconds; nil when none was sent.
	BreakPeriod *int `json:"break_period,omitempty"`
	// Value is what a write tried to store. Every write stores a value no
	// other write stores, so a read maps to exactly one write. For a table
	// batch it is the batch's stamp, written to every row of the batch; for
	// a queue put or update, the message text.
	Value string `json:"value,omitempty"`
	// AppendPos and MaxSize are an Append Block's conditions
	// (x-ms-blob-condition-appendpos, x-ms-blob-condition-maxsize); nil
	// when not sent.
	AppendPos *int64 `json:"append_pos,omitempty"`
	MaxSize   *int64 `json:"max_size,omitempty"`
	// Props names the entity properties a table write set to Value (a
	// merge sets only these; a replace leaves only these).
	Props []string `json:"props,omitempty"`
	// Rows are the row keys a table batch writes, one operation each, in
	// the partition Key.
	Rows []string `json:"rows,omitempty"`
	// BatchFails names the row whose operation is built to fail, making
	// the whole batch fail (table.batch); empty for a batch meant to commit.
	BatchFails string `json:"batch_fails,omitempty"`
	// MessageID and PopReceipt address a queue message (update, delete).
	MessageID  string `json:"message_id,omitempty"`
	PopReceipt string `json:"pop_receipt,omitempty"`
	// Visibility is a queue call's visibility timeout in seconds: how long
	// a dequeued or updated message stays invisible; nil when not sent.
	Visibility *int `json:"visibility,omitempty"`
	// NumMessages is how many messages a queue get asked for (1 to 32).
	NumMessages int `json:"num_messages,omitempty"`
	// Filter and Select describe a table query (OData $filter, $select).
	Filter string   `json:"filter,omitempty"`
	Select []string `json:"select,omitempty"`
	// Bytes is the size of the request body that went on the wire.
	Bytes int64 `json:"bytes,omitempty"`
	// Access and Share are an SMB open's desired access and share access
	// masks (MS-SMB2 2.2.13: FILE_READ_DATA 0x1, FILE_WRITE_DATA 0x2,
	// DELETE 0x10000...; FILE_SHARE_READ 1, WRITE 2, DELETE 4).
	Access int `json:"access,omitempty"`
	Share  int `json:"share,omitempty"`
	// Disposition and Flags are an SMB open's create disposition and
	// create options (2.2.13: FILE_OPEN 1, FILE_OPEN_IF 3...;
	// FILE_DELETE_ON_CLOSE 0x1000); for a byte-range lock, Flags are the
	// lock's flags (2.2.26.1: shared 1, exclusive 2, unlock 4,
	// fail immediately 0x10).
	Disposition int `json:"disposition,omitempty"`
	Flags       int `json:"flags,omitempty"`
	// Offset and Length are the byte range of an SMB lock, read or write.
	Offset int64 `json:"offset,omitempty"`
	Length int64 `json:"length,omitempty"`
}

// Message is one queue message a get returned.
type Message struct {
	ID           string `json:"id"`
	PopReceipt   string `json:"pop_receipt,omitempty"`
	DequeueCount int64  `json:"dequeue_count,omitempty"`
	// NextVisible is the service's time-next-visible (HTTP date).
	NextVisible string `json:"next_visible,omitempty"`
	Text        string `json:"text,omitempty"`
}

// Entity is one table entity a query page returned.
type Entity struct {
	Partition string `json:"pk,omitempty"`
	Row       string `json:"rk"`
	ETag      string `json:"etag,omitempty"`
	// Value is the stamp property (the writer's Value).
	Value string `json:"value,omitempty"`
}

// Output is what the service answered. Empty for an attempt with no response.
type Output struct {
	Status    int    `json:"status,omitempty"`
	ErrorCode string `json:"error_code,omitempty"`
	ETag      string `json:"etag,omitempty"`
	RequestID string `json:"request_id,omitempty"`
	// Value is what a read returned; for a lease acquire or change, the
	// lease id the service returned.
	Value string `json:"value,omitempty"`
	// LastModified is the Last-Modified header (HTTP date), if any.
	LastModified string `json:"last_modified,omitempty"`
	// AppendOffset is an Append Block's x-ms-blob-append-offset: the
	// offset at which the service says the block was appended.
	AppendOffset *int64 `json:"append_offset,omitempty"`
	// LeaseTime is a lease break's x-ms-lease-time: seconds until the
	// lease is broken.
	LeaseTime *int `json:"lease_time,omitempty"`
	// Props is what a table read returned: property name to value, for
	// the properties stormcheck writes (system properties left out).
	Props map[string]string `json:"props,omitempty"`
	// Entities is one page of a table query, in the order returned.
	Entities []Entity `json:"entities,omitempty"`
	// Scanned is how many entities the service had to read to answer a
	// table query (known from the workload's layout: a point query scans
	// one, a partition query its partition, a table scan every entity).
	Scanned int `json:"scanned,omitempty"`
	// Messages are the queue messages a get returned (possibly none).
	Messages []Message `json:"messages,omitempty"`
	// MessageID is a queue put's new message id; PopReceipt the receipt a
	// put or update returned; NextVisible its time-next-visible.
	MessageID   string `json:"message_id,omitempty"`
	PopReceipt  string `json:"pop_receipt,omitempty"`
	NextVisible string `json:"next_visible,omitempty"`
	// Bytes is the size of the response body the client read.
	Bytes int64 `json:"bytes,omitempty"`
	// Err is the client-side error text for attempts without a response.
	Err string `json:"err,omitempty"`
	// Fault names the injected fault that touched this attempt's answer,
	// "NAME (KIND)", when a scenario's faults did (see runner/faults).
	Fault string `json:"fault,omitempty"`
	// Done marks an attempt of unknown outcome that the target ended
	// itself, with an answer or by closing the connection, where the
	// target is one that no longer acts on a request once it has (a
	// managed Azurite, behind stormcheck's own fault proxies): whatever it
	// did, it did before Return. Never set for an attempt the client gave
	// up on (a timeout), nor against other targets.
	Done bool `json:"done,omitempty"`
}

// Op is one recorded attempt: one call to the service, with its timing and
// outcome. Times are nanoseconds since the run started, from a monotonic
// clock. Retries are separate Ops with Attempt > 1.
type Op struct {
	// Seq orders records as they were written; unique within a history.
	Seq uint64 `json:"seq"`
	// Actor is the workload actor (0..N-1), or ActorSetup / ActorFinal.
	Actor int `json:"actor"`
	// Workload names the scenario workload that issued the call.
	Workload string `json:"workload"`
	// Kind is the operation, e.g. "blob.get", "blob.put", "blob.create".
	Kind string `json:"op"`
	// Key is the resource the call addressed (a blob name, an entity key).
	Key string `json:"key"`
	// Attempt counts tries of one logical operation, from 1.
	Attempt int `json:"attempt"`
	// Intended is when the operation was scheduled to start; for a closed
	// loop it equals the first attempt's Call.
	Intended int64 `json:"intended_ns"`
	// Call is when the request was handed to the client.
	Call int64 `json:"call_ns"`
	// Return is when the response (or the error) came back.
	Return  int64   `json:"return_ns"`
	Outcome Outcome `json:"outcome"`
	In      Input   `json:"in"`
	Out     Output  `json:"out"`
}

// Latency is the time from call to return (the uncorrected figure).
func (o *Op) Latency() int64 { return o.Return - o.Call }

// CorrectedLatency is the time from the intended start to return, which
// counts the time an operation waited because the harness fell behind.
func (o *Op) CorrectedLatency() int64 { return o.Return - o.Intended }

// IsHarness reports whether the harness itself issued the call.
func (o *Op) IsHarness() bool { return o.Actor < 0 }

// String renders one line for reports and violation excerpts.
func (o *Op) String() string {
	who := fmt.Sprintf("actor %d", o.Actor)
	switch o.Actor {
	case ActorSetup:
		who = "setup"
	case ActorFinal:
		who = "final"
	}
	s := fmt.Sprintf("#%d %s %s %s", o.Seq, who, o.Kind, o.Key)
	if o.In.IfMatch != "" {
		s += " if-match=" + o.In.IfMatch
	}
	if o.In.IfNoneMatch != "" {
		s += " if-none-match=" + o.In.IfNoneMatch
	}
	if o.In.LeaseID != "" {
		s += " lease=" + o.In.LeaseID
	}
	if o.In.Value != "" {
		s += fmt.Sprintf(" write=%q", ShortValue(o.In.Value))
	}
	if len(o.In.Props) > 0 {
		s += " props=" + strings.Join(o.In.Props, ",")
	}
	if len(o.In.Rows) > 0 {
		s += fmt.Sprintf(" rows=%d", len(o.In.Rows))
		if o.In.BatchFails != "" {
			s += " fails=" + o.In.BatchFails
		}
	}
	if o.In.AppendPos != nil {
		s += fmt.Sprintf(" appendpos=%d", *o.In.AppendPos)
	}
	if o.In.MaxSize != nil {
		s += fmt.Sprintf(" maxsize=%d", *o.In.MaxSize)
	}
	if o.In.MessageID != "" {
		s += " msg=" + o.In.MessageID
	}
	if o.In.PopReceipt != "" {
		s += " receipt=" + o.In.PopReceipt
	}
	if o.In.Visibility != nil {
		s += fmt.Sprintf(" vis=%ds", *o.In.Visibility)
	}
	s += " -> " + o.Outcome.String()
	if o.Out.Status != 0 {
		s += fmt.Sprintf(" %d", o.Out.Status)
	}
	if o.Out.ErrorCode != "" {
		s += " " + o.Out.ErrorCode
	}
	if o.Out.ETag != "" {
		s += " etag=" + o.Out.ETag
	}
	if o.Out.Value != "" {
		s += fmt.Sprintf(" read=%q", ShortValue(o.Out.Value))
	}
	if len(o.Out.Props) > 0 {
		s += " read=" + formatProps(o.Out.Props)
	}
	if o.Out.AppendOffset != nil {
		s += fmt.Sprintf(" offset=%d", *o.Out.AppendOffset)
	}
	if o.Out.MessageID != "" {
		s += " msg=" + o.Out.MessageID
	}
	if o.Out.PopReceipt != "" {
		s += " receipt=" + o.Out.PopReceipt
	}
	if o.Kind == KindQueueGet || o.Kind == KindQueuePeek || len(o.Out.Messages) > 0 {
		s += fmt.Sprintf(" messages=%d", len(o.Out.Messages))
		for i, m := range o.Out.Messages {
			if i == 3 {
				s += " ..."
				break
			}
			s += fmt.Sprintf(" [%s #%d receipt=%s]", m.ID, m.DequeueCount, m.PopReceipt)
		}
	}
	if len(o.Out.Entities) > 0 {
		s += fmt.Sprintf(" entities=%d", len(o.Out.Entities))
	}
	if o.Out.Err != "" {
		s += " (" + o.Out.Err + ")"
	}
	if o.Out.Fault != "" {
		s += " {fault " + o.Out.Fault + "}"
	}
	return s + fmt.Sprintf(" [%.3fms..%.3fms]", float64(o.Call)/1e6, float64(o.Return)/1e6)
}

// MarshalJSONLine encodes the op as one line of a history file.
func (o *Op) MarshalJSONLine() ([]byte, error) {
	b, err := json.Marshal(o)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// formatProps writes entity properties in name order: {p0=a1-3 p2=a4-1}.
func formatProps(m map[string]string) string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = k + "=" + m[k]
	}
	return "{" + strings.Join(parts, " ") + "}"
}
