// Package scenarios loads and validates stormcheck scenario files (YAML).
//
// A scenario is loaded strictly: an unknown field, a wrong type or a value
// out of range is an error naming the file, line, column, field and what is
// allowed. Defaults are applied after validation, so the runner receives a
// complete, typed Scenario.
package scenarios

import "time"

// Scenario is one validated scenario file with every default applied.
type Scenario struct {
	// File is the path the scenario was loaded from ("" when from bytes).
	File string
	// Source is the file's text, kept so a run can store it beside its
	// results and re-check them later.
	Source      []byte
	Name        string
	Description string
	// Notes say what the loader decided that the file did not say and the
	// user should hear about (a default duration); validate and run print
	// them.
	Notes []string
	// Seed drives every random choice of the run; same seed, same choices.
	Seed   int64
	Target Target
	// Duration bounds the load phase of every workload (0: no time bound,
	// then every workload has an iteration bound).
	Duration time.Duration
	// Timeout bounds each attempt; past it the outcome is "unknown".
	Timeout time.Duration
	Retry   Retry
	// UnreachableAfter is how long the target may leave every request
	// unanswered (refused connections, or no response at all) before the
	// run stops the load and ends with a target error.
	UnreachableAfter time.Duration
	// Workloads run side by side, each with its own actors.
	Workloads []Workload
	// Checks run over the recorded history, each on every workload whose
	// kind it applies to.
	Checks []string
	// Capacity is the scalability targets the run is measured against.
	Capacity Capacity
	// Emulation, when set, puts a loopback proxy in front of the target
	// that throttles units over their targets and may add latency.
	Emulation *Emulation
	// Thresholds are pass/fail criteria over the run's figures.
	Thresholds []Threshold
	// Compare is how `stormcheck compare` judges runs of this scenario.
	Compare Compare
	// Faults are injected on purpose during the load (see Fault).
	Faults []Fault
	// ClockOffsetBound is the bound NTP gives the clocks of the machines
	// that run a scenario's shards (default 100ms): merging shards widens
	// every real-time interval of a shard by it.
	ClockOffsetBound time.Duration
	// clockOffsetBoundSet: the file stated it (0 is a valid bound).
	clockOffsetBoundSet bool
}

// Breaks reports the faults that break a promise of the service on
// purpose (a check must fail).
func (s *Scenario) Breaks() []Fault {
	var out []Fault
	for _, f := range s.Faults {
		if f.Broken() {
			out = append(out, f)
		}
	}
	return out
}

// Capacity is a profile of scalability targets, per second.
type Capacity struct {
	// Profile names the built-in profile (ProfileChecklist).
	Profile string
	// Blob (requests per blob), Partition (entities per table partition),
	// Queue (messages per queue) and Account (requests per account) are
	// the targets after overrides and Scale.
	Blob, Partition, Queue, Account float64
	// BlobBandwidth (MiB/s per blob), Ingress and Egress (Gbps per
	// account) are the bandwidth targets, after overrides and Scale.
	BlobBandwidth, Ingress, Egress float64
	// Scale multiplied the profile's figures (1 unless the scenario scaled
	// them down, e.g. for a small CI machine); overrides are not scaled.
	Scale float64
	// Overridden names the figures the scenario set itself.
	Overridden []string
}

// ProfileChecklist is the built-in profile: the checklist's figures.
const ProfileChecklist = "checklist"

// Emulation configures the throttling proxy.
type Emulation struct {
	// Throttle answers 503 ServerBusy when a unit is over its target.
	Throttle bool
	// Burst is a unit's bucket depth in seconds of its target (default 1s).
	Burst time.Duration
	// Warmup, when set, starts each unit at a fraction of its target and
	// grows it to the target over Warmup of sustained load.
	Warmup time.Duration
	// Delay is added to every request (benchmark a slower target).
	Delay time.Duration
}

