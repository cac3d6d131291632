package conformance

import (
	"errors"
	"strings"
	"testing"
)

// A raw step claims the points of the operation its request is, for the
// headers it carries or leaves out; its claims count in the coverage map
// like an SDK step's, and undecided ones stay undecided.
const rawCoveredRule = `
rules:
  - id: t.rawcov
    title: T
    source: "REST: Put Blob (https://learn.microsoft.com/rest/api/storageservices/put-blob)"
    tags: [blob]
    covers: [COVERS]
    steps:
      - {op: blob.put, blob: b, body: "1", capture: {etag: e1}, expect: {status: 201}}
      - op: blob.raw
        blob: b
        request:
          method: PUT
          query: {comp: metadata}
          headers: {x-ms-version: "2021-12-02", If-Match: "*", x-ms-meta-a: "1"}
        expect: {status: STATUS}
      - op: blob.raw
        blob: b
        request:
          method: PUT
          query: {comp: appendblock}
          headers: {x-ms-version: "2021-12-02", x-ms-blob-condition-appendpos: "x"}
          body: "z"
        expect: {status: 400}
      - op: blob.raw
        request:
          method: PUT
          query: {restype: container, comp: lease}
          headers: {x-ms-version: "2021-12-02", x-ms-lease-action: acquire, x-ms-lease-duration: "-1"}
        expect: {status: 201}
`

func rawCovered(covers, status string) string {
	return strings.NewReplacer("COVERS", covers, "STATUS", status).Replace(rawCoveredRule)
}

func TestRawStepsClaimWhatTheirRequestSends(t *testing.T) {
	covers := `"blob.setmeta if-match=star", "blob.setmeta state=exists", "blob.append x-ms-blob-condition-appendpos=invalid", "container.lease.acquire x-ms-lease-duration=valid", "blob.append error=InvalidHeaderValue"`
	rules, err := Parse("r.yaml", []byte(rawCovered(covers, "200")))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, oc := range Coverage(rules) {
		for _, d := range oc.Dims {
			for _, p := range d.Points {
				switch {
				case len(p.Rules) > 0:
					got[oc.Ref.Op+" "+d.Name+"="+p.Value] = "covered"
				case len(p.Undecided) > 0:
					got[oc.Ref.Op+" "+d.Name+"="+p.Value] = "undecided"
				}
			}
		}
	}
	for _, want := range []string{"blob.setmeta if-match=star", "blob.setmeta state=exists", "blob.append x-ms-blob-condition-appendpos=invalid", "container.lease.acquire x-ms-lease-duration=valid"} {
		if got[want] != "covered" {
			t.Errorf("%s: %q, want covered (all: %v)", want, got[want], got)
		}
	}
	// The same rule accepting two answers on the raw Set Blob Metadata
	// step, with no live evidence, leaves that op's points undecided.
	rules, err = Parse("r.yaml", []byte(rawCovered(covers, "[200, 412]")))
	if err != nil {
		t.Fatal(err)
	}
	for _, oc := range Coverage(rules) {
		if oc.Ref.Op == "blob.setmeta" {
			if u := strings.Join(oc.UndecidedPoints(), " "); !strings.Contains(u, "if-match=star") {
				t.Errorf("blob.setmeta undecided points: %q", u)
			}
		}
		if oc.Ref.Op == "blob.append" {
			if c, _ := oc.Covered(); c != 2 {
				t.Errorf("blob.append: %d covered, want 2 (the undecided step is another op's)", c)
			}
		}
	}
}

