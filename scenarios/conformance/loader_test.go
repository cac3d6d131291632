package conformance

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// head is a valid rule header; tests append steps to it.
const head = `rules:
  - id: r.one
    title: T
    source: S
    tags: [blob]
    steps:
`

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		line, col int
		field     string
		msg       string // substring
	}{
		{"unknown field", head + `      - op: blob.put
        blob: b
        bdy: x
        expect: {status: 201}
`, 9, 9, "rules[0].steps[0].bdy", `unknown field "bdy" (did you mean "body"?); op blob.put takes: op, blob,`},
		{"op not taking a field", head + `      - op: blob.get
        blob: b
        body: x
        expect: {status: 200}
`, 9, 9, "rules[0].steps[0].body", `op blob.get does not take "body"; it takes: blob, container, if_match`},
		{"unknown op", head + `      - op: blob.gte
        blob: b
`, 7, 13, "rules[0].steps[0].op", `unknown op "blob.gte" (did you mean "blob.get"?); ops: blob.abortcopy, blob.append, blob.append.create, blob.append.seal, blob.commit,`},
		{"uncaptured var", head + `      - op: blob.put
        blob: b
        capture: {etag: e1}
        expect: {status: 201}
      - op: blob.put
        blob: b
        if_match: $e2
        expect: {status: 412}
`, 13, 19, "rules[0].steps[1].if_match", `$e2 is not captured by an earlier step of this rule (captured so far: e1)`},
		{"own capture not yet visible", head + `      - op: blob.put
        blob: b
        if_match: $e1
        capture: {etag: e1}
        expect: {status: 201}
`, 9, 19, "rules[0].steps[0].if_match", `$e1 is not captured by an earlier step of this rule (captured so far: none)`},
		{"var of the wrong kind", head + `      - op: blob.lease.acquire
        blob: b
        duration: 15
        capture: {lease_id: l1}
        expect: {status: 201}
      - op: blob.put
        blob: b
        if_match: $l1
        expect: {status: 201}
`, 14, 19, "rules[0].steps[1].if_match", `$l1 holds a lease_id (captured at line 10); this field takes a captured etag`},
		{"bad status type", head + `      - op: blob.put
        blob: b
        expect: {status: "201"}
`, 9, 26, "rules[0].steps[0].expect.status", `must be an HTTP status code (a whole number from 100 to 599, unquoted) or a list of them, got "201"`},
		{"status out of range in list", head + `      - op: blob.put
        blob: b
        expect: {status: [201, 42]}
`, 9, 32, "rules[0].steps[0].expect.status", `got 42`},
		{"missing status", head + `      - op: blob.put
        blob: b
        expect: {error_code: X}
`, 9, 17, "rules[0].steps[0].expect.status", `missing; it is required`},
		{"unknown expect field", head + `      - op: blob.put
        blob: b
        expect: {status: 201, etags: changed}
`, 9, 31, "rules[0].steps[0].expect.etags", `unknown field "etags" (did you mean "etag"?); allowed fields: status, error_code, etag, headers_present, headers_absent, headers, body`},
		{"bad etag", head + `      - op: blob.put
        blob: b
        expect: {status: 201, etag: same}
`, 9, 37, "rules[0].steps[0].expect.etag", `must be changed, unchanged, {equals: $var} or {differs: $var}, got "same"`},
		{"slow wait without tag", head + `      - op: wait
        duration: 16s
`, 8, 19, "rules[0].steps[0].duration", `waits longer than 5s need the tag "slow" in rules[0].tags, got 16s`},
		{"wait without unit", head + `      - op: wait
        duration: 3
`, 8, 19, "rules[0].steps[0].duration", `must be a Go duration > 0 such as 500ms, 2s or 1m, got 3 (durations need a unit)`},
		{"bad date expression", head + `      - op: blob.get
        blob: b
        if_modified_since: $now+1w
        expect: {status: 304}
`, 9, 28, "rules[0].steps[0].if_modified_since", `bad date expression "$now+1w"; want an RFC 1123 date`},
		{"bad literal date", head + `      - op: blob.get
        blob: b
        if_modified_since: "2024-01-01"
        expect: {status: 304}
`, 9, 28, "rules[0].steps[0].if_modified_since", `must be an RFC 1123 date`},
		{"$now outside a date", head + `      - op: blob.put
        blob: b
        if_match: $now
        expect: {status: 201}
`, 9, 19, "rules[0].steps[0].if_match", `must be a literal or a reference $name to a captured etag`},
		{"lease duration not an integer", head + `      - op: blob.lease.acquire
        blob: b
        duration: 15s
        expect: {status: 201}
`, 9, 19, "rules[0].steps[0].duration", `must be a whole number: the lease duration in seconds`},
		{"missing blob", head + `      - op: blob.get
        expect: {status: 200}
`, 7, 9, "rules[0].steps[0].blob", `missing; it is required`},
		{"wait takes no expect", head + `      - op: wait
        duration: 1s
        expect: {status: 200}
`, 9, 9, "rules[0].steps[0].expect", `op wait does not take "expect"; it takes: duration`},
		{"bad capture", head + `      - op: blob.put
        blob: b
        capture: {etg: e1}
        expect: {status: 201}
`, 9, 19, "rules[0].steps[0].capture.etg", `unknown field "etg" (did you mean "etag"?); allowed fields: etag, lease_id, last_modified, pop_receipt, request_id, copy_id`},
		{"source condition on an op other than copy", head + `      - op: blob.put
        blob: b
        source_if_match: "\"0x1\""
        expect: {status: 201}
`, 9, 9, "rules[0].steps[0].source_if_match", `op blob.put does not take "source_if_match"; it takes: blob, container, body`},
		{"misspelt source condition", head + `      - op: blob.copy
        blob: d
        source: s
        source_if_matches: "\"0x1\""
        expect: {status: 202}
`, 10, 9, "rules[0].steps[0].source_if_matches", `unknown field "source_if_matches" (did you mean "source_if_match"?)`},
		{"bad source date", head + `      - op: blob.copy
        blob: d
        source: s
        source_if_unmodified_since: yesterday
        expect: {status: 202}
`, 10, 37, "rules[0].steps[0].source_if_unmodified_since", `must be an RFC 1123 date`},
		{"source etag of the wrong kind", head + `      - op: blob.put
        blob: s
        capture: {last_modified: lm}
        expect: {status: 201}
      - op: blob.copy
        blob: d
        source: s
        source_if_none_match: $lm
        expect: {status: 202}
`, 14, 31, "rules[0].steps[1].source_if_none_match", `$lm holds a last_modified (captured at line 9); this field takes a captured etag`},
		{"abortcopy without copy_id", head + `      - op: blob.abortcopy
        blob: d
        expect: {status: 409}
`, 7, 9, "rules[0].steps[0].copy_id", `missing; it is required`},
		{"copy_id of the wrong kind", head + `      - op: blob.copy
        blob: d
        source: s
        capture: {etag: e1}
        expect: {status: 202}
      - op: blob.abortcopy
        blob: d
        copy_id: $e1
        expect: {status: 409}
`, 14, 18, "rules[0].steps[1].copy_id", `$e1 holds a etag (captured at line 10); this field takes a captured copy_id`},
		{"copy_id on an op other than abortcopy", head + `      - op: blob.copy
        blob: d
        source: s
        copy_id: abc
        expect: {status: 202}
`, 10, 9, "rules[0].steps[0].copy_id", `op blob.copy does not take "copy_id"`},
		{"abortcopy takes no conditions", head + `      - op: blob.abortcopy
        blob: d
        copy_id: abc
        if_match: "*"
        expect: {status: 409}
`, 10, 9, "rules[0].steps[0].if_match", `op blob.abortcopy does not take "if_match"; it takes: blob, container, lease_id, copy_id, evidence, capture, expect`},
		{"table alias with a hyphen", head + `      - op: table.get
        table: t-2
        row: r1
        expect: {status: 200}
`, 8, 16, "rules[0].steps[0].table", `must be a table alias of lower-case letters and digits ([a-z0-9]+: table names allow no hyphens), got "t-2"`},
		{"queue alias with a double hyphen", head + `      - op: queue.peek
        queue: q--2
        expect: {status: 200}
`, 8, 16, "rules[0].steps[0].queue", `must be a queue alias of lower-case letters and digits with single hyphens between them, got "q--2"`},
		{"delete entity without if_match", head + `      - op: table.delete
        row: r1
        expect: {status: 204}
`, 7, 9, "rules[0].steps[0].if_match", `missing; it is required`},
		{"entity op without row", head + `      - op: table.get
        expect: {status: 200}
`, 7, 9, "rules[0].steps[0].row", `missing; it is required`},
		{"get entity takes no properties", head + `      - op: table.get
        row: r1
        properties: {v: "1"}
        expect: {status: 200}
`, 9, 9, "rules[0].steps[0].properties", `op table.get does not take "properties"; it takes: table, partition, row, evidence, capture, expect`},
		{"upsert takes no if_match", head + `      - op: table.upsert
        row: r1
        if_match: "*"
        expect: {status: 204}
`, 9, 9, "rules[0].steps[0].if_match", `op table.upsert does not take "if_match"`},
		{"empty key", head + `      - op: table.get
        partition: ""
        row: r1
        expect: {status: 200}
`, 8, 20, "rules[0].steps[0].partition", `must not be empty (the service allows empty keys, but the Go SDK cannot address such an entity)`},
		{"key with a slash", head + `      - op: table.get
        row: a/b
        expect: {status: 200}
`, 8, 14, "rules[0].steps[0].row", `a key may not hold /, \, #, ? or control characters, got "a/b"`},
		{"system property written", head + `      - op: table.insert
        row: r1
        properties: {RowKey: x}
        expect: {status: 201}
`, 9, 22, "rules[0].steps[0].properties.RowKey", `RowKey is a system property; write the keys with partition and row`},
		{"padding property written", head + `      - op: table.insert
        row: r1
        properties: {scpad0: x}
        expect: {status: 201}
`, 9, 22, "rules[0].steps[0].properties.scpad0", `property names starting with "scpad" are the runner's padding`},
		{"bad property name", head + `      - op: table.insert
        row: r1
        properties: {"1v": x}
        expect: {status: 201}
`, 9, 22, "rules[0].steps[0].properties.1v", `a property name is a letter or _ then letters, digits or _`},
		{"property value not a string", head + `      - op: table.insert
        row: r1
        properties: {v: 1}
        expect: {status: 201}
`, 9, 25, "rules[0].steps[0].properties.v", `must be a string, got 1; quote it if you mean text: "1"`},
		{"batch without actions", head + `      - op: table.batch
        expect: {status: 202}
`, 7, 9, "rules[0].steps[0].actions", `missing; it is required`},
		{"batch with an empty action list", head + `      - op: table.batch
        actions: []
        expect: {status: 202}
`, 8, 18, "rules[0].steps[0].actions", `must be a list of at least one action`},
		{"unknown action kind", head + `      - op: table.batch
        actions:
          - {kind: replace, row: r1}
        expect: {status: 202}
`, 9, 20, "rules[0].steps[0].actions[0].kind", `unknown action kind "replace"; kinds: insert, update, merge, upsert, upsert-merge, delete`},
		{"unknown action field", head + `      - op: table.batch
        actions:
          - {kind: insert, rows: r1}
        expect: {status: 202}
`, 9, 28, "rules[0].steps[0].actions[0].rows", `unknown field "rows" (did you mean "row"?); allowed fields: kind, row, partition, count, pad, properties, if_match`},
		{"action without row", head + `      - op: table.batch
        actions:
          - {kind: insert}
        expect: {status: 202}
`, 9, 13, "rules[0].steps[0].actions[0].row", `missing; it is required`},
		{"if_match on an insert action", head + `      - op: table.batch
        actions:
          - {kind: insert, row: r1, if_match: "*"}
        expect: {status: 202}
`, 9, 37, "rules[0].steps[0].actions[0].if_match", `insert actions take no if_match (only update, merge and delete do)`},
		{"delete action without if_match", head + `      - op: table.batch
        actions:
          - {kind: delete, row: r1}
        expect: {status: 202}
`, 9, 13, "rules[0].steps[0].actions[0].if_match", `missing; a delete action requires it`},
		{"action count 0", head + `      - op: table.batch
        actions:
          - {kind: insert, row: r, count: 0}
        expect: {status: 202}
`, 9, 43, "rules[0].steps[0].actions[0].count", `must be at least 1, got 0`},
		{"too many actions", head + `      - op: table.batch
        actions:
          - {kind: insert, row: r, count: 1001}
        expect: {status: 202}
`, 9, 13, "rules[0].steps[0].actions[0]", `the batch would have more than 1000 actions`},
		{"pad over 1 MiB", head + `      - op: table.batch
        actions:
          - {kind: insert, row: r, pad: 2000000}
        expect: {status: 202}
`, 9, 41, "rules[0].steps[0].actions[0].pad", `must be 0..1048576 bytes (an entity holds at most 1 MiB), got 2000000`},
		{"stale etag of the wrong kind in an action", head + `      - op: queue.put
        text: m
        capture: {message_id: m1}
        expect: {status: 201}
      - op: table.batch
        actions:
          - {kind: update, row: r, if_match: $m1}
        expect: {status: 202}
`, 13, 46, "rules[0].steps[1].actions[0].if_match", `$m1 holds a message_id (captured at line 9); this field takes a captured etag`},
		{"update message without pop receipt", head + `      - op: queue.update
        message_id: abc
        text: m
        visibility: 0
        expect: {status: 204}
`, 7, 9, "rules[0].steps[0].pop_receipt", `missing; it is required`},
		{"update message without visibility", head + `      - op: queue.update
        message_id: abc
        pop_receipt: def
        text: m
        expect: {status: 204}
`, 7, 9, "rules[0].steps[0].visibility", `missing; it is required`},
		{"num_messages quoted", head + `      - op: queue.get
        num_messages: "32"
        expect: {status: 200}
`, 8, 23, "rules[0].steps[0].num_messages", `must be a whole number: the number of messages (numofmessages`},
		{"visibility with a unit", head + `      - op: queue.get
        visibility: 2s
        expect: {status: 200}
`, 8, 21, "rules[0].steps[0].visibility", `must be a whole number: the visibility timeout in seconds, got "2s"`},
		{"peek takes no visibility", head + `      - op: queue.peek
        visibility: 2
        expect: {status: 200}
`, 8, 9, "rules[0].steps[0].visibility", `op queue.peek does not take "visibility"; it takes: queue, num_messages, evidence, capture, expect`},
		{"put count out of range", head + `      - op: queue.put
        text: m
        count: 101
        expect: {status: 201}
`, 9, 16, "rules[0].steps[0].count", `must be 1..100, got 101`},
		{"pop receipt of the wrong kind", head + `      - op: queue.put
        text: m
        capture: {message_id: m1}
        expect: {status: 201}
      - op: queue.delete
        message_id: $m1
        pop_receipt: $m1
        expect: {status: 204}
`, 13, 22, "rules[0].steps[1].pop_receipt", `$m1 holds a message_id (captured at line 9); this field takes a captured pop_receipt`},
		{"message capture on a table op", head + `      - op: table.insert
        row: r1
        capture: {message_id: m1}
        expect: {status: 201}
`, 9, 19, "rules[0].steps[0].capture.message_id", `op table.insert returns no message_id to capture; it can capture: etag, request_id`},
		{"etag capture on a queue op", head + `      - op: queue.get
        capture: {etag: e1}
        expect: {status: 200}
`, 8, 19, "rules[0].steps[0].capture.etag", `op queue.get returns no etag to capture; it can capture: pop_receipt, request_id, message_id, next_visible`},
		{"pop receipt capture on peek", head + `      - op: queue.peek
        capture: {pop_receipt: p1}
        expect: {status: 200}
`, 8, 19, "rules[0].steps[0].capture.pop_receipt", `op queue.peek returns no pop_receipt to capture; it can capture: request_id`},
		{"messages expected of a table op", head + `      - op: table.get
        row: r1
        expect: {status: 200, messages: 1}
`, 9, 31, "rules[0].steps[0].expect.messages", `op table.get returns nothing messages checks; it applies to queue.get, queue.peek`},
		{"properties expected of a query", head + `      - op: table.query
        expect: {status: 200, properties: {v: "1"}}
`, 8, 31, "rules[0].steps[0].expect.properties", `op table.query returns nothing properties checks; it applies to table.get`},
		{"negative message count", head + `      - op: queue.get
        expect: {status: 200, messages: -1}
`, 8, 41, "rules[0].steps[0].expect.messages", `must be the number of messages returned (a whole number, 0 or more), got -1`},
		{"pop receipt expectation on a literal", head + `      - op: queue.get
        expect: {status: 200, pop_receipt: {differs: abc}}
`, 8, 54, "rules[0].steps[0].expect.pop_receipt.differs", `must be a captured pop_receipt $var, got "abc"`},
		{"message id expectation not a mapping", head + `      - op: queue.put
        text: m
        capture: {message_id: m1}
        expect: {status: 201}
      - op: queue.get
        expect: {status: 200, message_id: $m1}
`, 12, 43, "rules[0].steps[1].expect.message_id", `must be a mapping of one of equals or differs to a captured message_id $var, got "$m1"`},
		{"unknown expect field lists the new ones", head + `      - op: queue.get
        expect: {status: 200, mesages: 1}
`, 8, 31, "rules[0].steps[0].expect.mesages", `unknown field "mesages" (did you mean "messages"?); allowed fields: status, error_code, etag, headers_present, headers_absent, headers, body, messages, dequeue_count, text, message_id, pop_receipt, next_visible_in, properties, entities, failed_index`},
		{"first tag not a service", `rules:
  - id: r.one
    title: T
    source: S
    tags: [lease, blob]
    steps: [{op: wait, duration: 1s}]
`, 5, 12, "rules[0].tags[0]", `the first tag is the service, one of blob, container, table, queue, file; got "lease"`},
		{"bad id", `rules:
  - id: R_1
    title: T
    source: S
    tags: [blob]
    steps: [{op: wait, duration: 1s}]
`, 2, 9, "rules[0].id", `must match [a-z0-9][a-z0-9.-]*`},
		{"duplicate id in a file", `rules:
  - {id: a, title: T, source: S, tags: [blob], steps: [{op: wait, duration: 1s}]}
  - {id: a, title: T, source: S, tags: [blob], steps: [{op: wait, duration: 1s}]}
`, 3, 10, "rules[1].id", `duplicate rule id "a" (first at line 2)`},
		{"unknown rule field", `rules:
  - id: a
    titel: T
`, 3, 5, "rules[0].titel", `unknown field "titel" (did you mean "title"?); allowed fields: id, title, source, tags, steps`},
		{"yaml syntax", "rules:\n  - id: [\n", 2, 3, "", `did not find expected node content`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantParseError(t, tc.src, tc.line, tc.col, tc.field, tc.msg) })
	}
}

