package runner

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stormcheck/stormcheck/conformance/verdict"
	"github.com/stormcheck/stormcheck/runner/conform"
	"github.com/stormcheck/stormcheck/runner/target"
	"github.com/stormcheck/stormcheck/scenarios"
	"github.com/stormcheck/stormcheck/scenarios/conformance"
)

// wrongRule expects Lease Blob to change the ETag and a write without the
// lease id to succeed on a leased blob: both wrong, so the runner must
// report the rule as diverging, with expected and actual.
const wrongRule = `
rules:
  - id: test.wrong
    title: a rule whose expectation is wrong
    source: test
    tags: [blob, lease]
    steps:
      - op: blob.put
        blob: b
        body: "v1"
        capture: {etag: e1}
        expect: {status: 201}
      - op: blob.lease.acquire
        blob: b
        duration: 15
        expect: {status: 201, etag: {differs: $e1}}
      - op: blob.put
        blob: b
        body: "v2"
        expect: {status: 201}
`

// allOps uses every op the executor runs besides leases and containers.
const allOps = `
rules:
  - id: test.ops
    title: the remaining blob ops run
    source: test
    tags: [blob, ops]
    steps:
      - {op: blob.put, blob: a, body: "v1", expect: {status: 201}}
      - {op: blob.setprops, blob: a, expect: {status: 200, etag: changed}}
      - {op: blob.setmeta, blob: a, metadata: {k: v}, expect: {status: 200, etag: changed}}
      - {op: blob.snapshot, blob: a, expect: {status: 201}}
      - {op: blob.copy, blob: c, source: a, capture: {copy_id: cid}, expect: {status: [200, 202], headers_present: [x-ms-copy-id]}}
      - {op: blob.abortcopy, blob: c, copy_id: $cid, expect: {status: 409, error_code: NoPendingCopyOperation}}
      - {op: blob.stage, blob: d, block_id: "b0", body: "hello ", expect: {status: 201}}
      - {op: blob.stage, blob: d, block_id: "b1", body: "world", expect: {status: 201}}
      - {op: blob.commit, blob: d, blocks: ["b0", "b1"], expect: {status: 201}}
      - {op: blob.get, blob: d, expect: {status: 200, body: "hello world"}}
      - {op: blob.delete, blob: d, expect: {status: 202}}
      - {op: blob.getprops, blob: d, expect: {status: 404}}
`

// twoWaits are two rules that each wait 2 s between two writes.
const twoWaits = `
rules:
  - id: test.wait-a
    title: waits 2 s
    source: test
    tags: [blob]
    steps:
      - {op: blob.put, blob: a, body: "v1", expect: {status: 201}}
      - {op: wait, duration: 2s}
      - {op: blob.put, blob: a, body: "v2", expect: {status: 201}}
  - id: test.wait-b
    title: waits 2 s
    source: test
    tags: [blob]
    steps:
      - {op: blob.put, blob: b, body: "v1", expect: {status: 201}}
      - {op: wait, duration: 2s}
      - {op: blob.put, blob: b, body: "v2", expect: {status: 201}}
`

// servicesOps uses the table and queue ops and fields the shipped rules do
// not: table.create and queue.create of an alias, a whole-table query,
// queue.clear, padding, partition overrides that stay in one partition.
const servicesOps = `
rules:
  - id: test.table-ops
    title: the remaining table ops run
    source: test
    tags: [table, ops]
    steps:
      - {op: table.create, table: t2, expect: {status: [201, 204]}}
      - {op: table.create, table: t2, expect: {status: 409, error_code: TableAlreadyExists}}
      - {op: table.insert, table: t2, partition: "p 1", row: r1, properties: {v: "1"}, capture: {etag: e1}, expect: {status: 201}}
      - {op: table.get, table: t2, partition: "p 1", row: r1, expect: {status: 200, etag: {equals: $e1}, properties: {v: "1"}}}
      - {op: table.query, table: t2, expect: {status: 200, entities: 1}}
      - {op: table.query, expect: {status: 200, entities: 0}}
      - op: table.batch
        partition: a
        actions:
          - {kind: upsert, row: r, count: 3, pad: 70000, properties: {v: "2"}}
          - {kind: insert, row: s, partition: a}
        expect: {status: 202}
      - {op: table.get, partition: a, row: r002, expect: {status: 200, properties: {v: "2"}}}
      - {op: table.query, partition: a, expect: {status: 200, entities: 4}}
      - {op: table.query, partition: b, expect: {status: 200, entities: 0}}
  - id: test.queue-ops
    title: the remaining queue ops run
    source: test
    tags: [queue, ops]
    steps:
      - {op: queue.create, queue: q2, expect: {status: 201}}
      - {op: queue.put, queue: q2, text: "a", count: 3, expect: {status: 201}}
      - {op: queue.peek, queue: q2, num_messages: 32, expect: {status: 200, messages: 3, text: "a"}}
      - {op: queue.peek, expect: {status: 200, messages: 0}}
      - {op: queue.clear, queue: q2, expect: {status: 204}}
      - {op: queue.peek, queue: q2, expect: {status: 200, messages: 0}}
`

