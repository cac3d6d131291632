package conformance

import (
	"strings"
	"testing"
)

// tableHead is a rule whose first step inserts an entity and captures its
// etag (e1); tests append a raw step at line 8.
const tableHead = head + `      - {op: table.insert, row: r1, capture: {etag: e1}, expect: {status: 201}}
`

func TestParseRawServiceErrors(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		line, col int
		field     string
		msg       string
	}{
		{"path on blob.raw", tableHead + `      - {op: blob.raw, blob: b, request: {method: GET, path: /x}, expect: {status: 200}}
`, 8, 56, "rules[0].steps[1].request.path", "blob.raw addresses its blob (or container); path applies to queue.raw and table.raw"},
		{"queue path without slash", tableHead + `      - {op: queue.raw, request: {method: GET, path: messages}, expect: {status: 200}}
`, 8, 54, "rules[0].steps[1].request.path", "starts with / (/messages)"},
		{"parts on queue.raw", tableHead + `      - {op: queue.raw, request: {method: POST, parts: [{method: POST}]}, expect: {status: 202}}
`, 8, 49, "rules[0].steps[1].request.parts", "they apply to blob.raw and table.raw"},
		{"parts with a body", tableHead + `      - {op: table.raw, request: {method: POST, body: x, parts: [{method: POST}]}, expect: {status: 202}}
`, 8, 58, "rules[0].steps[1].request.parts", "a request has parts or a body, not both"},
		{"parts with a path", tableHead + `      - {op: table.raw, request: {method: POST, path: "()", parts: [{method: POST}]}, expect: {status: 202}}
`, 8, 49, "rules[0].steps[1].request.path", "a request with parts goes to /$batch; it has no path"},
		{"batch not POST", tableHead + `      - {op: table.raw, request: {method: PUT, parts: [{method: POST}]}, expect: {status: 202}}
`, 8, 55, "rules[0].steps[1].request.method", "a batch is a POST, got PUT"},
		{"empty parts", tableHead + `      - {op: table.raw, request: {method: POST, parts: []}, expect: {status: 202}}
`, 8, 56, "rules[0].steps[1].request.parts", "must be a list of at least one part"},
		{"part without method", tableHead + `      - {op: table.raw, request: {method: POST, parts: [{path: "()"}]}, expect: {status: 202}}
`, 8, 57, "rules[0].steps[1].request.parts[0].method", "missing; it is required"},
		{"part lower-case method", tableHead + `      - {op: table.raw, request: {method: POST, parts: [{method: merge}]}, expect: {status: 202}}
`, 8, 66, "rules[0].steps[1].request.parts[0].method", `must be an HTTP method in upper case (POST, PUT, MERGE, DELETE, ...), got "merge"`},
		{"unknown part field", tableHead + `      - {op: table.raw, request: {method: POST, parts: [{method: POST, headr: {}}]}, expect: {status: 202}}
`, 8, 72, "rules[0].steps[1].request.parts[0].headr", `unknown field "headr" (did you mean "header`},
		{"part count zero", tableHead + `      - {op: table.raw, request: {method: POST, parts: [{method: POST, count: 0}]}, expect: {status: 202}}
`, 8, 79, "rules[0].steps[1].request.parts[0].count", "must be a whole number 1..1000"},
		{"too many parts", tableHead + `      - {op: table.raw, request: {method: POST, parts: [{method: POST, count: 1000}, {method: POST}]}, expect: {status: 202}}
`, 8, 86, "rules[0].steps[1].request.parts[1]", "a batch has at most 1000 parts here"},
		{"lite on a queue", tableHead + `      - {op: queue.raw, request: {method: GET, sign: shared-key-lite}, expect: {status: 200}}
`, 8, 54, "rules[0].steps[1].request.sign", "shared-key-lite applies to table.raw"},
		{"parts expected of a queue step", tableHead + `      - {op: queue.raw, request: {method: GET}, expect: {status: 200, parts: [201]}}
`, 8, 71, "rules[0].steps[1].expect.parts", "op queue.raw returns nothing parts checks; it applies to blob.raw, table.raw"},
		{"part status out of range", tableHead + `      - {op: table.raw, request: {method: POST, parts: [{method: POST}]}, expect: {status: 202, parts: [201, 42]}}
`, 8, 110, "rules[0].steps[1].expect.parts[1]", "must be an HTTP status code (100..599), got 42"},
		{"parts not a list", tableHead + `      - {op: table.raw, request: {method: POST, parts: [{method: POST}]}, expect: {status: 202, parts: 201}}
`, 8, 104, "rules[0].steps[1].expect.parts", "must be a list of HTTP status codes"},
		{"table.raw takes no row", tableHead + `      - {op: table.raw, row: r1, request: {method: GET}, expect: {status: 200}}
`, 8, 25, "rules[0].steps[1].row", `op table.raw does not take "row"`},
		{"sign on a table part", tableHead + `      - {op: table.raw, request: {method: POST, parts: [{method: POST, sign: wrong}]}, expect: {status: 202}}
`, 8, 72, "rules[0].steps[1].request.parts[0].sign", "sign applies to the parts of a Blob Batch (blob.raw)"},
		{"bad part sign", tableHead + `      - {op: blob.raw, request: {method: POST, parts: [{method: DELETE, sign: lite}]}, expect: {status: 202}}
`, 8, 79, "rules[0].steps[1].request.parts[0].sign", `must be one of shared-key, wrong, none, got "lite"`},
		{"blob batch with a blob", tableHead + `      - {op: blob.raw, blob: b, request: {method: POST, parts: [{method: DELETE}]}, expect: {status: 202}}
`, 8, 24, "rules[0].steps[1].blob", "a Blob Batch is sent to its container"},
		{"Date header on a queue step", tableHead + `      - {op: queue.raw, request: {method: GET, date: none, headers: {Date: "${now}"}}, expect: {status: 200}}
`, 8, 54, "rules[0].steps[1].request.date", "(or, on table.raw, a Date header in headers)"},
		{"date none, no Date header", tableHead + `      - {op: table.raw, request: {method: GET, date: none}, expect: {status: 200}}
`, 8, 54, "rules[0].steps[1].request.date", "(or, on table.raw, a Date header in headers)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantParseError(t, tc.src, tc.line, tc.col, tc.field, tc.msg) })
	}
}