// Threshold is one pass/fail criterion, e.g. "p99(blob.put) < 50ms".
type Threshold struct {
	// Text is the criterion as written; Line where.
	Text string
	Line int
	// Metric is a percentile pN (p50, p95, p99.9...), max, mean (latency, ms, corrected),
	// rate (share of attempts with an outcome), throughput (ok+conflict
	// per second), utilisation (busiest unit's peak/target), or a count:
	// throttled, errors, unknown, conflicts.
	Metric string
	// Workload limits it to one workload ("" all); Arg is the op kind
	// (latency, throughput, counts: "" all ops), the outcome (rate) or the
	// unit kind (utilisation).
	Workload, Arg string
	// Cmp is <, <=, >, >= or ==; Value in the metric's unit (ms for
	// latencies).
	Cmp   string
	Value float64
	// Window, when set, applies the criterion to every whole window of
	// that length instead of the whole run.
	Window time.Duration
	// AbortOnFail stops the load as soon as the criterion fails on the
	// live figures (checked every second once AbortDelay of load has
	// passed); the run then fails the threshold.
	AbortOnFail bool
	AbortDelay  time.Duration
}

// Compare is how runs of this scenario are compared.
type Compare struct {
	// Tolerance is the relative change below which a difference is never
	// flagged, even above the noise (default 0.1; ToleranceSet when the
	// scenario gave one, 0 included).
	Tolerance    float64
	ToleranceSet bool
}

// Target says what service the run talks to.
type Target struct {
	// Kind is one of TargetAzurite (default), TargetConnectionString,
	// TargetAccountKey, TargetEntraID.
	Kind string
	// ConnectionStringEnv names the environment variable holding the
	// connection string (kind connection-string). Default
	// AZURE_STORAGE_CONNECTION_STRING. Secrets never live in scenario files.
	ConnectionStringEnv string
	// Account is the storage account name (kinds account-key, entra-id).
	Account string
	// KeyEnv names the environment variable holding the account key (kind
	// account-key). Default AZURE_STORAGE_KEY.
	KeyEnv string
	// BlobURL, QueueURL, TableURL are the service endpoints (kinds
	// account-key, entra-id). Default https://ACCOUNT.blob.core.windows.net
	// and so on.
	BlobURL, QueueURL, TableURL string
	// AzuriteVersion is the npm version of Azurite to run (kind azurite).
	AzuriteVersion string
	// Signing and Encryption (kind samba) are SMBDefault (the managed
	// Samba's defaults: signing and encryption when the client asks) or
	// SMBRequired (server signing = mandatory; smb encrypt = required),
	// and then the workloads' sessions sign (encrypt) every request.
	Signing, Encryption string
}

// Values of a samba target's signing and encryption.
const (
	SMBDefault  = "default"
	SMBRequired = "required"
)

// Target kinds.
const (
	TargetAzurite          = "azurite"
	TargetConnectionString = "connection-string"
	TargetAccountKey       = "account-key"
	TargetEntraID          = "entra-id"
	// TargetSamba is a private Samba (smbd) the run starts on loopback and
	// stops, for the SMB workloads (files.*).
	TargetSamba = "samba"
)

// DefaultAzuriteVersion is the pinned Azurite the harness installs and runs.
const DefaultAzuriteVersion = "3.37.0"

// Retry is the harness's retry policy. Every attempt is recorded; the SDK's
// own retries are disabled.
type Retry struct {
	// MaxAttempts counts the first try (1 = never retry). Default 4.
	MaxAttempts int
	// Base is the first back-off; each retry doubles it, up to Max, with
	// full jitter. Defaults 200ms and 5s.
	Base, Max time.Duration
	// On lists which outcomes are retried: any of "throttled", "unknown",
	// "error". Default [throttled, unknown]: 503/500 and timeouts, never a
	// 400 (the seeds' checklist).
	On []string
}

// Executor kinds.
const (
	// ExecutorClosed: N actors, each starts its next operation when the
	// last returns.
	ExecutorClosed = "closed"
	// ExecutorOpen: operations arrive at a rate on an absolute schedule,
	// served by a bounded pool of actors; latency counts from the
	// intended start.
	ExecutorOpen = "open"
)

