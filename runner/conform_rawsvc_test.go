package runner

import (
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/conformance/verdict"
	"github.com/stormcheck/stormcheck/runner/azurite"
	"github.com/stormcheck/stormcheck/runner/conform"
	"github.com/stormcheck/stormcheck/runner/runtest"
	"github.com/stormcheck/stormcheck/scenarios/conformance"
)

// rawServiceRules are raw Table and Queue steps of each form: signed with
// the Table service's Shared Key, Shared Key Lite, a Date header alone and
// a wrong key; a batch written part by part (applied, and refused for a
// duplicate entity); a Queue message, well-formed and not XML-safe; a Blob
// Batch whose sub-requests carry their own signatures.
const rawServiceRules = `
rules:
  - id: test.table-raw-signed
    title: Insert Entity signed with Shared Key, Shared Key Lite and over a Date header, read back by the SDK
    source: test
    tags: [table, raw]
    steps:
      - {op: table.raw, request: {method: POST, headers: {Content-Type: application/json, Accept: "application/json;odata=nometadata", x-ms-version: "2019-02-02"}, body: '{"PartitionKey":"p","RowKey":"r1","v":"1"}'}, expect: {status: 201}}
      - {op: table.raw, request: {method: POST, sign: shared-key-lite, headers: {Content-Type: application/json, Accept: "application/json;odata=nometadata", x-ms-version: "2019-02-02"}, body: '{"PartitionKey":"p","RowKey":"r2"}'}, expect: {status: 201}}
      - {op: table.raw, request: {method: POST, date: none, headers: {Date: "${now}", Content-Type: application/json, Accept: "application/json;odata=nometadata", x-ms-version: "2019-02-02"}, body: '{"PartitionKey":"p","RowKey":"r3"}'}, expect: {status: 201}}
      - {op: table.raw, request: {method: GET, path: "(PartitionKey='p',RowKey='r1')", headers: {Accept: "application/json;odata=nometadata", x-ms-version: "2019-02-02"}}, expect: {status: 200}}
      - {op: table.get, row: r1, expect: {status: 200, properties: {v: "1"}}}
      - {op: table.query, partition: p, expect: {status: 200, entities: 3}}
  - id: test.table-raw-wrong-key
    title: a Table request signed with another key
    source: test
    tags: [table, raw]
    steps:
      - {op: table.raw, request: {method: POST, sign: wrong, headers: {Content-Type: application/json, x-ms-version: "2019-02-02"}, body: '{"PartitionKey":"p","RowKey":"r1"}'}, expect: {status: 403, error_code: AuthenticationFailed}}
  - id: test.table-raw-batch
    title: a change set written part by part, applied
    source: test
    tags: [table, raw]
    steps:
      - op: table.raw
        request:
          method: POST
          headers: {x-ms-version: "2019-02-02", DataServiceVersion: "3.0"}
          parts:
            - {method: POST, headers: {Content-Type: application/json, Prefer: return-no-content}, body: '{"PartitionKey":"p","RowKey":"r{n}"}', count: 3}
        expect: {status: 202, parts: [204, 204, 204]}
      - {op: table.query, partition: p, expect: {status: 200, entities: 3}}
  - id: test.table-raw-batch-duplicate
    title: a change set naming one entity twice, refused by its second part
    source: test
    tags: [table, raw]
    steps:
      - op: table.raw
        request:
          method: POST
          headers: {x-ms-version: "2019-02-02", DataServiceVersion: "3.0"}
          parts:
            - {method: POST, headers: {Content-Type: application/json}, body: '{"PartitionKey":"p","RowKey":"r1"}'}
            - {method: MERGE, path: "(PartitionKey='p',RowKey='r1')", headers: {Content-Type: application/json, If-Match: "*"}, body: '{"PartitionKey":"p","RowKey":"r1","w":"2"}'}
        expect: {status: 202, parts: [400], error_code: InvalidDuplicateRow, failed_index: 1}
      - {op: table.query, expect: {status: 200, entities: 0}}
  - id: test.queue-raw
    title: a raw Put Message, peeked by the SDK
    source: test
    tags: [queue, raw]
    steps:
      - {op: queue.raw, request: {method: POST, path: /messages, headers: {x-ms-version: "2021-12-02"}, body: "<QueueMessage><MessageText>&lt;b&gt;</MessageText></QueueMessage>"}, expect: {status: 201}}
      - {op: queue.peek, expect: {status: 200, messages: 1, text: "<b>"}}
  - id: test.queue-raw-not-xml
    title: a Put Message whose text is not XML-safe
    source: test
    tags: [queue, raw]
    steps:
      - {op: queue.raw, request: {method: POST, path: /messages, headers: {x-ms-version: "2021-12-02"}, body: "<QueueMessage><MessageText>a<b</MessageText></QueueMessage>"}, expect: {status: 400, error_code: InvalidXmlDocument}}
  - id: test.blob-raw-batch
    title: a Blob Batch whose sub-requests are signed on their own, one with another key, one not at all
    source: test
    tags: [blob, raw]
    steps:
      - {op: blob.put, blob: b1, body: "1", expect: {status: 201}}
      - {op: blob.put, blob: b2, body: "2", expect: {status: 201}}
      - {op: blob.put, blob: b3, body: "3", expect: {status: 201}}
      - op: blob.raw
        request:
          method: POST
          query: {restype: container, comp: batch}
          headers: {x-ms-version: "2021-12-02"}
          parts:
            - {method: DELETE, path: /b1, headers: {Content-Length: "0"}}
            - {method: DELETE, path: /b2, headers: {Content-Length: "0"}, sign: wrong}
            - {method: DELETE, path: /b3, headers: {Content-Length: "0"}, sign: none}
        expect: {status: 202, parts: [202, 403, 403]}
      - {op: blob.getprops, blob: b1, expect: {status: 404}}
      - {op: blob.getprops, blob: b2, expect: {status: 200}}
      - {op: blob.getprops, blob: b3, expect: {status: 200}}
`

