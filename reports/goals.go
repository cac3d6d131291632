package reports

import "slices"

// Goal is what a workload exists to achieve, counted from its acknowledged
// operations: a counter's acknowledged increments, create-once's creations,
// a queue consumer's messages consumed. Progress bars and live metrics show
// it instead of reads and writes lumped together.
type Goal struct {
	// Noun names one unit of achievement, plural: "increments".
	Noun string
	// Ops are the op kinds whose ok attempts each count one.
	Ops []string
	// Acquire, when set, is the lease acquire op whose attempts per
	// success the summary reports: acquires per lease won.
	Acquire string
}

// Counts reports whether an ok attempt of op kind counts toward the goal.
func (g Goal) Counts(kind string) bool { return slices.Contains(g.Ops, kind) }

// goals maps workload kinds to their goals.
var goals = map[string]Goal{
	"blob.etag-counter":      {Noun: "increments", Ops: []string{"blob.put"}},
	"blob.create-once":       {Noun: "creations", Ops: []string{"blob.create"}},
	"blob.lease-mutex":       {Noun: "increments", Ops: []string{"blob.put"}, Acquire: "blob.lease.acquire"},
	"blob.lww":               {Noun: "writes", Ops: []string{"blob.put"}},
	"blob.block-commit":      {Noun: "commits", Ops: []string{"blob.commit"}},
	"blob.append-log":        {Noun: "appends", Ops: []string{"blob.append"}},
	"blob.lease-lifecycle":   {Noun: "leases acquired", Ops: []string{"blob.lease.acquire"}},
	"container.lease":        {Noun: "leases acquired", Ops: []string{"container.lease.acquire"}},
	"container.etag":         {Noun: "conditional updates", Ops: []string{"container.setacl", "container.setmeta"}},
	"table.etag-counter":     {Noun: "increments", Ops: []string{"table.update", "table.merge"}},
	"table.force-update":     {Noun: "updates", Ops: []string{"table.update", "table.merge", "table.upsert", "table.upsert-merge"}},
	"table.merge-vs-replace": {Noun: "updates", Ops: []string{"table.update", "table.merge", "table.upsert"}},
	"table.hot-partition":    {Noun: "inserts", Ops: []string{"table.insert"}},
	"table.batch":            {Noun: "batches", Ops: []string{"table.batch"}},
	"table.query":            {Noun: "queries", Ops: []string{"table.query", "table.query-filter", "table.scan"}},
	"queue.work":             {Noun: "messages consumed", Ops: []string{"queue.delete"}},
	"queue.hot":              {Noun: "messages consumed", Ops: []string{"queue.delete"}},
	"files.share-modes":      {Noun: "increments", Ops: []string{"files.write"}},
	"files.delete-pending":   {Noun: "opens granted", Ops: []string{"files.open"}},
	"files.byte-range-locks": {Noun: "locks granted", Ops: []string{"files.lock"}},
	"files.leases":           {Noun: "breaks acknowledged", Ops: []string{"files.ack"}},
	"files.rest-ranges":      {Noun: "range writes", Ops: []string{"files.rest.put-range"}},
	"files.rest-lease":       {Noun: "leases acquired", Ops: []string{"files.rest.lease.acquire"}, Acquire: "files.rest.lease.acquire"},
	"files.interplay":        {Noun: "rounds", Ops: []string{"files.rest.create"}},
}

// GoalOf returns the goal of a workload kind; ok is false for a kind with
// none (progress then shows acknowledged operations).
func GoalOf(kind string) (Goal, bool) {
	g, ok := goals[kind]
	return g, ok
}

// GoalKinds lists the workload kinds that have a goal (for tests that keep
// the table in step with the runner's kinds).
func GoalKinds() []string {
	out := make([]string, 0, len(goals))
	for k := range goals {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
