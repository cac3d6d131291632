package reports

// UnitTarget is a documented scalability target for one kind of unit.
type UnitTarget struct {
	// PerSecond is the target rate; Measure what it counts.
	PerSecond float64
	Measure   string
	// Source says where the figure comes from.
	Source string
}

// seedTargets are the targets of the checklist (shared/seeds/004, "Azure
// Storage Performance and Scalability Checklist"). They are the figures a
// report sets each unit against; the per-account ones (20,000 requests or
// entities per second) apply to the whole run.
var seedTargets = map[UnitKind]UnitTarget{
	UnitBlob: {PerSecond: 500, Measure: "requests",
		Source: "checklist, Blobs: \"a single blob supports up to 500 requests per second\""},
	UnitPartition: {PerSecond: 2000, Measure: "entities",
		Source: "checklist, Tables: \"within a single partition, the scalability target for accessing tables is 2,000 entities (1KB each) per second\"; each entity inserted, updated, deleted or scanned counts"},
	UnitQueue: {PerSecond: 2000, Measure: "message ops",
		Source: "checklist, Queues: \"a single queue can process approximately 2,000 messages (1KB each) per second (each AddMessage, GetMessage, and DeleteMessage count as a message)\""},
	UnitAccount: {PerSecond: AccountTarget, Measure: "operations",
		Source: "checklist, Tables: \"up to 20,000 entities (1KB each) per second for an account\"; Azure Storage scalability targets (azure-docs includes/azure-storage-limits.md): \"Total Request Rate (assuming 1KB object size) per storage account: up to 20,000 IOPS, entities per second, or messages per second\"; every request counts one, table operations their entities, queue operations their messages"},
}

// AccountTarget is the checklist's per-account figure: "up to 20,000
// entities (1KB each) per second for an account" (tables), and 20,000
// requests per second for the account as a whole.
const AccountTarget = 20000

// TargetFor returns the target for a kind of unit.
func TargetFor(k UnitKind) UnitTarget { return seedTargets[k] }

// Bandwidth targets of the checklist, in bytes per second: a single blob
// "up to a maximum of 60 MB/second" (read as MiB, as the current reference
// gives it), and a US locally redundant account's 20 Gbps ingress and
// 30 Gbps egress (the checklist's "Bandwidth" figures).
const (
	BlobBandwidth  = 60 << 20
	AccountIngress = 20e9 / 8
	AccountEgress  = 30e9 / 8
)