// wantParseError checks that src (as f.yaml) fails with an error at
// line:col in field whose message holds msg.
func wantParseError(t *testing.T, src string, line, col int, field, msg string) {
	t.Helper()
	_, err := Parse("f.yaml", []byte(src))
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("want an ErrorList, got %v", err)
	}
	for _, e := range list {
		if e.File == "f.yaml" && e.Line == line && e.Col == col && e.Field == field && strings.Contains(e.Msg, msg) {
			return
		}
	}
	t.Errorf("no error f.yaml:%d:%d: %s: ...%s...; got:\n%v", line, col, field, msg, err)
}

func TestParseRoundTrip(t *testing.T) {
	src := `rules:
  - id: blob.lease.etag-unchanged
    title: Lease Blob does not change the ETag
    source: "Lease Blob"
    tags: [blob, lease, etag, slow]
    steps:
      - op: blob.put
        blob: b
        body: "v1"
        metadata: {k: v}
        capture: {etag: e1, last_modified: lm}
        expect: {status: 201}
      - op: blob.lease.acquire
        blob: b
        duration: 99
        proposed_lease_id: 11111111-1111-4111-8111-111111111111
        capture: {lease_id: l1}
        expect: {status: [201, 200], etag: {equals: $e1}, headers_present: [x-ms-lease-id]}
      - op: blob.put
        blob: b
        body: "v2"
        if_unmodified_since: $lm+1s
        if_modified_since: $now-2d
        lease_id: $l1
        expect: {status: 412, error_code: [LeaseIdMissing, X], etag: unchanged, body: ""}
      - op: wait
        duration: 16s
`
	rules, err := Parse("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	d99, empty := 99, ""
	want := []Rule{{
		ID: "blob.lease.etag-unchanged", Title: "Lease Blob does not change the ETag", Source: "Lease Blob", Evidence: Source{Text: "Lease Blob"},
		Tags: []string{"blob", "lease", "etag", "slow"}, File: "f.yaml", Line: 2, Col: 9,
		Steps: []Step{
			{Op: "blob.put", Blob: "b", Body: ptr("v1"), Metadata: map[string]string{"k": "v"},
				Capture: map[string]string{"etag": "e1", "last_modified": "lm"}, Expect: Expect{Status: []int{201}}, Line: 7},
			{Op: "blob.lease.acquire", Blob: "b", Duration: &d99,
				ProposedLeaseID: &Value{Literal: "11111111-1111-4111-8111-111111111111"},
				Capture:         map[string]string{"lease_id": "l1"},
				Expect: Expect{Status: []int{201, 200}, ETag: ETagExpect{Kind: ETagEquals, Var: "e1"},
					HeadersPresent: []string{"x-ms-lease-id"}}, Line: 13},
			{Op: "blob.put", Blob: "b", Body: ptr("v2"),
				IfUnmodifiedSince: &Value{Ref: "lm", Offset: time.Second},
				IfModifiedSince:   &Value{Now: true, Offset: -48 * time.Hour},
				LeaseID:           &Value{Ref: "l1"},
				Expect: Expect{Status: []int{412}, ErrorCode: []string{"LeaseIdMissing", "X"},
					ETag: ETagExpect{Kind: ETagUnchanged}, Body: &empty}, Line: 19},
			{Op: "wait", Wait: 16 * time.Second, Line: 26},
		},
	}}
	if !reflect.DeepEqual(rules, want) {
		t.Errorf("got  %+v\nwant %+v", rules, want)
	}
}

func TestParseCopyConditionsAndAbort(t *testing.T) {
	src := head + `      - op: blob.put
        blob: s
        capture: {etag: s1, last_modified: slm}
        expect: {status: 201}
      - op: blob.copy
        blob: d
        source: s
        source_if_match: $s1
        source_if_none_match: "\"0x1\""
        source_if_modified_since: $slm-1d
        source_if_unmodified_since: $slm
        capture: {copy_id: c1}
        expect: {status: 202, headers_present: [x-ms-copy-id]}
      - op: blob.abortcopy
        blob: d
        copy_id: $c1
        lease_id: 11111111-1111-4111-8111-111111111111
        expect: {status: 409, error_code: NoPendingCopyOperation}
      - op: blob.abortcopy
        blob: d
        copy_id: 22222222-2222-4222-8222-222222222222
        expect: {status: 409}
`
	rules, err := Parse("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	st := rules[0].Steps
	want := []Step{
		{Op: "blob.put", Blob: "s", Capture: map[string]string{"etag": "s1", "last_modified": "slm"},
			Expect: Expect{Status: []int{201}}, Line: 7},
		{Op: "blob.copy", Blob: "d", Source: "s",
			SourceIfMatch: &Value{Ref: "s1"}, SourceIfNoneMatch: &Value{Literal: `"0x1"`},
			SourceIfModifiedSince: &Value{Ref: "slm", Offset: -24 * time.Hour}, SourceIfUnmodifiedSince: &Value{Ref: "slm"},
			Capture: map[string]string{"copy_id": "c1"},
			Expect:  Expect{Status: []int{202}, HeadersPresent: []string{"x-ms-copy-id"}}, Line: 11},
		{Op: "blob.abortcopy", Blob: "d", CopyID: &Value{Ref: "c1"},
			LeaseID: &Value{Literal: "11111111-1111-4111-8111-111111111111"},
			Expect:  Expect{Status: []int{409}, ErrorCode: []string{"NoPendingCopyOperation"}}, Line: 20},
		{Op: "blob.abortcopy", Blob: "d", CopyID: &Value{Literal: "22222222-2222-4222-8222-222222222222"},
			Expect: Expect{Status: []int{409}}, Line: 25},
	}
	if !reflect.DeepEqual(st, want) {
		t.Errorf("got  %+v\nwant %+v", st, want)
	}
}

func TestParseTablesAndQueues(t *testing.T) {
	src := head + `      - op: table.insert
        table: t2
        partition: "p 1"
        row: r1
        properties: {v: "1", w: "x"}
        capture: {etag: e1}
        expect: {status: 201}
      - op: table.update
        row: r1
        if_match: $e1
        properties: {v: "2"}
        expect: {status: 204, etag: changed}
      - op: table.get
        row: r1
        expect: {status: 200, properties: {v: "2"}}
      - op: table.batch
        partition: p2
        actions:
          - {kind: insert, row: r, count: 3, pad: 10, properties: {v: "1"}}
          - {kind: delete, row: d, partition: q, if_match: "*"}
        expect: {status: [400, 409], error_code: EntityAlreadyExists, failed_index: 1}
      - op: table.query
        expect: {status: 200, entities: 0}
      - op: queue.put
        queue: q-2
        text: hello
        count: 2
        visibility: 5
        capture: {message_id: m1, next_visible: nv}
        expect: {status: 201, next_visible_in: 5}
      - op: queue.get
        num_messages: 32
        visibility: 1
        capture: {pop_receipt: p1}
        expect: {status: 200, messages: 1, dequeue_count: 1, text: hello, message_id: {equals: $m1}}
      - op: queue.update
        message_id: $m1
        pop_receipt: $p1
        text: bye
        visibility: 0
        expect: {status: 204, pop_receipt: {differs: $p1}}
      - op: queue.delete
        message_id: $m1
        pop_receipt: literal
        expect: {status: 404, error_code: MessageNotFound}
`
	rules, err := Parse("f.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	zero, one, five, thirty2, p1, p2, q := 0, 1, 5, 32, "p 1", "p2", "q"
	hello := "hello"
	inserts := make([]BatchAction, 3)
	for i := range inserts {
		inserts[i] = BatchAction{Kind: "insert", Row: "r00" + string(rune('0'+i)), Pad: 10, Properties: map[string]string{"v": "1"}}
	}
	want := []Step{
		{Op: "table.insert", Table: "t2", Partition: &p1, Row: "r1", Properties: map[string]string{"v": "1", "w": "x"},
			Capture: map[string]string{"etag": "e1"}, Expect: Expect{Status: []int{201}}, Line: 7},
		{Op: "table.update", Row: "r1", IfMatch: &Value{Ref: "e1"}, Properties: map[string]string{"v": "2"},
			Expect: Expect{Status: []int{204}, ETag: ETagExpect{Kind: ETagChanged}}, Line: 14},
		{Op: "table.get", Row: "r1", Expect: Expect{Status: []int{200}, Properties: map[string]string{"v": "2"}}, Line: 19},
		{Op: "table.batch", Partition: &p2,
			Actions: append(inserts, BatchAction{Kind: "delete", Row: "d", Partition: &q, IfMatch: &Value{Literal: "*"}}),
			Expect:  Expect{Status: []int{400, 409}, ErrorCode: []string{"EntityAlreadyExists"}, FailedIndex: &one}, Line: 22},
		{Op: "table.query", Expect: Expect{Status: []int{200}, Entities: &zero}, Line: 28},
		{Op: "queue.put", Queue: "q-2", Text: &hello, Count: 2, Visibility: &five,
			Capture: map[string]string{"message_id": "m1", "next_visible": "nv"},
			Expect:  Expect{Status: []int{201}, NextVisibleIn: &five}, Line: 30},
		{Op: "queue.get", NumMessages: &thirty2, Visibility: &one, Capture: map[string]string{"pop_receipt": "p1"},
			Expect: Expect{Status: []int{200}, Messages: &one, DequeueCount: &one, Text: &hello,
				MessageID: RefExpect{Kind: ETagEquals, Var: "m1"}}, Line: 37},
		{Op: "queue.update", MessageID: &Value{Ref: "m1"}, PopReceipt: &Value{Ref: "p1"}, Text: ptr("bye"), Visibility: &zero,
			Expect: Expect{Status: []int{204}, PopReceipt: RefExpect{Kind: ETagDiffers, Var: "p1"}}, Line: 42},
		{Op: "queue.delete", MessageID: &Value{Ref: "m1"}, PopReceipt: &Value{Literal: "literal"},
			Expect: Expect{Status: []int{404}, ErrorCode: []string{"MessageNotFound"}}, Line: 48},
	}
	if got := rules[0].Steps; !reflect.DeepEqual(got, want) {
		for i := range want {
			if i < len(got) && !reflect.DeepEqual(got[i], want[i]) {
				t.Errorf("step %d:\ngot  %+v\nwant %+v", i, got[i], want[i])
			}
		}
		if len(got) != len(want) {
			t.Errorf("%d steps, want %d", len(got), len(want))
		}
	}
}

func ptr(s string) *string { return &s }

func TestLoadDirDuplicateAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	rule := "rules:\n  - {id: dup.x, title: T, source: S, tags: [blob], steps: [{op: wait, duration: 1s}]}\n"
	for _, name := range []string{"a.yaml", "b.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(rule), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := LoadDir(dir)
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 1 {
		t.Fatalf("want one error, got %v", err)
	}
	e, a := list[0], filepath.Join(dir, "a.yaml")
	if e.File != filepath.Join(dir, "b.yaml") || e.Line != 2 || e.Col != 10 || e.Field != "rules[0].id" ||
		e.Msg != `duplicate rule id "dup.x", first at `+a+`:2:10; ids are unique across all rule files` {
		t.Errorf("got %#v", e)
	}
}

func TestSelect(t *testing.T) {
	rs := &RuleSet{Rules: []Rule{
		{ID: "a", Tags: []string{"blob", "lease"}},
		{ID: "b", Tags: []string{"blob", "etag"}},
		{ID: "c", Tags: []string{"container", "lease"}},
	}}
	ids := func(rules []Rule) string {
		var s []string
		for _, r := range rules {
			s = append(s, r.ID)
		}
		return strings.Join(s, ",")
	}
	for _, tc := range []struct {
		tags []string
		want string
	}{
		{nil, "a,b,c"},
		{[]string{"lease"}, "a,c"},
		{[]string{"blob", "lease"}, "a"},
		{[]string{"queue"}, ""},
		{[]string{"-lease"}, "b"},
		{[]string{"blob", "-etag"}, "a"},
		{[]string{"-queue"}, "a,b,c"},
	} {
		if got := ids(rs.Select(tc.tags)); got != tc.want {
			t.Errorf("Select(%v) = %s, want %s", tc.tags, got, tc.want)
		}
	}
}

func TestShippedRulesLoad(t *testing.T) {
	rs, err := LoadDir("rules")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{}
	for _, r := range rs.Rules {
		files[r.File] = true
	}
	matches, _ := filepath.Glob("rules/*.yaml")
	if len(matches) < 3 || len(files) != len(matches) {
		t.Errorf("rules come from %d files, %d *.yaml shipped", len(files), len(matches))
	}
	if len(rs.Select([]string{"lease"})) == 0 {
		t.Error("no shipped lease rules")
	}
}
