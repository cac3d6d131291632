package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stormcheck/stormcheck/runner/runtest"
)

// evidenceRules diverge on Azurite: a raw request signed with a wrong key
// is refused with 403 AuthorizationFailure (the Blob service error codes
// page: AuthenticationFailed), and an SDK step whose expectation is wrong
// on purpose.
const evidenceRules = `rules:
  - id: test.evidence-signature
    title: a wrong signature is refused with 403 AuthenticationFailed
    source:
      rest: https://learn.microsoft.com/rest/api/storageservices/blob-service-error-codes
      says: "AuthenticationFailed: Forbidden (403). Server failed to authenticate the request."
    tags: [blob, selftest]
    steps:
      - op: blob.raw
        blob: b
        request:
          method: PUT
          headers: {x-ms-version: "2021-12-02", x-ms-blob-type: BlockBlob, Content-Type: text/plain}
          sign: wrong
          body: "secret-free body"
        expect: {status: 403, error_code: AuthenticationFailed}
  - id: test.evidence-sdk
    title: a write without the lease id on a leased blob succeeds (wrong on purpose)
    source: "REST: Lease Blob"
    tags: [blob, selftest]
    steps:
      - {op: blob.put, blob: b, body: "v1", expect: {status: 201}}
      - {op: blob.lease.acquire, blob: b, duration: 15, expect: {status: 201}}
      - op: blob.put
        blob: b
        body: "v2"
        evidence: {rest: "https://learn.microsoft.com/rest/api/storageservices/put-blob", says: "a sentence the test looks for"}
        expect: {status: 201}
`