func TestRawStepsCannotClaimWhatTheyDoNotSend(t *testing.T) {
	for _, tc := range []struct{ cover, want string }{
		{"blob.delete if-match=star", "has no blob.delete step (nor a raw step whose request is Delete Blob)"},
		{"blob.put if-match=star", "no blob.put step sends if-match"},
		{"blob.setprops if-match=star", "has no blob.setprops step"},
		{"blob.setmeta if-none-match=true", "no blob.setmeta step sends if-none-match"},
		{"blob.setmeta if-match=list", "but no step sends if-match with that value"},
		{"blob.append x-ms-blob-condition-maxsize=invalid", "no blob.append step sends x-ms-blob-condition-maxsize"},
		{"container.lease.renew x-ms-lease-id=match", "has no container.lease.renew step"},
	} {
		_, err := Parse("r.yaml", []byte(rawCovered(`"`+tc.cover+`"`, "200")))
		var list ErrorList
		if !errors.As(err, &list) || len(list) != 1 || !strings.Contains(list[0].Error(), tc.want) || !strings.Contains(list[0].Error(), "r.yaml:7:") {
			t.Errorf("%s: want one error at r.yaml:7 saying %q, got %v", tc.cover, tc.want, err)
		}
	}
}

// RawRefOp names the operation of each request form the shipped raw rules
// use, and none for a request that is no operation of the checklist.
func TestRawRefOp(t *testing.T) {
	hdr := func(kv ...string) []RawParam {
		var out []RawParam
		for i := 0; i < len(kv); i += 2 {
			out = append(out, RawParam{Name: kv[i], Value: Template{Parts: []TemplatePart{{Literal: kv[i+1]}}}})
		}
		return out
	}
	for _, tc := range []struct {
		method      string
		query, head []RawParam
		blob        bool
		want        string
	}{
		{"PUT", nil, hdr("x-ms-blob-type", "BlockBlob"), true, "blob.put"},
		{"PUT", nil, hdr("x-ms-blob-type", "AppendBlob"), true, "blob.append.create"},
		{"PUT", nil, hdr("x-ms-blob-type", "PageBlob"), true, "blob.page.create"},
		{"PUT", nil, nil, true, ""},
		{"PUT", nil, hdr("x-ms-copy-source", "http://x"), true, "blob.copy"},
		{"GET", nil, nil, true, "blob.get"},
		{"HEAD", nil, nil, true, "blob.getprops"},
		{"DELETE", nil, nil, true, "blob.delete"},
		{"PUT", hdr("comp", "properties"), nil, true, "blob.setprops"},
		{"PUT", hdr("comp", "properties"), hdr("x-ms-sequence-number-action", "max"), true, "blob.page.seqnum"},
		{"PUT", hdr("comp", "properties"), hdr("x-ms-blob-content-length", "512"), true, "blob.page.resize"},
		{"PUT", hdr("comp", "page"), hdr("x-ms-page-write", "update"), true, "blob.page.put"},
		{"PUT", hdr("comp", "page"), hdr("x-ms-page-write", "clear"), true, "blob.page.clear"},
		{"GET", hdr("comp", "pagelist"), nil, true, "blob.page.ranges"},
		{"PUT", hdr("comp", "lease"), hdr("x-ms-lease-action", "Break"), true, "blob.lease.break"},
		{"PUT", hdr("comp", "lease"), hdr("x-ms-lease-action", "steal"), true, ""},
		{"PUT", hdr("comp", "block"), nil, true, "blob.stage"},
		{"PUT", hdr("comp", "blocklist"), nil, true, "blob.commit"},
		{"PUT", hdr("comp", "seal"), nil, true, "blob.append.seal"},
		{"PUT", hdr("restype", "container"), nil, false, "container.create"},
		{"PUT", hdr("restype", "container", "comp", "lease"), hdr("x-ms-lease-action", "renew"), false, "container.lease.renew"},
		{"PUT", nil, nil, false, ""},
	} {
		req := &RawRequest{Method: tc.method, Query: tc.query, Headers: tc.head}
		if got := RawRefOp(req, tc.blob); got != tc.want {
			t.Errorf("%s %v %v (blob %v): %q, want %q", tc.method, tc.query, tc.head, tc.blob, got, tc.want)
		}
	}
}
