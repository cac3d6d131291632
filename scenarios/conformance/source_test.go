package conformance

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// Every shipped rule, and every step that overrides its rule's source,
// names where its expectation comes from: a REST page, the spec or live
// evidence.
func TestShippedRulesCiteEvidence(t *testing.T) {
	rs, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range Unsourced(rs.Rules) {
		t.Error(u)
	}
	// The check finds a rule and a step that cite nothing.
	bad, err := Parse("bad.yaml", []byte(`rules:
  - id: r.one
    title: T
    source: "my guess"
    tags: [blob]
    steps:
      - {op: blob.put, blob: b, body: "v", expect: {status: 201}}
  - id: r.two
    title: T
    source: {rest: "https://learn.microsoft.com/rest/api/storageservices/put-blob"}
    tags: [blob]
    steps:
      - {op: blob.put, blob: b, body: "v", evidence: "a hunch", expect: {status: 201}}
`))
	if err != nil {
		t.Fatal(err)
	}
	got := Unsourced(bad)
	if len(got) != 2 || !strings.Contains(got[0], "bad.yaml:2: r.one") || !strings.Contains(got[1], "bad.yaml:13: r.two (step 1)") {
		t.Errorf("unsourced: %q", got)
	}
}

func TestSourceForms(t *testing.T) {
	rules, err := Parse("f.yaml", []byte(`rules:
  - id: r.one
    title: T
    source:
      rest: https://learn.microsoft.com/rest/api/storageservices/delete-blob
      says: "If-None-Match: * fails the operation if the resource exists"
    tags: [blob]
    steps:
      - {op: blob.put, blob: b, body: "v", expect: {status: 201}}
      - op: blob.delete
        blob: b
        if_none_match: "*"
        evidence:
          rest: https://learn.microsoft.com/rest/api/storageservices/delete-blob
          live: [https://github.com/apache/opendal/issues/8176]
          follows: live
          note: the documentation says the delete fails; live Azure deletes
        expect: {status: [202, 412]}
      - {op: blob.getprops, blob: b, expect: {status: [200, 404]}}
`))
	if err != nil {
		t.Fatal(err)
	}
	r := &rules[0]
	if r.Source != "REST: https://learn.microsoft.com/rest/api/storageservices/delete-blob" || r.StepSource(0).Sentence() != "If-None-Match: * fails the operation if the resource exists" {
		t.Errorf("rule source %q, sentence %q", r.Source, r.StepSource(0).Sentence())
	}
	if k := r.StepSource(1).Kinds(); !slices.Equal(k, []string{EvidenceREST, EvidenceLive}) || r.StepSource(1).Follows != EvidenceLive {
		t.Errorf("step 2 evidence %+v", r.StepSource(1))
	}
	// Step 2 accepts two answers with live evidence: decided; step 3 does
	// without: the rule is undecided for Get Blob Properties only.
	if r.Undecided("blob.delete") || !r.Undecided("blob.getprops") || !r.Undecided("") {
		t.Errorf("undecided: delete %v getprops %v", r.Undecided("blob.delete"), r.Undecided("blob.getprops"))
	}
	for _, tc := range []struct{ src, field, msg string }{
		{`{says: "x"}`, "rules[0].source", "names no evidence: give at least one of rest"},
		{`{rest: x, folows: live}`, "rules[0].source.folows", `unknown field "folows" (did you mean "follows"?)`},
		{`{rest: x, follows: docs}`, "rules[0].source.follows", `must be live`},
		{`{rest: x, follows: live}`, "rules[0].source.follows", "follows: live needs the live evidence (live) and a note"},
		{`[x]`, "rules[0].source", "must be a mapping of where the expectation comes from"},
	} {
		_, err := Parse("f.yaml", []byte("rules:\n  - id: r.one\n    title: T\n    source: "+tc.src+"\n    tags: [blob]\n    steps: [{op: wait, duration: 1s}]\n"))
		var list ErrorList
		if !errors.As(err, &list) || !slices.ContainsFunc(list, func(e *Error) bool { return e.Field == tc.field && e.Line == 4 && strings.Contains(e.Msg, tc.msg) }) {
			t.Errorf("source %s: want f.yaml:4: %s: %s, got %v", tc.src, tc.field, tc.msg, err)
		}
	}
}

// A point covered only by a rule accepting several answers without live
// evidence is undecided, not covered; live evidence decides it.
func TestCoverageUndecided(t *testing.T) {
	src := func(evidence string) string {
		return `rules:
  - id: r.one
    title: T
    source: "REST: Delete Blob"
    tags: [blob]
    covers: ["blob.delete if-none-match=star"]
    steps:
      - {op: blob.put, blob: b, body: "v", expect: {status: 201}}
      - {op: blob.delete, blob: b, if_none_match: "*",` + evidence + ` expect: {status: [202, 412]}}
`
	}
	star := func(rules []Rule) (OpCoverage, PointCoverage) {
		for _, oc := range Coverage(rules) {
			if oc.Ref.Op == "blob.delete" {
				for _, d := range oc.Dims {
					for _, p := range d.Points {
						if d.Name == "if-none-match" && p.Value == ClassStar {
							return oc, p
						}
					}
				}
			}
		}
		t.Fatal("no point blob.delete if-none-match=star")
		return OpCoverage{}, PointCoverage{}
	}
	open, err := Parse("f.yaml", []byte(src("")))
	if err != nil {
		t.Fatal(err)
	}
	oc, p := star(open)
	if len(p.Rules) != 0 || len(p.Undecided) != 1 || !slices.Contains(oc.UndecidedPoints(), "if-none-match=star") || slices.Contains(oc.Holes(), "if-none-match=star") {
		t.Errorf("undecided rule: %+v", p)
	}
	var b strings.Builder
	if err := WriteCoverage(&b, Coverage(open)); err != nil || !strings.Contains(b.String(), " ?star") || !strings.Contains(b.String(), "1 undecided") {
		t.Errorf("the map does not show the undecided point:\n%s", b.String())
	}
	decided, err := Parse("f.yaml", []byte(src(` evidence: {live: "https://github.com/apache/opendal/issues/8176"},`)))
	if err != nil {
		t.Fatal(err)
	}
	if _, p := star(decided); len(p.Rules) != 1 || len(p.Undecided) != 0 {
		t.Errorf("live evidence must decide: %+v", p)
	}
}