// TestParseRawServiceSteps: a queue.raw and a table.raw step with a path,
// Shared Key Lite, a Date header instead of x-ms-date, and a batch whose
// counted part expands with its index.
func TestParseRawServiceSteps(t *testing.T) {
	rules, err := Parse("f.yaml", []byte(tableHead+`      - {op: queue.raw, request: {method: GET, path: /messages, query: {peekonly: "true"}}, expect: {status: 200}}
      - {op: table.raw, request: {method: GET, path: "(PartitionKey='p',RowKey='a%2Fb')", sign: shared-key-lite, date: none, headers: {Date: "${now}"}}, expect: {status: 404}}
      - op: table.raw
        request:
          method: POST
          parts:
            - {method: POST, headers: {Content-Type: application/json}, body: '{"PartitionKey":"p","RowKey":"r{n}"}', count: 3}
            - {method: DELETE, path: "(PartitionKey='p',RowKey='r1')", headers: {If-Match: "${e1}"}}
        expect: {status: 202, parts: [201, 201, 201, 204], failed_index: 0}
`))
	if err != nil {
		t.Fatal(err)
	}
	st := rules[0].Steps
	if st[1].Op != QueueRawOp || st[1].Raw.Path.literalPrefix() != "/messages" || len(st[1].Raw.Query) != 1 {
		t.Fatalf("queue step %+v", st[1].Raw)
	}
	if r := st[2].Raw; r.Sign != SignSharedKeyLite || r.Date != DateNone || r.Path.literalPrefix() != "(PartitionKey='p',RowKey='a%2Fb')" {
		t.Fatalf("table step %+v", r)
	}
	r := st[3].Raw
	if len(r.Parts) != 4 || r.Parts[3].Method != "DELETE" || r.Parts[3].Headers[0].Value.Parts[0].Ref != "e1" {
		t.Fatalf("parts %+v", r.Parts)
	}
	for i := 0; i < 3; i++ {
		if want := `"RowKey":"r00` + string(rune('0'+i)) + `"`; !strings.Contains(r.Parts[i].Body, want) {
			t.Errorf("part %d body %q, want %s", i, r.Parts[i].Body, want)
		}
	}
	if e := st[3].Expect; len(e.Parts) != 4 || e.Parts[3] != 204 || e.FailedIndex == nil {
		t.Fatalf("expect %+v", e)
	}
	for _, p := range r.Parts {
		if p.Sign != "" {
			t.Errorf("a table part has its own sign %q; the transaction's signature covers it", p.Sign)
		}
	}
	// A Blob Batch: each part is signed on its own, shared-key unless it
	// says otherwise.
	rules, err = Parse("f.yaml", []byte(tableHead+`      - op: blob.raw
        request:
          method: POST
          query: {restype: container, comp: batch}
          parts:
            - {method: DELETE, path: /b1}
            - {method: DELETE, path: /b2, sign: wrong}
            - {method: DELETE, path: /b3, sign: none}
        expect: {status: 202, parts: [202, 403, 403]}
`))
	if err != nil {
		t.Fatal(err)
	}
	bp := rules[0].Steps[1].Raw.Parts
	if len(bp) != 3 || bp[0].Sign != SignSharedKey || bp[1].Sign != SignWrong || bp[2].Sign != SignNone {
		t.Fatalf("blob batch parts %+v", bp)
	}
}