// TestConformRawServiceSteps runs raw Table and Queue steps against a real
// Azurite: its Table service accepts stormcheck's Table signatures (Shared
// Key, Lite, Date only) and refuses a wrong key; a batch's parts are
// written, sent and read back part by part; the divergences (a wrong key
// answered AuthorizationFailure, markup in a message refused with a bare
// 400) show the request as sent.
func TestConformRawServiceSteps(t *testing.T) {
	ctx, inst := runtest.StartAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	tgt := runtest.OpenTarget(ctx, t, inst)
	rules, err := conformance.Parse("rawsvc.yaml", []byte(rawServiceRules))
	if err != nil {
		t.Fatal(err)
	}
	res := conform.Run(ctx, ctx, tgt, rules, 2)
	for _, i := range []int{0, 2, 3, 4, 6} {
		if r := res[i]; r.Status != verdict.ConformPass {
			t.Errorf("%s: %s %s %+v", r.ID, r.Status, r.Error, r.Steps)
		}
	}
	for i, want := range map[int]string{1: "403 AuthorizationFailure", 5: "400"} {
		r := res[i]
		d := r.Divergence()
		if r.Status != verdict.ConformDiverges || d == nil || d.Step != 1 || d.Actual != want {
			t.Errorf("%s must diverge at step 1 showing %q: %+v", r.ID, want, r)
			continue
		}
		ex := d.Exchange
		if ex == nil || ex.Response == nil || ex.Request.Method != "POST" {
			t.Fatalf("%s: no exchange kept: %+v", r.ID, d)
		}
		all := sentHeaders(ex, "\n")
		if !strings.Contains(all, "Authorization: REDACTED") || strings.Contains(all, "User-Agent") {
			t.Errorf("%s: the headers sent: %s", r.ID, all)
		}
		wantURL := "/" + inst.Account + "/"
		if i == 5 && !strings.HasSuffix(ex.Request.URL, "/messages") || !strings.Contains(ex.Request.URL, wantURL) {
			t.Errorf("%s: sent to %s", r.ID, ex.Request.URL)
		}
	}
}
