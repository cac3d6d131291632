package conformance

import (
	"slices"
	"strings"
)

// OpSpec says which step fields an op takes.
type OpSpec struct {
	// Fields are the fields the op takes besides op, in documentation
	// order; any other field is an error.
	Fields []string
	// Required are the fields the op must have.
	Required []string
}

// stepFields are all step fields, in documentation order.
var stepFields = []string{"op", "blob", "container", "source", "file", "body", "metadata",
	"table", "partition", "row", "properties", "actions",
	"queue", "text", "count", "num_messages", "visibility", "message_id", "pop_receipt",
	"if_match", "if_none_match", "if_modified_since", "if_unmodified_since",
	"source_if_match", "source_if_none_match", "source_if_modified_since", "source_if_unmodified_since",
	"lease_id", "proposed_lease_id", "duration", "break_period", "block_id", "blocks", "copy_id",
	"if_tags", "blob_tags", "source_if_tags", "source_lease_id", "delete_snapshots", "ttl", "text_repeat",
	"append_pos", "max_size", "body_bytes",
	"size", "offset", "length", "sequence_number", "sequence_number_action",
	"if_sequence_number_le", "if_sequence_number_lt", "if_sequence_number_eq", "prev_snapshot",
	"snapshot", "request", "evidence", "capture", "expect"}

// Capturable are the response values a step may capture.
var Capturable = []string{"etag", "lease_id", "last_modified", "pop_receipt", "request_id", "copy_id",
	"message_id", "next_visible", "snapshot"}

// messageCaptures are the capturables only a queue op returning a message
// has (queue.put, queue.get: the first message; queue.update).
var messageCaptures = []string{"message_id", "pop_receipt", "next_visible"}

// messageOps are the queue ops whose response carries a message's id, pop
// receipt or time-next-visible.
var messageOps = []string{"queue.put", "queue.get", "queue.update"}

