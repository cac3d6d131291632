package conformance

import (
	"strings"
	"testing"
	"time"
)

// rawHead is a rule whose first step captures an etag (e1) and a
// last_modified (lm); tests append a raw step.
const rawHead = head + `      - {op: blob.put, blob: b, body: "v1", capture: {etag: e1, last_modified: lm}, expect: {status: 201}}
`

func TestParseRawErrors(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		line, col int
		field     string
		msg       string
	}{
		{"no request", rawHead + `      - op: blob.raw
        blob: b
        expect: {status: 201}
`, 8, 9, "rules[0].steps[1].request", "missing; it is required"},
		{"lower-case method", rawHead + `      - op: blob.raw
        blob: b
        request: {method: put}
        expect: {status: 201}
`, 10, 27, "rules[0].steps[1].request.method", `must be an HTTP method in upper case (GET, HEAD, PUT, DELETE, ...), got "put"`},
		{"unknown request field", rawHead + `      - op: blob.raw
        blob: b
        request: {method: PUT, header: {}}
        expect: {status: 201}
`, 10, 32, "rules[0].steps[1].request.header", `unknown field "header" (did you mean "headers"?); allowed fields: method, path, query, headers, omit, sign, date, body, body_base64, parts`},
		{"header the client writes", rawHead + `      - op: blob.raw
        blob: b
        request: {method: PUT, headers: {Content-Length: "3"}}
        expect: {status: 201}
`, 10, 42, "rules[0].steps[1].request.headers.Content-Length", "is written by the HTTP client"},
		{"header twice", rawHead + `      - op: blob.raw
        blob: b
        request: {method: PUT, headers: {x-ms-version: "2021-12-02", X-MS-Version: "2020-10-02"}}
        expect: {status: 201}
`, 10, 70, "rules[0].steps[1].request.headers.X-MS-Version", "X-MS-Version is given twice (as x-ms-version)"},
		{"sent and omitted", rawHead + `      - op: blob.raw
        blob: b
        request: {method: PUT, headers: {x-ms-blob-type: BlockBlob}, omit: [X-Ms-Blob-Type]}
        expect: {status: 201}
`, 10, 77, "rules[0].steps[1].request.omit[0]", "X-Ms-Blob-Type is both in headers and in omit"},
		{"bad sign", rawHead + `      - op: blob.raw
        blob: b
        request: {method: PUT, sign: sharedkey}
        expect: {status: 201}
`, 10, 38, "rules[0].steps[1].request.sign", `must be one of shared-key, shared-key-lite, wrong, none, got "sharedkey"`},
		{"no date with a signature", rawHead + `      - op: blob.raw
        blob: b
        request: {method: PUT, date: none}
        expect: {status: 403}
`, 10, 38, "rules[0].steps[1].request.date", "a Shared Key signature covers the request's date"},
		{"bad base64", rawHead + `      - op: blob.raw
        blob: b
        request: {method: PUT, body_base64: "***"}
        expect: {status: 201}
`, 10, 45, "rules[0].steps[1].request.body_base64", "must be standard base64"},
		{"uncaptured placeholder", rawHead + `      - op: blob.raw
        blob: b
        request: {method: GET, headers: {If-Match: "${e2}"}}
        expect: {status: 200}
`, 10, 52, "rules[0].steps[1].request.headers.If-Match", "${e2}: $e2 is not captured by an earlier step of this rule (captured so far: e1, lm)"},
		{"date format on an etag", rawHead + `      - op: blob.raw
        blob: b
        request: {method: GET, headers: {If-Match: "${e1|rfc850}"}}
        expect: {status: 200}
`, 10, 52, "rules[0].steps[1].request.headers.If-Match", "the date format |rfc850 applies to a date; $e1 holds a etag"},
		{"unknown filter", rawHead + `      - op: blob.raw
        blob: b
        request: {method: GET, headers: {If-Modified-Since: "${lm|rfc9110}"}}
        expect: {status: 200}
`, 10, 61, "rules[0].steps[1].request.headers.If-Modified-Since", "unknown filter |rfc9110"},
		{"unclosed placeholder", rawHead + `      - op: blob.raw
        blob: b
        request: {method: GET, headers: {If-Match: "${e1"}}
        expect: {status: 200}
`, 10, 52, "rules[0].steps[1].request.headers.If-Match", "an unclosed ${"},
		{"raw op does not take body", rawHead + `      - op: blob.raw
        blob: b
        body: x
        request: {method: PUT}
        expect: {status: 201}
`, 10, 9, "rules[0].steps[1].body", `op blob.raw does not take "body"; it takes: blob, container, request, evidence, capture, expect`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { wantParseError(t, tc.src, tc.line, tc.col, tc.field, tc.msg) })
	}
}

func TestParseRawStep(t *testing.T) {
	rules, err := Parse("f.yaml", []byte(rawHead+`      - op: blob.raw
        blob: b
        request:
          method: PUT
          query: {comp: lease}
          headers: {x-ms-version: "2021-12-02", x-ms-lease-action: acquire, If-Match: "${e1|unquote}, \"x\"", If-Unmodified-Since: "${lm+1s|asctime}"}
          omit: [x-ms-proposed-lease-id, Content-Length]
          sign: wrong
          body_base64: "AAE="
        expect: {status: 400, headers: {x-ms-error-code: InvalidHeaderValue}}
`))
	if err != nil {
		t.Fatal(err)
	}
	st := rules[0].Steps[1]
	r := st.Raw
	if st.Op != RawOp || r == nil || r.Method != "PUT" || r.Sign != SignWrong || r.Date != DateAuto || string(r.Body) != "\x00\x01" ||
		len(r.Query) != 1 || len(r.Headers) != 4 || strings.Join(r.Omit, ",") != "x-ms-proposed-lease-id,content-length" {
		t.Fatalf("raw step: %+v %+v", st, r)
	}
	lm := "Mon, 02 Jan 2006 15:04:05 GMT"
	vars := map[string]string{"e1": `"0x1"`, "lm": lm}
	if got := r.Headers[2].Value.Render(vars, time.Time{}); got != `0x1, "x"` {
		t.Errorf("If-Match renders %q", got)
	}
	if got := r.Headers[3].Value.Render(vars, time.Time{}); got != "Mon Jan  2 15:04:06 2006" {
		t.Errorf("If-Unmodified-Since renders %q", got)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tm := Template{Parts: []TemplatePart{{Now: true, Offset: -time.Hour, Format: "rfc850"}}}
	if got := tm.Render(nil, now); got != "Friday, 02-Jan-26 02:04:05 GMT" {
		t.Errorf("${now-1h|rfc850} renders %q", got)
	}
	if h := st.Expect.Headers; len(h) != 1 || h[0].Name != "x-ms-error-code" {
		t.Errorf("expect.headers: %+v", h)
	}
}
