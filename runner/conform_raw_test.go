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

// rawRules send requests the SDK never sends and read the state back with
// SDK steps.
const rawRules = `
rules:
  - id: test.raw-put
    title: a raw Put Blob as the SDK would send it, read back by the SDK
    source: test
    tags: [blob, raw]
    steps:
      - op: blob.raw
        blob: b
        request:
          method: PUT
          headers: {x-ms-version: "2021-12-02", x-ms-blob-type: BlockBlob, Content-Type: text/plain}
          body: "v1"
        capture: {etag: e1, last_modified: lm}
        expect: {status: 201, headers_present: [ETag], headers: {x-ms-request-server-encrypted: "true"}}
      - {op: blob.get, blob: b, expect: {status: 200, body: "v1", etag: {equals: $e1}}}
      - op: blob.raw
        blob: b
        request:
          method: GET
          headers: {x-ms-version: "2021-12-02", If-Match: "${e1|unquote}"}
        expect: {status: 200, body: "v1"}
      - op: blob.raw
        blob: b
        request:
          method: HEAD
          headers: {x-ms-version: "2021-12-02", If-Modified-Since: "${lm|rfc850}"}
        expect: {status: 304}
  - id: test.raw-missing-blob-type
    title: Put Blob without x-ms-blob-type is refused and writes nothing
    source: test
    tags: [blob, raw]
    steps:
      - op: blob.raw
        blob: b
        request:
          method: PUT
          headers: {x-ms-version: "2021-12-02"}
          omit: [x-ms-blob-type]
          body: "v1"
        expect: {status: 400, error_code: MissingRequiredHeader}
      - {op: blob.getprops, blob: b, expect: {status: 404}}
  - id: test.raw-wrong-signature
    title: a wrong signature is refused
    source: test
    tags: [blob, raw]
    steps:
      - op: blob.raw
        blob: b
        request:
          method: PUT
          headers: {x-ms-version: "2021-12-02", x-ms-blob-type: BlockBlob}
          sign: wrong
          body: "v1"
        expect: {status: 403, error_code: AuthenticationFailed}
      - {op: blob.getprops, blob: b, expect: {status: 404}}
  - id: test.raw-unsigned
    title: an unsigned, undated request goes out with only what it states (status 599 so that it diverges and keeps its exchange)
    source: test
    tags: [blob, raw]
    steps:
      - op: blob.raw
        blob: b
        request:
          method: PUT
          headers: {x-ms-version: "2021-12-02", x-ms-blob-type: BlockBlob}
          sign: none
          date: none
          body_base64: "/wA="
        expect: {status: 599}
`

func TestConformRawSteps(t *testing.T) {
	// A connection-string target: raw steps sign with the key it holds.
	ctx, inst := runtest.StartAzurite(t, azurite.Options{WorkDir: t.TempDir()})
	tgt := runtest.OpenTarget(ctx, t, inst)
	rules, err := conformance.Parse("raw.yaml", []byte(rawRules))
	if err != nil {
		t.Fatal(err)
	}
	res := conform.Run(ctx, ctx, tgt, rules, 2)
	if r := res[0]; r.Status != verdict.ConformPass {
		t.Errorf("a raw Put Blob, unquoted If-Match and an RFC 850 date: %s %s %+v", r.Status, r.Error, r.Steps)
	}
	// Azurite refuses a Put Blob without x-ms-blob-type with a bare 400
	// (no error code) and a wrong signature with 403 AuthorizationFailure:
	// the raw steps see what the SDK cannot send, and the state read back
	// by the SDK shows nothing was written.
	for i, want := range map[int]string{1: "400", 2: "403 AuthorizationFailure"} {
		r := res[i]
		d := r.Divergence()
		if r.Status != verdict.ConformDiverges || d == nil || d.Step != 1 || d.Actual != want || !r.Steps[1].Pass {
			t.Errorf("%s must diverge at step 1 showing %q, then read back 404: %+v", r.ID, want, r)
			continue
		}
		ex := d.Exchange
		if ex == nil || ex.Response == nil || ex.Request.Method != "PUT" {
			t.Fatalf("%s: no exchange kept: %+v", r.ID, d)
		}
		all := sentHeaders(ex, "\n")
		if strings.Contains(all, "User-Agent") || strings.Contains(all, "Blob-Type") && i == 1 ||
			!strings.Contains(all, "Authorization: REDACTED") || !strings.Contains(all, "X-Ms-Version: 2021-12-02") || !strings.Contains(all, "Content-Length: 2") {
			t.Errorf("%s: the headers sent are not the step's: %s", r.ID, all)
		}
		if !strings.HasPrefix(ex.Response.Status, want[:3]) || ex.Request.Body != "v1" {
			t.Errorf("%s: exchange %+v", r.ID, ex)
		}
	}
	// Unsigned and undated: on the wire are Host, Content-Length and the
	// two headers the step states, in that order, and the body as bytes.
	ex := res[3].Steps[0].Exchange
	if ex == nil || ex.Response == nil {
		t.Fatalf("unsigned step: %+v", res[3])
	}
	if got := sentHeaders(ex, " | "); !strings.HasPrefix(got, "Host: 127.0.0.1:") ||
		!strings.HasSuffix(got, " | Content-Length: 2 | X-Ms-Blob-Type: BlockBlob | X-Ms-Version: 2021-12-02") ||
		!ex.Request.BodyBase64 || ex.Request.Body != "/wA=" {
		t.Errorf("the unsigned request on the wire: %s, body %q (base64 %v)", got, ex.Request.Body, ex.Request.BodyBase64)
	}
}

// sentHeaders are the request headers of ex as "Name: value", joined by sep.
func sentHeaders(ex *verdict.Exchange, sep string) string {
	var sent []string
	for _, h := range ex.Request.Headers {
		sent = append(sent, h.Name+": "+h.Value)
	}
	return strings.Join(sent, sep)
}