// Ops are the step ops and the fields each takes.
var Ops = map[string]OpSpec{
	"blob.put":           blobOp("snapshot", "body", "metadata", "blob_tags", "lease_id", etagConds, dateConds),
	"blob.get":           blobOp("snapshot", "lease_id", etagConds, dateConds),
	"blob.getprops":      blobOp("snapshot", "lease_id", etagConds, dateConds),
	"blob.setmeta":       blobOp("snapshot", "metadata", "lease_id", etagConds, dateConds),
	"blob.setprops":      blobOp("snapshot", "lease_id", etagConds, dateConds),
	"blob.delete":        blobOp("snapshot", "lease_id", "delete_snapshots", etagConds, dateConds),
	"blob.snapshot":      blobOp("metadata", "lease_id", etagConds, dateConds),
	"blob.copy":          require(blobOp("source", "metadata", "lease_id", "source_lease_id", etagConds, dateConds, sourceConds), "source"),
	"blob.abortcopy":     require(blobOp("copy_id", "lease_id"), "copy_id"),
	"blob.stage":         require(blobOp("block_id", "body", "lease_id"), "block_id"),
	"blob.commit":        require(blobOp("blocks", "metadata", "lease_id", etagConds, dateConds), "blocks"),
	"blob.lease.acquire": blobOp("snapshot", "duration", "proposed_lease_id", etagConds, dateConds),
	"blob.lease.renew":   blobOp("lease_id", etagConds, dateConds),
	"blob.lease.change":  blobOp("lease_id", "proposed_lease_id", etagConds, dateConds),
	"blob.lease.release": blobOp("lease_id", etagConds, dateConds),
	"blob.lease.break":   blobOp("break_period", etagConds, dateConds),

	// Append blobs: Put Blob with x-ms-blob-type AppendBlob, Append Block
	// (body, or body_bytes of generated content; append_pos and max_size
	// are x-ms-blob-condition-appendpos and -maxsize), Seal Append Blob.
	"blob.append.create": blobOp("metadata", "lease_id", etagConds, dateConds),
	"blob.append":        blobOp("body", "body_bytes", "append_pos", "max_size", "lease_id", etagConds, dateConds),
	"blob.append.seal":   blobOp("append_pos", "lease_id", etagConds, dateConds),
	// Page-blob ops (pages.go): Put Blob of a page blob, Put Page (update
	// and clear), Get Page Ranges, Set Blob Properties with a
	// sequence-number action or a new size, Get Blob Properties (its
	// sequence number and size as the body).
	"blob.page.create":   require(pageOp("size", "sequence_number", "lease_id", etagConds, dateConds), "size"),
	"blob.page.put":      require(pageOp("offset", "length", "body", "lease_id", etagConds, dateConds, seqConds), "offset"),
	"blob.page.clear":    require(pageOp("offset", "length", "lease_id", etagConds, dateConds, seqConds), "offset"),
	"blob.page.ranges":   pageOp("snapshot", "prev_snapshot", "lease_id", etagConds, dateConds),
	"blob.page.seqnum":   require(pageOp("sequence_number_action", "sequence_number", "lease_id", etagConds, dateConds), "sequence_number_action"),
	"blob.page.resize":   require(pageOp("size", "lease_id", etagConds, dateConds), "size"),
	"blob.page.getprops": pageOp("snapshot", "lease_id", etagConds, dateConds),

	// A raw step sends the request it writes to the blob (or, without
	// blob, the container) its aliases name.
	RawOp: require(OpSpec{Fields: opFields([]string{"blob", "container", "request"})}, "request"),

	"container.create":        containerOp("metadata"),
	"container.delete":        containerOp("lease_id", dateConds),
	"container.getprops":      containerOp("lease_id"),
	"container.setmeta":       containerOp("metadata", "lease_id", "if_modified_since"),
	"container.getacl":        containerOp("lease_id"),
	"container.setacl":        containerOp("lease_id", dateConds),
	"container.lease.acquire": containerOp("duration", "proposed_lease_id", dateConds),
	"container.lease.renew":   containerOp("lease_id", dateConds),
	"container.lease.change":  containerOp("lease_id", "proposed_lease_id", dateConds),
	"container.lease.release": containerOp("lease_id", dateConds),
	"container.lease.break":   containerOp("break_period", dateConds),

	// Table entity ops act on the rule's own table (or table: ALIAS) and
	// the entity partition (default "p") / row. Update and Merge without
	// if_match send no If-Match, which the REST reference defines as Insert
	// Or Replace / Insert Or Merge; Delete Entity requires If-Match.
	"table.create":       tableOp(),
	"table.insert":       entityOp("properties"),
	"table.update":       entityOp("properties", "if_match"),
	"table.merge":        entityOp("properties", "if_match"),
	"table.upsert":       entityOp("properties"),
	"table.upsert-merge": entityOp("properties"),
	"table.delete":       require(entityOp("if_match"), "if_match"),
	"table.get":          entityOp(),
	"table.query":        tableOp("partition"),
	"table.batch":        require(tableOp("partition", "actions"), "actions"),
	// A raw table step sends the request it writes (see TableRawOp).
	TableRawOp: require(tableOp("request"), "request"),

	// Queue ops act on the rule's own queue (or queue: ALIAS).
	"queue.create": queueOp(),
	"queue.put":    require(queueOp("text", "text_repeat", "count", "visibility", "ttl"), "text"),
	"queue.get":    queueOp("num_messages", "visibility"),
	"queue.peek":   queueOp("num_messages"),
	"queue.update": require(queueOp("message_id", "pop_receipt", "text", "visibility"), "message_id", "pop_receipt", "text", "visibility"),
	"queue.delete": require(queueOp("message_id", "pop_receipt"), "message_id", "pop_receipt"),
	"queue.clear":  queueOp(),
	// A raw queue step sends the request it writes (see QueueRawOp).
	QueueRawOp: require(queueOp("request"), "request"),

	// File ops (Azure Files REST) act on a file (file: ALIAS) in the root
	// of the rule's own share. Only an account's file endpoint answers
	// them: on other targets their rules are not run (runner/conform).
	// file.create sends x-ms-content-length = len(body) and writes nothing;
	// file.put-range writes body at offset 0; file leases are infinite.
	"file.create":        fileOp("body"),
	"file.put-range":     require(fileOp("body", "lease_id"), "body"),
	"file.get":           fileOp("lease_id"),
	"file.getprops":      fileOp("lease_id"),
	"file.delete":        fileOp("lease_id"),
	"file.lease.acquire": fileOp("proposed_lease_id"),
	"file.lease.release": require(fileOp("lease_id"), "lease_id"),

	"wait": {Fields: []string{"duration"}, Required: []string{"duration"}},
}