// How a sharded run splits a workload's keys (Workload.ShardKeys).
const (
	// ShardKeysDivided: each shard owns a disjoint part of the keys.
	ShardKeysDivided = "divided"
	// ShardKeysShared: every shard races on every key (the race across
	// machines).
	ShardKeysShared = "shared"
)

// Workload is one group of actors doing one kind of work.
type Workload struct {
	// Name is unique within the scenario; it labels history and reports.
	Name string
	// Kind is the workload's behaviour, one of Kinds (e.g. blob.etag-counter).
	Kind string
	// Executor is ExecutorClosed (default) or ExecutorOpen.
	Executor string
	// Actors is the number of actors (closed), or the most actors serving
	// arrivals at once (open). Default 1 (closed), 64 (open).
	Actors int
	// Rate is the starting arrival rate per second (open only).
	Rate float64
	// Keys is how many distinct keys (blobs) the actors share. Default 1.
	Keys int
	// Duration overrides the scenario's duration for this workload.
	Duration time.Duration
	// Iterations bounds the operations of the workload (0: none).
	Iterations int64
	// Stages ramp the actor count (closed) or the rate (open) linearly
	// from the previous target to each stage's target over its duration.
	// When set, the load phase lasts the sum of the stage durations.
	Stages []Stage
	// Params are the kind's parameters, validated per kind.
	Params Params
	// ShardKeys says how a sharded run splits the keys: ShardKeysDivided
	// (default: each shard owns a disjoint part) or ShardKeysShared (every
	// shard races on every key).
	ShardKeys string
	// Line is where the workload is defined, for runtime messages.
	Line int
}

// Stage is one ramp step.
type Stage struct {
	Duration time.Duration
	// Target is the actor count (closed) or arrivals per second (open)
	// reached at the end of the stage.
	Target float64
}

// Params are the kind-specific settings of a workload. Each kind accepts
// only the fields KindSpec.Params names.
type Params struct {
	// PayloadBytes pads every written value to at least this many bytes.
	PayloadBytes int
	// LeaseDuration is a blob lease's duration: 15s to 60s, or Infinite.
	LeaseDuration time.Duration
	// Hold is how long a lease holder keeps the lease before releasing.
	Hold time.Duration
	// AcquireRetry is how a lease-mutex actor that lost the race tries
	// again: AcquireBackoff (default) or AcquireHammer.
	AcquireRetry string
	// ReadFraction is the share of operations that are reads (0 < f ≤ 1,
	// default 0.5).
	ReadFraction float64
	// ConditionalReads is the share of reads sent with If-None-Match on the
	// actor's cached ETag (the checklist's caching pattern; 304 when
	// unchanged).
	ConditionalReads float64
	// Misbehave is the share of lease holders that deviate: let the lease
	// expire, break it, change its id, or write without or with a stale id.
	Misbehave float64
	// Blocks is how many blocks a commit stages (default 4).
	Blocks int
	// DateConditions is the share of writes that also carry
	// If-Unmodified-Since (the Last-Modified read), and of conditional
	// reads that ask If-Modified-Since instead of If-None-Match.
	DateConditions float64

	// MergeFraction is the share of table counter writes sent as Merge
	// Entity instead of Update Entity (default 0.5).
	MergeFraction float64
	// ForceFraction is the share of table writes that do no concurrency
	// check: Update with If-Match: *, Insert Or Replace, Insert Or Merge
	// (default 0.5).
	ForceFraction float64
	// Props is how many properties a merge-vs-replace entity may carry
	// (default 6).
	Props int
	// ReplaceFraction is the share of merge-vs-replace writes that replace
	// the entity (default 0.3).
	ReplaceFraction float64
	// BatchSize is how many operations an entity group transaction holds,
	// 1 to 100 (default 10).
	BatchSize int
	// Rows is how many entities each partition holds (table.batch default
	// 20, table.query default 100).
	Rows int
	// FailFraction is the share of batches built to fail (one operation
	// inserts an entity that exists), so that none of their effects may
	// be seen (default 0.1).
	FailFraction float64
	// KeyPattern is how table.hot-partition names partitions: single,
	// uniform, zipf, append, prepend or hash-prefix.
	KeyPattern string
	// ZipfS is the Zipf exponent of key_pattern zipf, above 1 (default
	// 1.1).
	ZipfS float64
	// Projection is the share of queries sent with $select (default 0.5).
	Projection float64
	// Producers is how many of a queue.work workload's actors enqueue; the
	// others consume (default: half, at least one of each).
	Producers int
	// MessagesPerGet is how many messages one Get Messages asks for, 1 to
	// 32 (default 8).
	MessagesPerGet int
	// Visibility is the visibility timeout a consumer asks for, in whole
	// seconds (default 2s).
	Visibility time.Duration
	// UpdateFraction is the share of received messages a consumer extends
	// with Update Message, saving its progress (default 0.2).
	UpdateFraction float64
	// CrashFraction is the share of received messages a consumer drops
	// without deleting them, as a crashed worker would (default 0.05).
	CrashFraction float64
	// ReleaseFraction is the share of received messages a consumer gives
	// back at once (Update Message, visibility 0), then tries to delete
	// with the receipt the update replaced and with the new one, which
	// another consumer may have replaced meanwhile (default 0.05).
	ReleaseFraction float64
}