// wrongServices expect a stale If-Match to update an entity and a queue
// with one message to return two: both wrong, so both rules must diverge.
const wrongServices = `
rules:
  - id: test.wrong-table
    title: a table rule whose expectation is wrong
    source: test
    tags: [table]
    steps:
      - {op: table.insert, row: r1, properties: {v: "1"}, capture: {etag: e1}, expect: {status: 201}}
      - {op: table.update, row: r1, if_match: $e1, properties: {v: "2"}, expect: {status: 204}}
      - {op: table.update, row: r1, if_match: $e1, properties: {v: "3"}, expect: {status: 204}}
      - {op: table.get, row: r1, expect: {status: 200, properties: {v: "3"}}}
  - id: test.wrong-queue
    title: a queue rule whose expectation is wrong
    source: test
    tags: [queue]
    steps:
      - {op: queue.put, text: "m", expect: {status: 201}}
      - {op: queue.get, expect: {status: 200, messages: 2}}
`

func TestConformanceAgainstAzurite(t *testing.T) {
	ctx := context.Background()
	tgt, err := target.Open(ctx, scenarios.Target{Kind: scenarios.TargetAzurite, AzuriteVersion: scenarios.DefaultAzuriteVersion},
		target.Options{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer tgt.Close()
	// The rules and the baseline the binary ships (go:embed).
	rs, err := conformance.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	// Azurite conforms to every rule except the divergences its shipped
	// baseline lists (each with a reason).
	data, ok := conformance.ShippedBaseline("azurite-" + scenarios.DefaultAzuriteVersion)
	if !ok {
		t.Fatalf("no shipped baseline for azurite %s", scenarios.DefaultAzuriteVersion)
	}
	base, err := verdict.ReadBaseline(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	results := conform.Run(ctx, ctx, tgt, rs.Select(nil), 4)
	if rep := verdict.CompareBaseline(results, base); !rep.OK() {
		for _, r := range results {
			if r.Status != verdict.ConformPass && !rep.IsKnown(r.ID) {
				t.Errorf("%s on Azurite: %s %s %+v", r.ID, r.Status, r.Error, r.Divergence())
			}
		}
		t.Fatalf("Azurite does not match its baseline: %+v", rep)
	}
	ops, err := conformance.Parse("ops.yaml", []byte(allOps))
	if err != nil {
		t.Fatal(err)
	}
	if r := conform.Run(ctx, ctx, tgt, ops, 1)[0]; r.Status != verdict.ConformPass {
		t.Errorf("blob ops: %s %s %+v", r.Status, r.Error, r.Steps)
	}
	// A rule gives its place back while it waits: with one place, two
	// rules waiting 2 s each overlap. Each rule's Elapsed runs from when it
	// got its place to its end; were the rules run one after the other, the
	// whole would last at least the sum of the two. It lasts less only if
	// they overlapped, which holds on a machine of any speed (no bound on
	// how long anything takes).
	waits, err := conformance.Parse("waits.yaml", []byte(twoWaits))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var sum time.Duration
	for _, r := range conform.Run(ctx, ctx, tgt, waits, 1) {
		if r.Status != verdict.ConformPass {
			t.Errorf("%s: %s %s %+v", r.ID, r.Status, r.Error, r.Steps)
		}
		sum += r.Elapsed
	}
	if el := time.Since(start); el >= sum {
		t.Errorf("two rules waiting 2 s each with parallel 1 took %v, the sum of their own times %v: waits do not overlap", el, sum)
	}
	svcOps, err := conformance.Parse("services.yaml", []byte(servicesOps))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range conform.Run(ctx, ctx, tgt, svcOps, 2) {
		if r.Status != verdict.ConformPass {
			t.Errorf("%s: %s %s %+v", r.ID, r.Status, r.Error, r.Steps)
		}
	}
	wrongSvc, err := conformance.Parse("wrong-services.yaml", []byte(wrongServices))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range conform.Run(ctx, ctx, tgt, wrongSvc, 2) {
		want := map[string]string{"test.wrong-table": "412 UpdateConditionNotSatisfied", "test.wrong-queue": "200, 1 message"}[r.ID]
		if d := r.Divergence(); r.Status != verdict.ConformDiverges || d == nil || d.Actual != want {
			t.Errorf("%s must diverge showing %q: %+v", r.ID, want, r)
		}
	}
	// Every rule's table and queue is gone once Conformance returns.
	tables, err := tgt.Table.NewListTablesPager(nil).NextPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tables.Tables {
		t.Errorf("table %s left behind", *tb.Name)
	}
	queues, err := tgt.Queue.NewListQueuesPager(nil).NextPage(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range queues.Queues {
		t.Errorf("queue %s left behind", *q.Name)
	}
	wrong, err := conformance.Parse("wrong.yaml", []byte(wrongRule))
	if err != nil {
		t.Fatal(err)
	}
	res := conform.Run(ctx, ctx, tgt, wrong, 1)[0]
	if res.Status != verdict.ConformDiverges || len(res.Steps) != 3 || res.Steps[1].Pass || res.Steps[2].Pass {
		t.Fatalf("a wrong rule must diverge at steps 2 and 3: %+v", res)
	}
	if d := res.Divergence(); d == nil || !strings.Contains(d.Actual, "201") || !strings.Contains(res.Steps[2].Actual, "412 LeaseIdMissing") {
		t.Errorf("divergences do not show the service's answers: %+v", res.Steps)
	}
}