// Field groups for blobOp and containerOp.
const (
	etagConds   = "<etag conditions>"
	dateConds   = "<date conditions>"
	sourceConds = "<source conditions>" // Copy Blob's x-ms-source-if-*
)

// blobOp is the spec of a blob op taking the given fields (or groups).
func blobOp(fields ...string) OpSpec {
	return OpSpec{Fields: opFields(append([]string{"blob", "container"}, fields...)), Required: []string{"blob"}}
}

// fileOp is the spec of a file op taking the given fields.
func fileOp(fields ...string) OpSpec {
	return OpSpec{Fields: opFields(append([]string{"file"}, fields...)), Required: []string{"file"}}
}

// containerOp is the spec of a container op taking the given fields.
func containerOp(fields ...string) OpSpec {
	return OpSpec{Fields: opFields(append([]string{"container"}, fields...))}
}

// tableOp is the spec of a table op taking the given fields.
func tableOp(fields ...string) OpSpec {
	return OpSpec{Fields: opFields(append([]string{"table"}, fields...))}
}

// entityOp is the spec of a single-entity table op: it names the entity's
// row (required) and partition.
func entityOp(fields ...string) OpSpec {
	return OpSpec{Fields: opFields(append([]string{"table", "partition", "row"}, fields...)), Required: []string{"row"}}
}

// queueOp is the spec of a queue op taking the given fields.
func queueOp(fields ...string) OpSpec {
	return OpSpec{Fields: opFields(append([]string{"queue"}, fields...))}
}

// capturableBy lists what op may capture: a table op its ETag and request
// id, a queue op its request id and, if it returns a message, the
// message's id, pop receipt and time-next-visible; a blob or container op
// anything but message values.
func capturableBy(op string) []string {
	var out []string
	for _, c := range Capturable {
		msg := slices.Contains(messageCaptures, c)
		switch {
		case strings.HasPrefix(op, "table."):
			if c == "etag" || c == "request_id" {
				out = append(out, c)
			}
		case strings.HasPrefix(op, "queue."):
			if c == "request_id" || msg && slices.Contains(messageOps, op) {
				out = append(out, c)
			}
		case !msg:
			out = append(out, c)
		}
	}
	return out
}

// require adds required fields to s.
func require(s OpSpec, fields ...string) OpSpec {
	s.Required = append(s.Required, fields...)
	return s
}

// opFields expands groups, adds capture and expect and puts the fields in
// documentation order.
func opFields(fields []string) []string {
	take := map[string]bool{"evidence": true, "capture": true, "expect": true}
	for _, f := range fields {
		switch f {
		case etagConds:
			take["if_match"], take["if_none_match"], take["if_tags"] = true, true, true
		case dateConds:
			take["if_modified_since"], take["if_unmodified_since"] = true, true
		case sourceConds:
			for _, f := range []string{"source_if_match", "source_if_none_match", "source_if_modified_since", "source_if_unmodified_since", "source_if_tags"} {
				take[f] = true
			}
		default:
			take[f] = true
		}
	}
	var out []string
	for _, f := range stepFields {
		if take[f] {
			out = append(out, f)
		}
	}
	return out
}
