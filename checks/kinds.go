package checks

// Table and queue operation kinds, as the runner records them.
const (
	// KindTableGet is a point query (one entity by PartitionKey and RowKey).
	KindTableGet = "table.get"
	// KindTableInsert is Insert Entity: it fails with 409 EntityAlreadyExists
	// when the entity exists, so it records the implied If-None-Match: *.
	KindTableInsert = "table.insert"
	// KindTableUpdate is Update Entity (replace), with If-Match (an ETag or *).
	KindTableUpdate = "table.update"
	// KindTableMerge is Merge Entity, with If-Match (an ETag or *).
	KindTableMerge = "table.merge"
	// KindTableUpsert is Insert Or Replace Entity: no concurrency check.
	KindTableUpsert = "table.upsert"
	// KindTableUpsertMerge is Insert Or Merge Entity: no concurrency check.
	KindTableUpsertMerge = "table.upsert-merge"
	// KindTableDelete is Delete Entity.
	KindTableDelete = "table.delete"
	// KindTableBatch is an entity group transaction.
	KindTableBatch = "table.batch"
	// KindTableQuery is one page of a query.
	KindTableQuery = "table.query"

	// KindQueuePut is Put Message; KindQueueGet is Get Messages (dequeue);
	// KindQueuePeek is Peek Messages; KindQueueUpdate is Update Message;
	// KindQueueDelete is Delete Message.
	KindQueuePut    = "queue.put"
	KindQueueGet    = "queue.get"
	KindQueuePeek   = "queue.peek"
	KindQueueUpdate = "queue.update"
	KindQueueDelete = "queue.delete"
)

// register maps the single-value operations of other services onto the blob
// operations the register checkers (no-lost-updates, single-winner,
// linearizable, version-chain) model: a table entity with one value property
// is a register read by a point query, written by update or merge under
// If-Match, created by insert. Merges equal replaces here because the
// register workloads write the same single property every time.
var register = map[string]string{
	KindTableGet:         KindBlobGet,
	KindTableInsert:      KindBlobCreate,
	KindTableUpdate:      KindBlobPut,
	KindTableMerge:       KindBlobPut,
	KindTableUpsert:      KindBlobPut,
	KindTableUpsertMerge: KindBlobPut,
	KindTableDelete:      KindBlobDelete,
}

// canon returns the blob operation kind a register checker reads kind as:
// the kind itself for blob operations, its register equivalent for table
// entity operations, "" for anything else the register checkers ignore.
func Canon(kind string) string {
	if c, ok := register[kind]; ok {
		return c
	}
	return kind
}

// Operation kinds the linearizable checker reads besides get, put and create.
const (
	KindBlobCommit  = "blob.commit"
	KindBlobSetMeta = "blob.setmeta"
	KindBlobDelete  = "blob.delete"
)

// KindBlobReadLog is the final read of an append blob (blob.append-log):
// the history keeps its whole content (runs of padding dots as their
// length), which checks/appendlog splits into records.
const KindBlobReadLog = "blob.readlog"