// TestConformEvidence runs rules that diverge on a real Azurite with
// --evidence and reads the files back: one per diverging step, each with
// the request and the response as sent and received, the expectation and
// the reference's sentence, and no secret anywhere in the results.
func TestConformEvidence(t *testing.T) {
	tmp := t.TempDir()
	rules, out, evidence := filepath.Join(tmp, "rules"), filepath.Join(tmp, "out"), filepath.Join(tmp, "evidence")
	_ = os.MkdirAll(rules, 0o755)
	_ = os.WriteFile(filepath.Join(rules, "e.yaml"), []byte(evidenceRules), 0o644)
	var stdout, stderr bytes.Buffer
	code := run([]string{"conform", "--rules", rules, "--tags", "selftest", "--out", out, "--evidence", evidence}, &stdout, &stderr)
	if code != exitViolation || !strings.Contains(stderr.String(), "2 evidence file(s) in "+evidence) {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(evidence, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	raw := read("test.evidence-signature.step-1.md")
	for _, want := range []string{
		"# test.evidence-signature: step 1 (blob.raw) diverges",
		"- Expected: 403 AuthenticationFailed\n- Got: 403 AuthorizationFailure",
		"> AuthenticationFailed: Forbidden (403). Server failed to authenticate the request.",
		"- Against: the documentation (no live record of this answer is cited)",
		"PUT /devstoreaccount1/", "/b HTTP/1.1\nHost: 127.0.0.1:",
		"\nX-Ms-Blob-Type: BlockBlob\n", "\nAuthorization: REDACTED\n", "\n\nsecret-free body\n",
		"HTTP/1.1 403 ", "<Code>AuthorizationFailure</Code>",
	} {
		if !strings.Contains(raw, want) {
			t.Errorf("the raw step's evidence lacks %q:\n%s", want, raw)
		}
	}
	sdk := read("test.evidence-sdk.step-3.md")
	for _, want := range []string{"- Got: 412 LeaseIdMissing", "> a sentence the test looks for", "PUT /devstoreaccount1/",
		"Authorization: REDACTED", "HTTP/1.1 412 ", "X-Ms-Error-Code: LeaseIdMissing", "\n\nv2\n"} {
		if !strings.Contains(sdk, want) {
			t.Errorf("the SDK step's evidence lacks %q:\n%s", want, sdk)
		}
	}
	if entries, _ := os.ReadDir(evidence); len(entries) != 2 {
		t.Errorf("want a file per diverging step (2), got %d", len(entries))
	}
	for _, s := range []string{"SharedKey devstoreaccount1:"} {
		if strings.Contains(raw+sdk, s) {
			t.Errorf("a signature is in the evidence: %q", s)
		}
	}
	runtest.AssertNoSecrets(t, evidence)
	runtest.AssertNoSecrets(t, out)
}

// md5Rule diverges on Azurite 3.26.0 only: it answers a Content-MD5
// mismatch with 400 InvalidOperation, 3.37.0 with Md5Mismatch. With it,
// evidenceRules holds divergences new on 3.26.0 (this one) and shared by
// both releases (the two of evidenceRules).
const md5Rule = `  - id: test.diff-md5
    title: Put Blob with a Content-MD5 that is not the body's is 400 Md5Mismatch
    source:
      rest: https://learn.microsoft.com/rest/api/storageservices/put-blob
      says: "If the two hashes don't match, the operation fails with error code 400 (Bad Request)."
    tags: [blob, selftest]
    steps:
      - op: blob.raw
        blob: b
        request:
          method: PUT
          headers: {x-ms-version: "2021-12-02", x-ms-blob-type: BlockBlob, Content-MD5: "eV8yArF8trw9S3cdjGyerw=="}
          body: "hello"
        expect: {status: 400, error_code: Md5Mismatch}
`

// TestConformDiffEvidence runs --diff across two Azurite releases with
// --evidence: only the divergence that is new on the second release gets
// its file, which says what the first answered; the divergence both share
// gets none.
func TestConformDiffEvidence(t *testing.T) {
	tmp := t.TempDir()
	rules, out, evidence := filepath.Join(tmp, "rules"), filepath.Join(tmp, "out"), filepath.Join(tmp, "evidence")
	_ = os.MkdirAll(rules, 0o755)
	_ = os.WriteFile(filepath.Join(rules, "d.yaml"), []byte(evidenceRules+md5Rule), 0o644)
	var stdout, stderr bytes.Buffer
	code := run([]string{"conform", "--rules", rules, "--tags", "selftest", "--out", out, "--evidence", evidence,
		"--diff", "azurite:3.37.0", "azurite:3.26.0"}, &stdout, &stderr)
	if code != exitViolation || !strings.Contains(stderr.String(), "1 evidence file(s) of divergences new or changed on azurite:3.26.0") {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "test.diff-md5") || strings.Contains(stdout.String(), "test.evidence-") {
		t.Errorf("the diff lists the wrong rules:\n%s", stdout.String())
	}
	entries, _ := os.ReadDir(evidence)
	if len(entries) != 1 || entries[0].Name() != "test.diff-md5.step-1.md" {
		t.Fatalf("evidence files: %v", entries)
	}
	b, _ := os.ReadFile(filepath.Join(evidence, entries[0].Name()))
	for _, want := range []string{"- Target: managed Azurite 3.26.0", "- Expected: 400 Md5Mismatch", "- Got: 400 InvalidOperation",
		"- On azurite:3.37.0: 400 Md5Mismatch (the answer changed on azurite:3.26.0)", "Content-Md5: eV8yArF8trw9S3cdjGyerw==", "REDACTED"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the evidence lacks %q:\n%s", want, b)
		}
	}
	runtest.AssertNoSecrets(t, evidence)
}

// TestConformEvidenceNewToBaseline: with --baseline, --evidence writes the
// divergences the baseline does not accept (the unexpected one, and the
// one whose answer changed, saying what the baseline accepts) and not the
// known one.
func TestConformEvidenceNewToBaseline(t *testing.T) {
	tmp := t.TempDir()
	rules, out, evidence, base := filepath.Join(tmp, "rules"), filepath.Join(tmp, "out"), filepath.Join(tmp, "evidence"), filepath.Join(tmp, "b.json")
	_ = os.MkdirAll(rules, 0o755)
	_ = os.WriteFile(filepath.Join(rules, "e.yaml"), []byte(evidenceRules+strings.Replace(md5Rule, "Md5Mismatch}", "Crc64Mismatch}", 1)), 0o644)
	_ = os.WriteFile(base, []byte(`{"target": "azurite 3.37.0", "divergences": [
  {"rule": "test.evidence-signature", "actual": "403 AuthorizationFailure", "reason": "known"},
  {"rule": "test.evidence-sdk", "actual": "412 LeaseIdMismatchWithBlobOperation", "reason": "another answer"}]}`), 0o644)
	var stdout, stderr bytes.Buffer
	code := run([]string{"conform", "--rules", rules, "--tags", "selftest", "--out", out, "--evidence", evidence, "--baseline", base}, &stdout, &stderr)
	if code != exitViolation || !strings.Contains(stderr.String(), "2 evidence file(s) in "+evidence) {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	var names []string
	entries, _ := os.ReadDir(evidence)
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "test.diff-md5.step-1.md test.evidence-sdk.step-3.md" {
		t.Fatalf("evidence files: %v (want the unexpected and the changed divergence)", names)
	}
	b, _ := os.ReadFile(filepath.Join(evidence, "test.evidence-sdk.step-3.md"))
	if !strings.Contains(string(b), "- Baseline azurite 3.37.0 accepts: 412 LeaseIdMismatchWithBlobOperation (the answer changed)") {
		t.Errorf("the changed divergence does not say what the baseline accepts:\n%s", b)
	}
}