// Infinite is the LeaseDuration of an infinite lease ("infinite" in YAML).
const Infinite time.Duration = -1

// KindSpec describes one workload kind for validation.
type KindSpec struct {
	// Summary says in one line what the actors do.
	Summary string
	// Params lists the YAML names of the params the kind accepts.
	Params []string
	// Checks lists the checks that apply to the kind and run by default.
	Checks []string
	// OptionalChecks apply to the kind but run only when a scenario lists
	// them (a cross-check that may be undecided on hot keys).
	OptionalChecks []string
	// Ops lists the op names the kind's workload records (the names a
	// threshold and the reports use), sorted.
	Ops []string
}

// Kinds are the workload kinds the runner implements.
var Kinds = map[string]KindSpec{
	"blob.etag-counter": {
		Summary:        "read a counter blob, add one, write it back with If-Match; re-read on 412",
		Params:         []string{"payload_bytes", "conditional_reads", "date_conditions"},
		Checks:         []string{"no-lost-updates", "version-chain"},
		OptionalChecks: []string{"linearizable", "date-conditions"},
		Ops:            []string{"blob.get", "blob.put"},
	},
	"blob.create-once": {
		Summary: "race to create the same blob with If-None-Match: *, round after round",
		Params:  []string{"payload_bytes"},
		Checks:  []string{"single-winner"},
		Ops:     []string{"blob.create"},
	},
	"blob.lww": {
		Summary:        "last writer wins: unconditional writes of unique values and plain reads on a few blobs",
		Params:         []string{"payload_bytes", "read_fraction", "conditional_reads"},
		Checks:         []string{"version-chain"},
		OptionalChecks: []string{"linearizable"},
		Ops:            []string{"blob.get", "blob.put"},
	},
	"blob.block-commit": {
		Summary:        "stage blocks in parallel (Put Block), commit them with Put Block List under If-Match; readers read the committed content",
		Params:         []string{"payload_bytes", "blocks", "read_fraction"},
		Checks:         []string{"version-chain"},
		OptionalChecks: []string{"linearizable"},
		Ops:            []string{"blob.commit", "blob.get", "blob.stage"},
	},
	"blob.append-log": {
		Summary: "many appenders on one append blob: read its length, append a self-describing record at it with x-ms-blob-condition-appendpos; re-read on 412",
		Params:  []string{"payload_bytes"},
		Checks:  []string{"append-log"},
		Ops:     []string{"blob.append", "blob.props"},
	},
	"blob.lease-mutex": {
		Summary: "acquire a lease on a counter blob, add one under the lease, release; 409 while another holds it; some holders misbehave",
		Params:  []string{"payload_bytes", "lease_duration", "hold", "acquire_retry", "misbehave"},
		Checks:  []string{"no-lost-updates", "lease-exclusion", "lease-protocol"},
		Ops:     []string{"blob.get", "blob.lease.acquire", "blob.lease.release", "blob.put"},
	},
	"blob.lease-lifecycle": {
		Summary: "random acquire / renew / change / release / break and leased writes from many actors on a few blobs: the lease state machine under contention",
		Params:  []string{"payload_bytes", "lease_duration"},
		Checks:  []string{"lease-exclusion", "lease-protocol"},
		Ops:     []string{"blob.get", "blob.lease.acquire", "blob.lease.break", "blob.lease.change", "blob.lease.release", "blob.lease.renew", "blob.put"},
	},
	"container.lease": {
		Summary: "lease containers while others set metadata and ACLs and try to delete without the lease id (only Delete is refused)",
		Params:  []string{"lease_duration"},
		Checks:  []string{"container-lease"},
		Ops:     []string{"container.create", "container.delete", "container.getprops", "container.lease.acquire", "container.lease.release", "container.lease.renew", "container.setacl", "container.setmeta"},
	},
	"container.etag": {
		Summary: "race Set Container ACL under If-Unmodified-Since and Set Container Metadata under If-Modified-Since on the Last-Modified read; conditional deletes that must be refused",
		Checks:  []string{"date-conditions"},
		Ops:     []string{"container.delete", "container.getprops", "container.setacl", "container.setmeta"},
	},
	"table.etag-counter": {
		Summary:        "read a counter entity, add one, write it back with Update or Merge Entity under If-Match; re-read on 412",
		Params:         []string{"payload_bytes", "merge_fraction"},
		Checks:         []string{"no-lost-updates", "version-chain"},
		OptionalChecks: []string{"linearizable"},
		Ops:            []string{"table.get", "table.merge", "table.update"},
	},
	"table.force-update": {
		Summary:        "conditional updaters (If-Match on the ETag read) mixed with forced writers (If-Match: *, Insert Or Replace, Insert Or Merge) on the same entities",
		Params:         []string{"payload_bytes", "force_fraction", "read_fraction"},
		Checks:         []string{"version-chain"},
		OptionalChecks: []string{"linearizable"},
		Ops:            []string{"table.get", "table.merge", "table.update", "table.upsert", "table.upsert-merge"},
	},
	"table.merge-vs-replace": {
		Summary: "concurrent Merge Entity (a subset of properties) and Update Entity (replace) on the same entities, with point reads",
		Params:  []string{"props", "replace_fraction", "read_fraction"},
		Checks:  []string{"merge-replace"},
		Ops:     []string{"table.get", "table.merge", "table.update"},
	},
	"table.batch": {
		Summary: "entity group transactions (up to 100 upserts in one partition, some built to fail) while readers query the partition",
		Params:  []string{"payload_bytes", "batch_size", "rows", "fail_fraction", "read_fraction"},
		Checks:  []string{"batch-atomicity", "snapshot-reads"},
		Ops:     []string{"table.batch", "table.query"},
	},
	"table.hot-partition": {
		Summary: "insert entities with a key pattern (single, uniform, zipf, append, prepend, hash-prefix); the report shows entities/s per partition against the 2,000/s target",
		Params:  []string{"payload_bytes", "key_pattern", "zipf_s"},
		Ops:     []string{"table.insert"},
	},
	"table.query": {
		Summary: "point queries, partition queries, filtered partition queries and filtered table scans, with and without projection; the report shows entities scanned vs returned",
		Params:  []string{"payload_bytes", "rows", "projection"},
		Ops:     []string{"table.get", "table.query", "table.query-filter", "table.scan"},
	},
	"queue.work": {
		Summary: "producers enqueue; consumers get 1-32 messages with a visibility timeout, sometimes save progress with Update Message, delete with the pop receipt, give it back (stale receipts), or crash without deleting",
		Params:  []string{"payload_bytes", "producers", "messages_per_get", "visibility", "update_fraction", "crash_fraction", "release_fraction"},
		Checks:  []string{"at-least-once", "exclusive-visibility", "pop-receipt"},
		Ops:     []string{"queue.delete", "queue.get", "queue.put", "queue.update"},
	},
	"files.share-modes": {
		Summary: "actors, each its own SMB session, race opens of a few files with a mix of access and share modes; a holder granted an exclusive open (read/write, share none) adds one to the file's counter, then closes (target kind samba)",
		Params:  []string{"read_fraction"},
		Checks:  []string{"share-modes"},
		Ops:     []string{"files.close", "files.open", "files.read", "files.write"},
	},
	"files.delete-pending": {
		Summary: "actors, each its own SMB session, race deletes and opens of a few files: a deleter opens a file with DELETE access and sets the delete disposition (clearing it now and then) or opens it delete-on-close, then closes; the others open it without creating it, read and close, or list the share (target kind samba)",
		Params:  []string{"read_fraction"},
		Checks:  []string{"delete-pending"},
		Ops:     []string{"files.close", "files.list", "files.open", "files.read", "files.set-delete", "files.write"},
	},
	"files.byte-range-locks": {
		Summary: "actors, each its own SMB session, open a few files and lock overlapping ranges (shared or exclusive, waiting or failing at once), then read or write inside their range and at a random one, unlock and close (target kind samba)",
		Checks:  []string{"byte-range-locks"},
		Ops:     []string{"files.close", "files.lock", "files.open", "files.read", "files.unlock", "files.write"},
	},
	"files.leases": {
		Summary: "actors, each its own SMB session, open a few files: holders ask for a read-write-handle lease (or a batch oplock), read, write and close; the others open with no lease, which breaks the holder's write caching; every break is recorded and acknowledged at once (target kind samba)",
		Params:  []string{"read_fraction"},
		Checks:  []string{"lease-breaks"},
		Ops:     []string{"files.ack", "files.break", "files.close", "files.open", "files.read", "files.write"},
	},
	"files.rest-ranges": {
		Summary: "Azure Files REST, last writer wins: actors Put Range runs of whole self-describing records over overlapping ranges of a few files; the final read says which write each record is from (an account's file endpoint: target kind connection-string)",
		Checks:  []string{"range-writes"},
		Ops:     []string{"files.rest.create", "files.rest.get", "files.rest.put-range", "files.rest.share.create", "files.rest.share.delete"},
	},
	"files.rest-lease": {
		Summary: "Azure Files REST file leases: actors race to acquire an infinite lease, the holder writes with its id and sometimes without it (412 LeaseIdMissing), then releases; losers get 409 LeaseAlreadyPresent (an account's file endpoint)",
		Checks:  []string{"file-lease"},
		Ops:     []string{"files.rest.create", "files.rest.get", "files.rest.lease.acquire", "files.rest.lease.release", "files.rest.put-range", "files.rest.share.create", "files.rest.share.delete"},
	},
	"files.interplay": {
		Summary: "SMB and REST on the same files of an account's share: an SMB share-none holder, a delete-pending file and a byte-range lock against REST reads, writes, properties and listings (409 SharingViolation, SMBDeletePending or DeletePending, FileLockConflict); REST delete then SMB open (an account key)",
		Checks:  []string{"files-interplay"},
		Ops:     []string{"files.close", "files.lock", "files.open", "files.rest.create", "files.rest.delete", "files.rest.get", "files.rest.getprops", "files.rest.list", "files.rest.put-range", "files.rest.share.create", "files.rest.share.delete", "files.set-delete", "files.unlock"},
	},
	"queue.hot": {
		Summary: "enqueue messages to one queue (keys: 1) or spread over several, with consumers getting up to 32 at a time and deleting; the report shows messages/s per queue against the 2,000/s target",
		Params:  []string{"payload_bytes", "messages_per_get", "read_fraction"},
		Ops:     []string{"queue.delete", "queue.get", "queue.put"},
	},
}
